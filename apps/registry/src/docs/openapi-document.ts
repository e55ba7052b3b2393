import type { Type } from '@nestjs/common';
import { z } from 'zod';
import { authSchema, toolOverrides } from '../http/schemas';
import { requiredRole } from '../model/roles';
import { apiRoutes, isInternal, type ApiRoute } from './api-routes';
import { namedSchemas } from './response-schemas';
// Registers the tenant-settings answers among the named schemas.
import './tenant-response-schemas';

type Json = Record<string, unknown>;
export interface OpenApiDocument {
  openapi: '3.1.0';
  info: Json;
  servers: Json[];
  tags: Json[];
  components: { securitySchemes: Json; schemas: Record<string, Json> };
  paths: Record<string, Record<string, Json>>;
}

const REQUEST_PARTS: Array<[string, z.ZodType]> = [
  ['ServerAuthInput', authSchema],
  ['ToolOverridesInput', toolOverrides],
];

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
const pascal = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const errorBody = { content: { 'application/json': { schema: ref('ApiErrorBody') } } };

/** The JSON Schema of a zod schema, without the `$schema` line OpenAPI has no use for. */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' });
  return rest;
}

/**
 * Component schemas: request bodies as they are accepted (io input: defaults optional) and
 * answers as they are sent (io output), each converted once, nested named ones by `$ref`.
 */
class Components {
  private readonly requests = z.registry<{ id: string }>();
  private readonly responses = z.registry<{ id: string }>();

  constructor() {
    for (const [id, schema] of namedSchemas) this.responses.add(schema, { id });
    // Parts several bodies share: one component each instead of a copy in every body.
    for (const [id, schema] of REQUEST_PARTS) this.requests.add(schema, { id });
  }

  body(schema: z.ZodType, operationId: string): Json {
    return ref(this.name(this.requests, schema, `${pascal(operationId)}Body`));
  }

  response(schema: z.ZodType, operationId: string): Json {
    return ref(this.name(this.responses, schema, `${pascal(operationId)}Response`));
  }

  private name(registry: z.core.$ZodRegistry<{ id: string }>, schema: z.ZodType, fallback: string): string {
    const known = registry.get(schema)?.id;
    if (known) return known;
    registry.add(schema, { id: fallback });
    return fallback;
  }

  schemas(): Record<string, Json> {
    const out: Record<string, Json> = {};
    for (const [registry, io] of [
      [this.requests, 'input'],
      [this.responses, 'output'],
    ] as const) {
      const { schemas } = z.toJSONSchema(registry, {
        io,
        unrepresentable: 'any',
        uri: (id) => `#/components/schemas/${id}`,
        // Answers are open (a newer registry may add fields), which also lets allOf compose them.
        override:
          io === 'output'
            ? ({ jsonSchema }) => void (jsonSchema.additionalProperties === false && delete jsonSchema.additionalProperties)
            : undefined,
      });
      for (const [id, { $schema: _, $id: __, ...schema }] of Object.entries(schemas)) {
        if (id in out) throw new Error(`OpenAPI component ${id} is both a request body and an answer`);
        out[id] = schema;
      }
    }
    return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
  }
}

function parameters(route: ApiRoute): Json[] {
  const spec = route.spec!;
  const params = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => {
    const schema = spec.params?.shape[name!] as z.ZodType | undefined;
    return { name, in: 'path', required: true, schema: schema ? jsonSchema(schema, 'input') : { type: 'string' } };
  });
  const query = Object.entries(spec.query?.shape ?? {}).map(([name, schema]) => {
    const { description, ...json } = jsonSchema(schema as z.ZodType, 'input');
    return {
      name,
      in: 'query',
      required: !(schema as z.ZodType).safeParse(undefined).success,
      ...(description ? { description } : {}),
      schema: json,
    };
  });
  return [...params, ...query];
}

function operation(route: ApiRoute, components: Components): Json {
  const spec = route.spec!;
  const status = String(spec.status ?? route.httpCode ?? (route.method === 'POST' ? 201 : 200));
  const description = status === '302' ? 'Redirect' : status === '204' ? 'No content' : 'OK';
  const params = parameters(route);
  return {
    operationId: spec.operationId,
    tags: [spec.tag ?? route.tag ?? 'Other'],
    summary: spec.summary,
    // The least role (of the calling admin or API key) the route needs: 403 FORBIDDEN below it.
    ...(spec.auth === 'tenant' ? { 'x-required-role': requiredRole(route.method, route.pattern) } : {}),
    security: spec.auth === 'none' ? [] : [{ [spec.auth]: [] }],
    ...(params.length ? { parameters: params } : {}),
    ...(spec.body
      ? {
          requestBody: {
            required: !spec.optionalBody,
            content: { 'application/json': { schema: components.body(spec.body, spec.operationId) } },
          },
        }
      : {}),
    responses: {
      [status]: spec.response
        ? { description, content: { 'application/json': { schema: components.response(spec.response, spec.operationId) } } }
        : { description },
      ...Object.fromEntries(Object.entries(spec.errors ?? {}).map(([code, text]) => [code, { description: text, ...errorBody }])),
      '4XX': { description: 'Bad input (the field is named), unauthenticated, not found or conflict', ...errorBody },
      '503': { description: 'Postgres unavailable; retry after Retry-After seconds', ...errorBody },
    },
  };
}

/** Routes of the published API that carry no `@ApiOperation` (the document refuses to build while any does). */
export function undocumentedRoutes(controllers: Iterable<Type>): string[] {
  return apiRoutes(controllers)
    .filter((r) => !isInternal(r.path) && !r.spec)
    .map((r) => `${r.method} ${r.pattern} (${r.handler})`);
}

/** The OpenAPI 3.1 document of the admin API, generated from the controllers' routes and the zod schemas they parse with. */
export function openApiDocument(controllers: Iterable<Type>, serverUrl: string): OpenApiDocument {
  const list = [...controllers];
  const missing = undocumentedRoutes(list);
  if (missing.length > 0) throw new Error(`routes without @ApiOperation: ${missing.join(', ')}`);
  const components = new Components();
  const paths: OpenApiDocument['paths'] = {};
  const tags = new Set<string>();
  const ids = new Set<string>();
  for (const route of apiRoutes(list).filter((r) => !isInternal(r.path))) {
    const op = operation(route, components);
    if (ids.has(op.operationId as string)) throw new Error(`operationId ${String(op.operationId)} is used twice`);
    ids.add(op.operationId as string);
    for (const t of op.tags as string[]) tags.add(t);
    (paths[route.path] ??= {})[route.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Switchboard registry admin API',
      version: '0.1.0',
      description: 'Tenants register MCP servers, review discovery, publish per-surface catalogs.',
    },
    servers: [{ url: serverUrl }],
    tags: [...tags].sort().map((name) => ({ name })),
    components: { securitySchemes: SECURITY_SCHEMES, schemas: components.schemas() },
    paths,
  };
}

const SECURITY_SCHEMES = {
  tenant: {
    type: 'http',
    scheme: 'bearer',
    description:
      'Each API key and console admin has a role: viewer reads; publisher reviews and publishes; admin changes servers, settings, auth and limits; owner manages admins and keys (x-required-role on each operation). Tenant API key (sbk_…), or a platform access token (JWT from CONSOLE_ISSUER: ES256, typ at+jwt, aud <public URL>/v1, scope console, tid), or the console session cookie sb_console together with the header x-switchboard-console: 1 (403 without it)',
  },
  operator: { type: 'http', scheme: 'bearer', description: 'REGISTRY_OPERATOR_KEY' },
};

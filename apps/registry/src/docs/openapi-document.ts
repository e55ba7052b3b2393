import { z } from 'zod';
import { readinessBody } from '../readiness/readiness-body';
import { readinessReportSchema } from '../readiness/readiness-report-schema';
import { approveBody, createKeyBody, createServerBody, createTenantBody, publishBody, unpublishBody, updateServerBody, updateTenantBody } from '../http/schemas';

type Op = { method: 'get' | 'post' | 'patch' | 'delete'; path: string; summary: string; auth: 'tenant' | 'operator' | 'internal' | 'none'; body?: z.ZodType; status?: number; response?: Record<string, unknown>; optionalBody?: boolean };

const OPS: Op[] = [
  { method: 'post', path: '/v1/tenants', summary: 'Create a tenant and its first API key (operator)', auth: 'operator', body: createTenantBody, status: 201 },
  { method: 'get', path: '/v1/tenants', summary: 'List tenants (operator)', auth: 'operator' },
  { method: 'get', path: '/v1/tenant', summary: "The calling tenant, its MCP URL and the `claude mcp add` line", auth: 'tenant' },
  { method: 'patch', path: '/v1/tenant', summary: 'Update profile, origins, hosts and per-surface settings', auth: 'tenant', body: updateTenantBody },
  { method: 'get', path: '/v1/connect', summary: 'MCP URL and `claude mcp add --transport http` line', auth: 'tenant' },
  { method: 'get', path: '/v1/keys', summary: 'List API keys (never the keys themselves)', auth: 'tenant' },
  { method: 'post', path: '/v1/keys', summary: 'Create an API key (shown once)', auth: 'tenant', body: createKeyBody, status: 201 },
  { method: 'delete', path: '/v1/keys/{id}', summary: 'Revoke an API key', auth: 'tenant' },
  { method: 'get', path: '/v1/servers', summary: 'List upstream servers', auth: 'tenant' },
  { method: 'post', path: '/v1/servers', summary: 'Register an upstream server (SSRF-checked) and enqueue discovery', auth: 'tenant', body: createServerBody, status: 201 },
  { method: 'get', path: '/v1/servers/{id}', summary: 'One server (health, last error; never its secret)', auth: 'tenant' },
  { method: 'patch', path: '/v1/servers/{id}', summary: 'Update a server (rediscovered and republished)', auth: 'tenant', body: updateServerBody },
  { method: 'delete', path: '/v1/servers/{id}', summary: 'Delete a server and its publications', auth: 'tenant' },
  { method: 'post', path: '/v1/servers/{id}/discover', summary: 'Enqueue a discovery job', auth: 'tenant', status: 202 },
  { method: 'get', path: '/v1/servers/{id}/items', summary: 'Discovered tools, resources, templates and prompts with hashes', auth: 'tenant' },
  { method: 'get', path: '/v1/publications', summary: 'The routing table: exposed name → (server, upstream name)', auth: 'tenant' },
  { method: 'post', path: '/v1/publications', summary: 'Publish items (names checked) and push a new snapshot', auth: 'tenant', body: publishBody },
  { method: 'post', path: '/v1/publications/unpublish', summary: 'Unpublish items and push a new snapshot', auth: 'tenant', body: unpublishBody },
  { method: 'post', path: '/v1/publish', summary: 'Recompile and push the current snapshot', auth: 'tenant' },
  { method: 'get', path: '/v1/changes', summary: 'Discovered changes of published items held for review', auth: 'tenant' },
  { method: 'post', path: '/v1/changes/approve', summary: 'Approve one held change and publish', auth: 'tenant', body: approveBody },
  { method: 'get', path: '/v1/preview', summary: 'What each surface receives (query: surface, version)', auth: 'tenant' },
  {
    method: 'post',
    path: '/v1/preview',
    summary:
      'Draft preview: what each surface would receive if this publication (the POST /v1/publications body) were published now (query: surface, version). Same name checks and compile as publishing; nothing is written',
    auth: 'tenant',
    body: publishBody,
  },
  { method: 'get', path: '/v1/snapshots', summary: 'Immutable snapshots (version = content hash)', auth: 'tenant' },
  { method: 'get', path: '/v1/audit', summary: 'Audit log of every change', auth: 'tenant' },
  {
    method: 'post',
    path: '/v1/tenants/{tenant}/readiness',
    summary: 'Connector readiness check: replays what Claude and ChatGPT do against the MCP URL (or body.url) and reports each step as pass / fail / warn / skip with the reason and the fix',
    auth: 'tenant',
    body: readinessBody,
    response: readinessReportSchema,
    optionalBody: true,
  },
  { method: 'get', path: '/internal/catalogs', summary: 'Every published catalog, credentials sealed (gateways)', auth: 'internal' },
  { method: 'get', path: '/internal/catalogs/{tenant}', summary: "One tenant's published catalog (gateways)", auth: 'internal' },
  { method: 'get', path: '/health', summary: 'Liveness and Postgres/Redis readiness', auth: 'none' },
];

const errorSchema = {
  type: 'object',
  properties: { error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' }, field: { type: 'string' } }, required: ['code', 'message'] } },
};

/** The OpenAPI 3.1 document of the admin API, with request bodies generated from the zod schemas that validate them. */
export function openApiDocument(serverUrl: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPS) {
    const params = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    paths[op.path] ??= {};
    paths[op.path][op.method] = {
      summary: op.summary,
      ...(op.auth === 'none' ? { security: [] } : { security: [{ [op.auth]: [] }] }),
      ...(params.length ? { parameters: params } : {}),
      ...(op.body ? { requestBody: { required: !op.optionalBody, content: { 'application/json': { schema: z.toJSONSchema(op.body, { io: 'input', unrepresentable: 'any' }) } } } } : {}),
      responses: {
        [String(op.status ?? 200)]: op.response ? { description: 'OK', content: { 'application/json': { schema: op.response } } } : { description: 'OK' },
        '4XX': { description: 'Bad input (the field is named), unauthenticated, not found or conflict', content: { 'application/json': { schema: errorSchema } } },
        '503': { description: 'Postgres unavailable; retry after Retry-After seconds', content: { 'application/json': { schema: errorSchema } } },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Switchboard registry admin API', version: '0.1.0', description: 'Tenants register MCP servers, review discovery, publish per-surface catalogs.' },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: {
        tenant: { type: 'http', scheme: 'bearer', description: 'Tenant API key (sbk_…)' },
        operator: { type: 'http', scheme: 'bearer', description: 'REGISTRY_OPERATOR_KEY' },
        internal: { type: 'http', scheme: 'bearer', description: 'INTERNAL_TOKEN (gateways)' },
      },
    },
    paths,
  };
}

import { z } from 'zod';

/**
 * The declarative tenant file (`switchboard plan|apply|export -f tenant.yaml`). Shapes follow
 * the admin API's bodies; bounds and cross-field rules stay the API's to check (its errors name
 * the field). A section left out of the file is not managed: apply leaves it as it is.
 * The published JSON Schema (apps/cli/schema/tenant-file.schema.json) is generated from this.
 */

/** A secret read from the environment when apply needs to send it; plans and exports show only the variable's name. */
export const secretRef = z
  .object({
    fromEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'must be an environment variable name')
      .describe('Environment variable holding the secret'),
  })
  .strict()
  .describe('A secret by reference: the value is read from this environment variable at apply time and never written to plans or exports');

const serverAuth = z
  .discriminatedUnion('mode', [
    z.object({ mode: z.literal('none') }).strict(),
    z.object({ mode: z.literal('bearer'), token: secretRef }).strict(),
    z.object({ mode: z.literal('header'), header: z.string().min(1), value: secretRef }).strict(),
    z
      .object({
        mode: z.literal('oauth_client_credentials'),
        tokenUrl: z.url(),
        clientId: z.string().min(1),
        clientSecret: secretRef,
        scope: z.string().optional(),
        audience: z.string().optional(),
      })
      .strict(),
    z.object({ mode: z.literal('oauth_user'), authorizationServer: z.url().optional(), scope: z.string().optional() }).strict(),
  ])
  .describe('How Switchboard authenticates to the upstream (default: none)');

const annotations = z
  .object({
    title: z.string().optional(),
    readOnlyHint: z.boolean().optional(),
    destructiveHint: z.boolean().optional(),
    idempotentHint: z.boolean().optional(),
    openWorldHint: z.boolean().optional(),
  })
  .strict();

export const overridesSchema = z
  .object({ title: z.string().optional(), description: z.string().optional(), annotations: annotations.optional() })
  .strict()
  .describe("Set over the upstream's definition");

export const ITEM_KINDS = ['tool', 'prompt', 'resource', 'resource_template'] as const;

const publishItem = z
  .object({
    name: z.string().min(1).describe("The upstream's name of the item"),
    kind: z.enum(ITEM_KINDS).optional().describe('Default: tool'),
    exposedName: z.string().min(1).optional().describe('Name clients see (default: the upstream name, prefixed on a collision)'),
    overrides: overridesSchema.optional(),
  })
  .strict();

export const serverSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/, 'must be a DNS label: 1-63 chars of a-z 0-9 -'),
    name: z.string().min(1),
    url: z.url(),
    transport: z.enum(['auto', 'streamable-http', 'sse']).optional().describe('Default: auto'),
    auth: serverAuth.optional(),
    toolPrefix: z.string().min(1).optional(),
    timeoutMs: z.number().int().positive().optional(),
    maxConcurrency: z.number().int().positive().optional(),
    stateful: z.boolean().optional(),
    publish: z
      .array(publishItem)
      .optional()
      .describe('The exact set of published items of this server (left out: publications are not managed)'),
  })
  .strict();

const rateSpec = z.object({ requestsPerSecond: z.number().positive(), burst: z.number().int().positive() }).strict();

const limitsSchema = z
  .object({
    rate: z
      .object({
        tenant: rateSpec.optional(),
        subject: rateSpec.optional(),
        tools: z.record(z.string(), rateSpec).optional(),
        dailyCalls: z.number().int().min(0).optional(),
      })
      .strict()
      .nullable()
      .optional()
      .describe('Rate plan; null = operator defaults'),
    callLog: z
      .object({
        captureArguments: z.boolean().optional(),
        captureResults: z.boolean().optional(),
        redactKeys: z.array(z.string().min(1)).optional(),
        retentionDays: z.number().int().positive().optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

const idpSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('local') }).strict(),
  z
    .object({
      kind: z.literal('oidc'),
      issuer: z.url(),
      clientId: z.string().min(1),
      clientSecret: secretRef.optional(),
      scopes: z.array(z.string().min(1)).min(1).optional(),
    })
    .strict(),
]);

const authSchema = z
  .object({
    protected: z.boolean().optional(),
    scopes: z.array(z.string().min(1)).min(1).optional(),
    defaultScopes: z.array(z.string().min(1)).min(1).nullable().optional(),
    toolScopes: z.record(z.string(), z.array(z.string().min(1)).min(1)).optional(),
    allowPrivateUseRedirects: z.boolean().optional(),
    idp: idpSchema.optional(),
  })
  .strict()
  .describe("The tenant's OAuth settings: protection, scopes and the identity provider its users sign in with");

const surfaceRulesSchema = z
  .object({
    clientSurfaces: z.record(z.string(), z.string()).optional().describe('OAuth client id → surface id'),
    surfaces: z
      .record(z.string(), z.record(z.string(), z.unknown()))
      .optional()
      .describe('Overrides of built-in surfaces and custom surfaces, by surface id'),
  })
  .strict();

/**
 * The interceptor chain (PUT /v1/guardrails), in order. Each interceptor is the API's shape
 * (name, type, hook, match, mode, failOpen, use), checked by the API; only a webhook's secret
 * differs: a reference to an environment variable.
 */
const interceptorSchema = z
  .object({
    name: z.string().min(1),
    use: z.union([
      z.object({ webhook: z.object({ url: z.url(), secret: secretRef.optional() }).loose() }).strict(),
      z.object({ builtin: z.enum(['pii', 'cel']) }).loose(),
    ]),
  })
  .loose();

const guardrailsSchema = z
  .object({
    interceptors: z.array(interceptorSchema).describe('Validators and mutators in the order they run; an empty list removes them all'),
  })
  .strict()
  .describe("The tenant's interceptors (docs/guardrails.md)");

const tenantSchema = z
  .object({
    name: z.string().min(1).optional(),
    description: z.string().nullable().optional(),
    instructions: z.string().nullable().optional(),
    origins: z.array(z.string().min(1)).optional(),
    hosts: z.array(z.string().min(1)).optional(),
  })
  .strict();

/** Server ids, and each server's published items, must be unique: a plan of duplicates would apply one over the other. */
function uniqueNames(
  file: { servers?: Array<{ id: string; publish?: Array<{ kind?: string; name: string }> }> },
  ctx: z.RefinementCtx,
): void {
  const ids = new Set<string>();
  for (const [i, server] of (file.servers ?? []).entries()) {
    if (ids.has(server.id)) ctx.addIssue({ code: 'custom', path: ['servers', i, 'id'], message: `server "${server.id}" is listed twice` });
    ids.add(server.id);
    const items = new Set<string>();
    for (const [j, item] of (server.publish ?? []).entries()) {
      const key = `${item.kind ?? 'tool'}:${item.name}`;
      if (items.has(key))
        ctx.addIssue({
          code: 'custom',
          path: ['servers', i, 'publish', j, 'name'],
          message: `${item.kind ?? 'tool'} "${item.name}" is listed twice`,
        });
      items.add(key);
    }
  }
}

export const tenantFileSchema = z
  .object({
    $schema: z.string().optional(),
    version: z.literal(1).describe('Format version of this file'),
    tenant: tenantSchema.optional(),
    surfaceRules: surfaceRulesSchema.optional(),
    auth: authSchema.optional(),
    limits: limitsSchema.optional(),
    guardrails: guardrailsSchema.optional(),
    servers: z
      .array(serverSchema)
      .optional()
      .describe('The exact set of upstream servers (left out: servers are not managed; a server not listed is removed)'),
  })
  .strict()
  .superRefine(uniqueNames)
  .describe('A Switchboard tenant as code: applied with `switchboard apply -f`');

export type TenantFile = z.infer<typeof tenantFileSchema>;
export type ServerSpec = z.infer<typeof serverSchema>;
export type PublishSpec = NonNullable<ServerSpec['publish']>[number];
export type SecretRef = z.infer<typeof secretRef>;
export type GuardrailsSpec = z.infer<typeof guardrailsSchema>;
export type Overrides = z.infer<typeof overridesSchema>;

/** The JSON Schema of the tenant file (draft 2020-12), for editors and the published copy. */
export function tenantFileJsonSchema(): Record<string, unknown> {
  return {
    $id: 'https://switchboard.dev/schema/tenant-file.schema.json',
    title: 'Switchboard tenant file',
    ...z.toJSONSchema(tenantFileSchema, { io: 'input' }),
  };
}

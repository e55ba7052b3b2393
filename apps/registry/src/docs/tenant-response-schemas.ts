import { z } from 'zod';
import { namedSchemas } from './response-schemas';

/** Answers of the tenant-settings routes (auth, limits, usage, readiness): named response components, as in response-schemas.ts. */
function named<S extends z.ZodType>(id: string, description: string, schema: S): S {
  // describe() returns a copy: that copy is the one routes name, so it is the one registered.
  const described = schema.describe(description) as S;
  namedSchemas.set(id, described);
  return described;
}

const clientSettings = { issuer: z.string(), clientId: z.string(), scopes: z.array(z.string()), clientSecretSet: z.boolean() };
const optionalTarget = { audience: z.string().optional(), resource: z.string().optional() };
/** How a connector obtains upstream tokens from the user's enterprise identity (left out: linked accounts only). */
const connectorGrantView = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('token_exchange'), ...optionalTarget }),
  z.object({
    kind: z.literal('cross_app'),
    idpIssuer: z.string(),
    idpClientId: z.string(),
    idpClientSecretSet: z.boolean(),
    ...optionalTarget,
  }),
]);

export const tenantAuthViewSchema = named(
  'TenantAuthView',
  '`GET /v1/tenant/auth` (never a secret: `clientSecretSet` instead); changes answer the same plus `pushed`',
  z.object({
    configured: z.boolean(),
    protected: z.boolean(),
    scopes: z.array(z.string()),
    defaultScopes: z.array(z.string()).nullable(),
    toolScopes: z.record(z.string(), z.array(z.string())),
    allowPrivateUseRedirects: z.boolean().optional(),
    idp: z.discriminatedUnion('kind', [z.object({ kind: z.literal('local') }), z.object({ kind: z.literal('oidc'), ...clientSettings })]),
    enterpriseIdps: z
      .array(
        z.object({
          issuer: z.string(),
          jwksUri: z.string(),
          allowedClients: z.array(z.string()),
          subjectClaim: z.string(),
          groupsClaim: z.string(),
          groupScopes: z.record(z.string(), z.array(z.string())),
        }),
      )
      .optional(),
    connectors: z.record(z.string(), z.object({ ...clientSettings, grant: connectorGrantView.optional() })),
    pushed: z.enum(['ok', 'unavailable']).nullable().optional(),
  }),
);

export const testSignInSchema = named(
  'TestSignIn',
  'A started test sign-in: open `url` in the browser (valid until expiresAt)',
  z.object({ id: z.string(), url: z.string(), expiresAt: z.string().meta({ format: 'date-time' }), redirectUri: z.string() }),
);

export const testSignInResultSchema = named(
  'TestSignInResult',
  'The ID-token claims of a test sign-in, or the IdP error',
  z.discriminatedUnion('ok', [
    z.object({ id: z.string(), ok: z.literal(true), issuer: z.string(), claims: z.record(z.string(), z.unknown()) }),
    z.object({ id: z.string(), ok: z.literal(false), issuer: z.string(), error: z.string(), errorDescription: z.string() }),
  ]),
);

export const connectorLinkSchema = named(
  'ConnectorLink',
  'A one-time link URL at the auth service (expiresIn seconds)',
  z.object({ serverId: z.string(), linkUrl: z.string(), expiresIn: z.number().int() }),
);

export const connectorAccountSchema = named(
  'ConnectorAccount',
  "Whether the tenant admin's upstream account is linked for a connector (never a token)",
  z.object({
    serverId: z.string(),
    linked: z.boolean(),
    expiresAt: z.number().int().optional(),
    refreshable: z.boolean().optional(),
    updatedAt: z.number().int().optional(),
  }),
);

export const rateSpecSchema = named(
  'RateSpec',
  'One limit: a sustained rate and the burst above it',
  z.object({ requestsPerSecond: z.number(), burst: z.number() }),
);

export const ratePlanSchemaView = named(
  'RatePlan',
  "The tenant's rate plan (`limits.rate`); null = operator defaults",
  z.object({
    tenant: rateSpecSchema.optional(),
    subject: rateSpecSchema.optional(),
    tools: z.record(z.string(), rateSpecSchema).optional(),
    dailyCalls: z.number().optional(),
  }),
);

export const limitsViewSchema = named(
  'LimitsView',
  '`GET`/`PUT /v1/limits` (PUT adds `pushed`)',
  z.object({ rate: ratePlanSchemaView.nullable(), callLog: z.record(z.string(), z.unknown()).nullable(), pushed: z.string().optional() }),
);

export const usageRowSchema = named(
  'UsageRow',
  'One usage rollup (a day × server × tool × subject, or summed by groupBy)',
  z.object({
    day: z.string(),
    server: z.string(),
    tool: z.string(),
    subject: z.string(),
    calls: z.number(),
    errors: z.number(),
    toolErrors: z.number(),
    rateLimited: z.number(),
    bytesIn: z.number(),
    bytesOut: z.number(),
    avgMs: z.number(),
    latency: z.object({ bucketsMs: z.array(z.number().nullable()), counts: z.array(z.number()) }).optional(),
  }),
);

export const callRowSchema = named(
  'CallRow',
  'One record of the call log',
  z.object({
    id: z.string(),
    at: z.string().meta({ format: 'date-time' }),
    subject: z.string().nullable(),
    clientId: z.string().nullable(),
    surface: z.string().nullable(),
    method: z.string(),
    tool: z.string().nullable(),
    server: z.string().nullable(),
    outcome: z.string(),
    errorCode: z.number().nullable(),
    durationMs: z.number(),
    bytesIn: z.number(),
    bytesOut: z.number(),
    arguments: z.unknown().optional(),
    result: z.unknown().optional(),
  }),
);

export const enterpriseCheckResultSchema = named(
  'EnterpriseCheckResult',
  'What the token endpoint would decide about an ID-JAG: the user and scopes, or the refusing check',
  z.discriminatedUnion('ok', [
    z.object({
      ok: z.literal(true),
      issuer: z.string(),
      clientId: z.string(),
      subject: z.string(),
      scopes: z.array(z.string()),
      expiresAt: z.string(),
    }),
    z.object({ ok: z.literal(false), check: z.string(), description: z.string() }),
  ]),
);

import { callLogPolicySchema, ratePlanSchema } from '@switchboard/limits';
import { z } from 'zod';
import { tenantAuthSchema } from '@switchboard/tenant-config';

const TENANT_ID = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

const upstreamSchema = z.object({
  id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, 'must be 1-32 chars of a-z 0-9 _ -'),
  url: z.url(),
  stateful: z.boolean().default(false),
  /** The upstream's own credential headers (never the client's token). */
  headers: z.record(z.string(), z.string()).default({}),
  /** Prefix for exposed tool names (default: none). */
  prefix: z.string().regex(/^[A-Za-z0-9_.-]{0,16}$/).optional(),
});

const catalogSchema = z.union([
  /** `tools` publishes only the named tools of the catalog (all when absent). */
  z.object({ builtin: z.enum(['demo', 'conformance', 'chain']), tools: z.array(z.string().min(1)).min(1).optional() }).strict(),
  z.object({ fixture: z.string().min(1), tools: z.array(z.string().min(1)).min(1).optional() }).strict(),
  z.object({ upstream: upstreamSchema }).strict(),
]);

/** Per-tenant overrides of the gateway's limits (the tenant document's `limits`). */
const limitsSchema = z
  .object({
    upstreamResponseBytes: z.number().int().min(1024).max(1024 * 1024 * 1024).optional(),
    maxInflight: z.number().int().min(1).max(100_000).optional(),
    /** Request rates and the daily quota (README "Rate limits"). */
    rate: ratePlanSchema.optional(),
    /** What the call log captures. */
    callLog: callLogPolicySchema.optional(),
  })
  .strict();

const surfaceOverrideSchema = z.record(z.string(), z.record(z.string(), z.unknown()));

/** OAuth protection of a tenant's endpoint: the same schema apps/auth reads (libs/tenant-config). */
const authSchema = tenantAuthSchema;

const tenantSchema = z
  .object({
    id: z.string().regex(TENANT_ID, 'must be a DNS label: 1-63 chars of a-z 0-9 -'),
    name: z.string().min(1).max(120),
    description: z.string().max(2000).optional(),
    /** Extra browser origins allowed to call (exact, or `http://localhost:*`). Known MCP client origins are always allowed. */
    origins: z.array(z.string().min(1)).default([]),
    /** Extra Host names accepted (DNS-rebinding protection); loopback and the public host are always accepted. */
    hosts: z.array(z.string().min(1)).default([]),
    instructions: z.string().max(10_000).optional(),
    surfaces: z
      .object({
        clientSurfaces: z.record(z.string(), z.string()).default({}),
        surfaces: surfaceOverrideSchema.default({}),
      })
      .default({ clientSurfaces: {}, surfaces: {} }),
    catalogs: z.array(catalogSchema).min(1),
    auth: authSchema.optional(),
    limits: limitsSchema.optional(),
  })
  .strict();

export const tenantFileSchema = z.object({ tenants: z.array(tenantSchema).min(1) }).strict();

export type TenantFile = z.infer<typeof tenantFileSchema>;
export type TenantFileEntry = TenantFile['tenants'][number];
export type CatalogSpec = TenantFileEntry['catalogs'][number];
export type UpstreamSpec = z.infer<typeof upstreamSchema>;
export type TenantAuthSpec = z.infer<typeof authSchema>;

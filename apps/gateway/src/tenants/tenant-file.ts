import { z } from 'zod';

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

const surfaceOverrideSchema = z.record(z.string(), z.record(z.string(), z.unknown()));

/*
 * OAuth protection of a tenant's endpoint (apps/auth reads the same block with the same
 * schema, apps/auth/src/tenants/tenant-auth.ts; change both together).
 */
const scopeToken = z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/, 'must be an RFC 6749 scope token');
const authSchema = z
  .object({
    /** Protected tenants require a bearer token issued by the tenant's authorization server. */
    protected: z.boolean().default(true),
    /** The MCP scopes this tenant's tokens may carry. */
    scopes: z.array(scopeToken).min(1).default(['mcp:tools']),
    /** Granted when a client asks for none (defaults to `scopes`). */
    defaultScopes: z.array(scopeToken).optional(),
    idp: z
      .discriminatedUnion('kind', [
        z.object({ kind: z.literal('local') }).strict(),
        z
          .object({
            kind: z.literal('oidc'),
            issuer: z.url(),
            clientId: z.string().min(1),
            clientSecretEnv: z.string().regex(/^[A-Z_][A-Z0-9_]*$/).optional(),
            scopes: z.array(scopeToken).default(['openid', 'email', 'profile']),
          })
          .strict(),
      ])
      .default({ kind: 'local' }),
    /** Scopes a tool needs (a broader granted scope such as `mcp:tools` satisfies `mcp:tools:write`). */
    toolScopes: z.record(z.string(), z.array(scopeToken)).default({}),
    /** Upstream servers (by upstream id) that get a per-user OAuth token from the auth service's vault. */
    connectors: z
      .record(z.string(), z.object({ issuer: z.url(), clientId: z.string().min(1), clientSecretEnv: z.string().regex(/^[A-Z_][A-Z0-9_]*$/).optional(), scopes: z.array(scopeToken).default([]) }).strict())
      .default({}),
    /** Accept private-use redirect schemes (`cursor://…`) for native clients. */
    allowPrivateUseRedirects: z.boolean().default(true),
  })
  .strict();

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
  })
  .strict();

export const tenantFileSchema = z.object({ tenants: z.array(tenantSchema).min(1) }).strict();

export type TenantFile = z.infer<typeof tenantFileSchema>;
export type TenantFileEntry = TenantFile['tenants'][number];
export type CatalogSpec = TenantFileEntry['catalogs'][number];
export type UpstreamSpec = z.infer<typeof upstreamSchema>;
export type TenantAuthSpec = z.infer<typeof authSchema>;

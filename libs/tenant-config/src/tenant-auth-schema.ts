import { z } from 'zod';

/** RFC 6749 §3.3 scope token. */
const scope = z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/, 'must be an RFC 6749 scope token');
const envName = z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'must be an environment variable name');

const idpSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('local') }).strict(),
  z
    .object({
      kind: z.literal('oidc'),
      issuer: z.url(),
      clientId: z.string().min(1),
      /** Environment variable holding the client secret at the IdP (absent ⇒ public client with PKCE). */
      clientSecretEnv: envName.optional(),
      scopes: z.array(scope).default(['openid', 'email', 'profile']),
    })
    .strict(),
]);

const connectorSchema = z
  .object({
    issuer: z.url(),
    clientId: z.string().min(1),
    clientSecretEnv: envName.optional(),
    scopes: z.array(scope).default([]),
  })
  .strict();

/**
 * The `auth:` block of a tenant: read by the gateway (resource server) and the auth service
 * (authorization server) from the same tenants file, so both validate it with this one schema.
 */
export const tenantAuthSchema = z
  .object({
    /** Protected tenants require a bearer token issued by the tenant's authorization server. */
    protected: z.boolean().default(true),
    /** The MCP scopes this tenant's tokens may carry. */
    scopes: z.array(scope).min(1).default(['mcp:tools']),
    /** Granted when a client asks for none (defaults to `scopes`). */
    defaultScopes: z.array(scope).optional(),
    idp: idpSchema.default({ kind: 'local' }),
    /** Scopes a tool needs (a broader granted scope such as `mcp:tools` satisfies `mcp:tools:write`). */
    toolScopes: z.record(z.string(), z.array(scope)).default({}),
    /** Upstream servers (by upstream id) that get a per-user OAuth token from the auth service's vault. */
    connectors: z.record(z.string(), connectorSchema).default({}),
    /** Accept private-use redirect schemes (`cursor://…`) for native clients. */
    allowPrivateUseRedirects: z.boolean().default(true),
  })
  .strict();

export type TenantAuthSettings = z.infer<typeof tenantAuthSchema>;
export type IdpSettings = TenantAuthSettings['idp'];
export type ConnectorSettings = z.infer<typeof connectorSchema>;

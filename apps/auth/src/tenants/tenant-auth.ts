import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';

/*
 * The `auth:` block of a tenant in the tenants file. The gateway validates the same block
 * (apps/gateway/src/tenants/tenant-file.ts); apps never import each other, so the schema is
 * repeated here and both must change together. The registry becomes the source later.
 */
const TENANT_ID = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const scope = z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/, 'must be an RFC 6749 scope token');

const idpSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('local') }).strict(),
  z
    .object({
      kind: z.literal('oidc'),
      issuer: z.url(),
      clientId: z.string().min(1),
      /** Environment variable holding the client secret at the IdP (absent ⇒ public client with PKCE). */
      clientSecretEnv: z.string().regex(/^[A-Z_][A-Z0-9_]*$/).optional(),
      scopes: z.array(scope).default(['openid', 'email', 'profile']),
    })
    .strict(),
]);

const connectorSchema = z
  .object({
    issuer: z.url(),
    clientId: z.string().min(1),
    clientSecretEnv: z.string().regex(/^[A-Z_][A-Z0-9_]*$/).optional(),
    scopes: z.array(scope).default([]),
  })
  .strict();

export const tenantAuthSchema = z
  .object({
    /** Protected tenants require a bearer token at the gateway. */
    protected: z.boolean().default(true),
    /** The MCP scopes this tenant's tokens may carry. */
    scopes: z.array(scope).min(1).default(['mcp:tools']),
    /** Granted when a client asks for none (defaults to `scopes`). */
    defaultScopes: z.array(scope).optional(),
    idp: idpSchema.default({ kind: 'local' }),
    /** Extra scopes a tool needs beyond being authenticated (`mcp:tools` satisfies `mcp:tools:write`). */
    toolScopes: z.record(z.string(), z.array(scope)).default({}),
    /** Upstream servers (by upstream id) that need their own per-user OAuth token from the vault. */
    connectors: z.record(z.string(), connectorSchema).default({}),
    /** Accept private-use redirect schemes (`cursor://…`) for native clients. */
    allowPrivateUseRedirects: z.boolean().default(true),
  })
  .strict();

export type TenantAuthSettings = z.infer<typeof tenantAuthSchema>;
export type IdpSettings = TenantAuthSettings['idp'];
export type ConnectorSettings = z.infer<typeof connectorSchema>;

const fileSchema = z.object({
  tenants: z.array(z.object({ id: z.string().regex(TENANT_ID), name: z.string().optional(), auth: tenantAuthSchema.optional() }).loose()),
});

/** One tenant as the authorization server sees it. */
export interface AuthTenant {
  id: string;
  name: string;
  settings: TenantAuthSettings;
  /** Canonical MCP URL: the `resource` and the `aud` of every token. */
  mcpUrl: string;
  /** Issuer identifier (no trailing slash). */
  issuer: string;
  /** Mount path of the provider on this service: `/t/<id>` (path-based) or `` (host-based). */
  mountPath: string;
  defaultScopes: string[];
}

export interface TenantUrlOptions {
  authPublicUrl: string;
  gatewayPublicUrl: string;
  domain?: string;
}

/** Canonical MCP URL, computed exactly like the gateway's TenantDirectory.mcpUrl. */
export function tenantMcpUrl(id: string, o: TenantUrlOptions): string {
  if (o.domain) return `https://${id}.${o.domain}/mcp`;
  return `${o.gatewayPublicUrl}/t/${id}/mcp`;
}

/** Builds the authorization-server view of a tenant. */
export function authTenant(id: string, name: string, settings: TenantAuthSettings, o: TenantUrlOptions): AuthTenant {
  const hostBased = o.domain !== undefined;
  return {
    id,
    name,
    settings,
    mcpUrl: tenantMcpUrl(id, o),
    issuer: hostBased ? `https://${id}.${o.domain}` : `${o.authPublicUrl}/t/${id}`,
    mountPath: hostBased ? '' : `/t/${id}`,
    defaultScopes: settings.defaultScopes ?? settings.scopes,
  };
}

/** Reads the tenants file; only tenants with an `auth:` block get an authorization server. */
export function loadTenantAuthFile(file: string, o: TenantUrlOptions): Map<string, AuthTenant> {
  const raw: unknown = parse(readFileSync(file, 'utf8'));
  const parsed = fileSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n');
    throw new Error(`Invalid tenants file ${file}:\n${problems}`);
  }
  const out = new Map<string, AuthTenant>();
  for (const t of parsed.data.tenants) {
    if (t.auth) out.set(t.id, authTenant(t.id, t.name ?? t.id, t.auth, o));
  }
  return out;
}

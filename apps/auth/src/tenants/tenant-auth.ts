import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';
import { canonicalMcpUrl, tenantAuthSchema, type ConnectorSettings, type IdpSettings, type TenantAuthSettings } from '@switchboard/tenant-config';
import { TENANT_ID } from './identifiers';

export type { ConnectorSettings, IdpSettings, TenantAuthSettings };

const fileSchema = z.object({
  tenants: z.array(z.object({ id: z.string().regex(TENANT_ID), name: z.string().optional(), auth: tenantAuthSchema.optional() }).loose()),
});

/**
 * The one pre-registered, first-party client of an issuer that has no dynamic registration
 * (the platform issuer's `switchboard-console`): public, PKCE, no consent screen.
 */
export interface FirstPartyClient {
  clientId: string;
  clientName: string;
  redirectUris: string[];
}

/** One tenant as the authorization server sees it (also the platform issuer, see platform-issuer.ts). */
export interface AuthTenant {
  id: string;
  name: string;
  settings: TenantAuthSettings;
  /** Canonical MCP URL: the `resource` and the `aud` of every token (the admin API URL for the platform issuer). */
  mcpUrl: string;
  /** Issuer identifier (no trailing slash). */
  issuer: string;
  /** Mount path of the provider on this service: `/t/<id>` (path-based) or `` (host-based). */
  mountPath: string;
  defaultScopes: string[];
  /** Set ⇒ no DCR, no CIMD: only this client exists, signs in with a fresh login every time and is never asked for consent. */
  firstParty?: FirstPartyClient;
}

export interface TenantUrlOptions {
  authPublicUrl: string;
  gatewayPublicUrl: string;
  domain?: string;
}

/** Canonical MCP URL (the shared definition every service uses). */
export function tenantMcpUrl(id: string, o: TenantUrlOptions): string {
  return canonicalMcpUrl(id, o);
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

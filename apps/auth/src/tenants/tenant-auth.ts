import {
  canonicalMcpUrl,
  type ConnectorSettings,
  type IdpSettings,
  type TenantAuthSettings,
  type TenantCatalog,
} from '@switchboard/catalog';

export type { ConnectorSettings, IdpSettings, TenantAuthSettings };

/**
 * The one pre-registered, first-party client of an issuer that has no dynamic registration
 * (the platform issuer's `switchboard-console`): public, PKCE, no consent screen.
 */
export interface FirstPartyClient {
  clientId: string;
  clientName: string;
  redirectUris: string[];
  /** `native` (the CLI): a loopback redirect URI matches on any port (RFC 8252 §7.3). Default `web`. */
  applicationType?: 'web' | 'native';
  /** May use device authorization (RFC 8628): the issuer then serves the device endpoints. */
  deviceFlow?: boolean;
}

/** One tenant as the authorization server sees it (also the platform issuer, see platform-issuer.ts). */
export interface AuthTenant {
  id: string;
  name: string;
  settings: TenantAuthSettings;
  /** Version of the tenant document these settings came from; a new version rebuilds the tenant's provider. */
  version?: string;
  /** Canonical MCP URL: the `resource` and the `aud` of every token (the admin API URL for the platform issuer). */
  mcpUrl: string;
  /** Issuer identifier (no trailing slash). */
  issuer: string;
  /** Mount path of the provider on this service: `/t/<id>` (path-based) or `` (host-based). */
  mountPath: string;
  defaultScopes: string[];
  /** Set ⇒ no DCR, no CIMD: only this client exists, signs in with a fresh login every time and is never asked for consent. */
  firstParty?: FirstPartyClient;
  /** With `firstParty`: more first-party clients of the same issuer (the platform issuer's CLI). */
  moreFirstParty?: FirstPartyClient[];
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
export function authTenant(id: string, name: string, settings: TenantAuthSettings, o: TenantUrlOptions, version?: string): AuthTenant {
  const hostBased = o.domain !== undefined;
  return {
    id,
    name,
    settings,
    ...(version ? { version } : {}),
    mcpUrl: tenantMcpUrl(id, o),
    issuer: hostBased ? `https://${id}.${o.domain}` : `${o.authPublicUrl}/t/${id}`,
    mountPath: hostBased ? '' : `/t/${id}`,
    defaultScopes: settings.defaultScopes ?? settings.scopes,
  };
}

/** What the auth service reads of a tenant document: identity, version and `auth`. */
export type AuthTenantDocument = Pick<TenantCatalog, 'id' | 'name' | 'auth' | 'version'>;

import type { GuardrailsConfig } from '@switchboard/guardrails';
import type { TenantSurfaceRules } from '@switchboard/protocol';
import type { CatalogSnapshot } from './definitions';
import type { DiscoverySettings } from './discovery/discovery-settings';
import type { TenantAuthSettings } from './tenant-auth-schema';
import type { TenantLimits } from './tenant-limits';

/**
 * The tenant document (ARCHITECTURE §2): one tenant as every data-plane service sees it — its
 * identity, its settings (edge policy, surface rules, auth, limits) and its current catalog
 * snapshot. Written only by the registry (or built from the development seed file), validated
 * once on arrival with `parseTenantDocument`, swapped whole.
 */
export interface TenantCatalog {
  id: string;
  name: string;
  description?: string;
  /** Extra allowed browser origins (beyond the known MCP clients and loopback). */
  origins: string[];
  /** Extra accepted Host names. */
  hosts: string[];
  surfaceRules: TenantSurfaceRules;
  /** OAuth settings; absent ⇒ the tenant has no authorization server and its endpoint is open. */
  auth?: TenantAuthSettings;
  /** Version of the whole document (catalog + settings): `tenantDocumentVersion`. `snapshot.version` is the catalog's alone. */
  version?: string;
  /** Optional per-tenant overrides of the platform's limits (absent ⇒ the gateway defaults); keys other work adds are kept. */
  limits?: TenantLimits;
  /** Tenant interceptors (issue 46); absent or empty ⇒ no guardrail work on any call. */
  guardrails?: GuardrailsConfig;
  /** Progressive discovery per surface (absent ⇒ every surface serves its full tools/list). */
  discovery?: DiscoverySettings;
  snapshot: CatalogSnapshot;
}

/**
 * The registry → gateway / auth contract: a `TenantCatalog` plus sealed upstream credentials,
 * stored in Redis under `catalogRedisKeys(ns).catalog(tenantId)` and served by the registry's
 * `GET /internal/catalogs`. Routes carry no secret; `credentials[serverId]` is a SecretBox
 * blob (AAD `gatewayCredentialAad(tenant, server)`) that opens to `{"headers":{…}}`; secrets in
 * `auth` are sealed under `tenantSecretAad(tenant, slot)`.
 */
export interface PublishedCatalog extends TenantCatalog {
  credentials?: Record<string, string>;
}

/** Redis keys and pub/sub channel of the registry → gateway contract, under an optional namespace. */
export function catalogRedisKeys(namespace = ''): { catalog: (tenantId: string) => string; tenants: string; channel: string } {
  return {
    catalog: (tenantId: string) => `${namespace}sb:catalog:${tenantId}`,
    tenants: `${namespace}sb:tenants`,
    channel: `${namespace}catalog:changed`,
  };
}

import type { TenantSurfaceRules } from '@switchboard/protocol';
import type { CatalogSnapshot } from './definitions';
import type { TenantLimits } from './tenant-limits';

/** One tenant as a gateway serves it: identity, edge policy, and its current catalog snapshot. */
export interface TenantCatalog {
  id: string;
  name: string;
  description?: string;
  /** Extra allowed browser origins (beyond the known MCP clients and loopback). */
  origins: string[];
  /** Extra accepted Host names. */
  hosts: string[];
  surfaceRules: TenantSurfaceRules;
  snapshot: CatalogSnapshot;
  /** Optional per-tenant overrides of the platform's limits (absent ⇒ the gateway defaults). */
  limits?: TenantLimits;
}

/**
 * The registry → gateway contract: a `TenantCatalog` plus sealed upstream credentials, stored
 * in Redis under `catalogRedisKeys(ns).catalog(tenantId)` and served by the registry's
 * `GET /internal/catalogs`. Routes carry no secret; `credentials[serverId]` is a SecretBox
 * blob (AAD `gatewayCredentialAad(tenant, server)`) that opens to `{"headers":{…}}`.
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

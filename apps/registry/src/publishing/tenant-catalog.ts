import type { CatalogSnapshot } from '@switchboard/catalog';
import type { TenantSurfaceRules } from '@switchboard/protocol';

/**
 * What a gateway loads for one tenant (the gateway's `TenantCatalog` plus sealed upstream
 * credentials). Stored in Redis under `sb:catalog:<tenantId>` and served by
 * `GET /internal/catalogs`. Routes carry no secret; `credentials[serverId]` is an
 * AES-256-GCM blob (`v1.…`, AAD `gateway-credential:<tenant>:<server>`) that opens to
 * `{"headers":{…}}` under the shared SECRETS_KEY.
 */
export interface PublishedCatalog {
  id: string;
  name: string;
  description?: string;
  origins: string[];
  hosts: string[];
  surfaceRules: TenantSurfaceRules;
  snapshot: CatalogSnapshot;
  credentials: Record<string, string>;
}

/** Redis keys and channel of the gateway contract (README "Redis contract"). */
export function redisKeys(namespace: string) {
  return {
    catalog: (tenantId: string) => `${namespace}sb:catalog:${tenantId}`,
    tenants: `${namespace}sb:tenants`,
    channel: `${namespace}catalog:changed`,
  };
}

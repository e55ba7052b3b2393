import { observeReadings } from '@switchboard/telemetry';
import type { LazyTenantDocumentFeed } from '@switchboard/tenant-config';

/**
 * `auth_tenants_*`: the lazy working set's size and counters, as the gateway's `gateway_tenants_*`
 * (docs/operations.md "Tenant working set"). The feed keeps plain numbers; they are read only at
 * collection time. Returns a function that stops exporting them (the app closed).
 */
export function exportTenantMetrics(feed: LazyTenantDocumentFeed): () => void {
  return observeReadings([
    { name: 'auth.tenants.resident', kind: 'gauge', description: 'Registry tenants read on use and held', read: () => feed.residentCount },
    {
      name: 'auth.tenants.negative',
      kind: 'gauge',
      description: 'Unknown tenant ids remembered (404 without a look-up)',
      read: () => feed.negativeCount,
    },
    {
      name: 'auth.tenants.fetches',
      kind: 'counter',
      description: 'Tenant reads on first use (one per cold tenant however many requests wait)',
      read: () => feed.stats.fetches,
    },
    {
      name: 'auth.tenants.joined',
      kind: 'counter',
      description: 'Requests that waited on a read of their tenant already in flight',
      read: () => feed.stats.joined,
    },
    {
      name: 'auth.tenants.evictions',
      kind: 'counter',
      description: 'Tenants dropped (AUTH_TENANT_CACHE_MAX, or no store has them any more)',
      read: () => feed.stats.evicted,
    },
    {
      name: 'auth.tenants.negative_hits',
      kind: 'counter',
      description: 'Look-ups answered 404 from the negative cache',
      read: () => feed.stats.negativeHits,
    },
    {
      name: 'auth.tenants.shed',
      kind: 'counter',
      description: 'Cold look-ups answered 404 because AUTH_TENANT_FETCH_PER_SEC was spent',
      read: () => feed.stats.shed,
    },
  ]);
}

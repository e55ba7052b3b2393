import { observeReadings } from '@switchboard/telemetry';
import type { LazyFeedStats, LazyTenantDocumentFeed } from '@switchboard/tenant-config';

/** `auth.tenants.<name>` counters: the feed's stat each reads, and what it counts. */
const COUNTERS: [name: string, stat: keyof LazyFeedStats, description: string][] = [
  ['fetches', 'fetches', 'Tenant reads on first use (one per cold tenant however many requests wait)'],
  ['joined', 'joined', 'Requests that waited on a read of their tenant already in flight'],
  ['evictions', 'evicted', 'Tenants dropped (AUTH_TENANT_CACHE_MAX, or no store has them any more)'],
  ['negative_hits', 'negativeHits', 'Look-ups answered 404 from the negative cache'],
  ['shed', 'shed', 'Cold look-ups answered 404 because AUTH_TENANT_FETCH_PER_SEC was spent'],
];

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
    ...COUNTERS.map(([name, stat, description]) => ({
      name: `auth.tenants.${name}`,
      kind: 'counter' as const,
      description,
      read: () => feed.stats[stat],
    })),
  ]);
}

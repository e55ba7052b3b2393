import { getHeapStatistics } from 'node:v8';
import type { McpTarget } from '@switchboard/mcp-http';
import { observeReadings } from '@switchboard/telemetry';
import { ColdLoads } from '@switchboard/tenant-config';
import type { Logger } from 'pino';
import type { OnDemandTenants, TenantCatalog } from '../catalog-source/catalog-source';
import type { GatewayConfig } from '../config/config';
import type { TenantDirectory } from '../tenants/tenant-directory';

/** How long an id whose stores were all unreachable answers 404 without a new look-up. */
const UNAVAILABLE_TTL_MS = 1_000;

/**
 * Makes the directory fetch a tenant it does not hold from the source on first use (one fetch
 * per cold tenant, unknown ids remembered), hears the source's invalidations, and exports the
 * working set's gauges and counters. Returns the cold path (tests and health read its stats).
 */
export function attachWorkingSet(
  config: GatewayConfig,
  directory: TenantDirectory,
  source: OnDemandTenants,
  apply: (tenant: TenantCatalog) => McpTarget,
  logger: Logger,
): ColdLoads<TenantCatalog, McpTarget> {
  const cold = new ColdLoads<TenantCatalog, McpTarget>({
    read: (id) => source.fetch(id),
    apply: (_id, tenant) => apply(tenant),
    negativeMax: config.GATEWAY_TENANT_NEGATIVE_MAX,
    negativeTtlMs: config.GATEWAY_TENANT_NEGATIVE_TTL_MS,
    unavailableTtlMs: UNAVAILABLE_TTL_MS,
    fetchesPerSec: config.GATEWAY_TENANT_FETCH_PER_SEC,
    onError: (tenant, err) => {
      // Not held, so not watched: the source must not keep reconciling a tenant the directory refused.
      source.forget(tenant);
      logger.error({ tenant, err: err.message }, 'tenant fetched on first use was rejected');
    },
  });
  directory.fetchOnMiss((id) => cold.load(id));
  source.onInvalidate((id) => cold.invalidate(id));
  exportWorkingSetMetrics(directory, cold);
  const heapLimit = getHeapStatistics().heap_size_limit;
  const problem = workingSetHeapProblem(config.GATEWAY_TENANT_CACHE_MB * MIB, heapLimit);
  if (problem) logger.warn({ tenantCacheMb: config.GATEWAY_TENANT_CACHE_MB, heapLimitMb: Math.round(heapLimit / MIB) }, problem);
  return cold;
}

const MIB = 1024 * 1024;
/** Share of V8's heap limit a full working set may take: the rest is the process's own heap and the collector's headroom. */
const WORKING_SET_HEAP_SHARE = 0.5;

/**
 * Why a full working set would not fit the process's heap, or undefined. V8 sizes its heap from
 * the machine's (or the container's) memory unless --max-old-space-size says otherwise, so a
 * replica in a small container can be told to hold more tenants than its heap can: it would then
 * die of "heap out of memory" once its working set fills, not at boot.
 */
export function workingSetHeapProblem(budgetBytes: number, heapLimitBytes: number): string | undefined {
  if (budgetBytes <= heapLimitBytes * WORKING_SET_HEAP_SHARE) return undefined;
  return (
    `GATEWAY_TENANT_CACHE_MB is more than ${WORKING_SET_HEAP_SHARE * 100}% of the V8 heap limit: a full tenant working set ` +
    'would run the process out of memory; lower GATEWAY_TENANT_CACHE_MB or raise --max-old-space-size (NODE_OPTIONS)'
  );
}

/** `gateway_tenants_*`: plain counters read at collection time, so the request path only bumps numbers. */
function exportWorkingSetMetrics(directory: TenantDirectory, cold: ColdLoads<TenantCatalog, McpTarget>): void {
  const d = directory.stats;
  const c = cold.stats;
  const gauges: [string, string, () => number][] = [
    ['resident', 'Tenants fetched on use and held in this replica', () => d.resident],
    ['resident_bytes', 'Estimated bytes of the tenants fetched on use and held (bounded by GATEWAY_TENANT_CACHE_MB)', () => d.bytes],
    ['negative', 'Unknown tenant ids remembered (404 without a look-up)', () => cold.negativeSize],
  ];
  const counters: [string, string, () => number][] = [
    ['hits', 'Tenant look-ups answered by a held tenant', () => d.hits],
    ['misses', 'Tenant look-ups of a tenant not held', () => d.misses],
    ['evictions', 'Tenants dropped from the working set to fit its byte budget', () => d.evictions],
    ['fetches', 'Tenant fetches on first use (one per cold tenant however many requests wait)', () => c.fetches],
    ['negative_hits', 'Look-ups answered 404 from the negative cache', () => c.negativeHits],
    ['shed', 'Cold look-ups answered 404 because GATEWAY_TENANT_FETCH_PER_SEC was spent', () => c.shed],
  ];
  const reading =
    (kind: 'gauge' | 'counter') =>
    ([name, description, read]: [string, string, () => number]) => ({
      name: `gateway.tenants.${name}`,
      kind,
      description,
      read,
    });
  observeReadings([...gauges.map(reading('gauge')), ...counters.map(reading('counter'))]);
}

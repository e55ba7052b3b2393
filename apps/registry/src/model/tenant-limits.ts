import type { PublishedCatalog } from '@switchboard/catalog';
import type { TenantRow } from './tenant-row';

/** The tenant document's `limits` keys owned by issue 13 (`rate`, `callLog`), from the tenant row; absent when neither is set. */
export function tenantLimits(tenant: TenantRow): Pick<PublishedCatalog, 'limits'> {
  const limits: NonNullable<PublishedCatalog['limits']> = {};
  if (tenant.rate_plan) limits.rate = tenant.rate_plan;
  if (tenant.call_log && Object.keys(tenant.call_log).length > 0) limits.callLog = tenant.call_log;
  return Object.keys(limits).length > 0 ? { limits } : {};
}

import type { TenantCallLogPolicy } from './tenant-call-log-policy';
import type { TenantRatePlan } from './tenant-rate-plan';

/**
 * A tenant's overrides of the platform's bounds, carried on its tenant document (`limits`).
 * Every key is optional; an absent key means the gateway's configured default. One object for
 * every kind of limit (batch limits and others add their keys here), each named after what it bounds.
 */
export interface TenantLimits {
  /** Largest upstream response body, or single server-sent event, in bytes (gateway default UPSTREAM_RESPONSE_MAX_BYTES). */
  upstreamResponseBytes?: number;
  /** Upstream calls the tenant may have in flight (or waiting) in one gateway replica (default GATEWAY_TENANT_MAX_INFLIGHT). */
  maxInflight?: number;
  /** Request rates and the daily quota (issue 13): enforced on one shared budget by every gateway (`@switchboard/limits`). */
  rate?: TenantRatePlan;
  /** What the call log captures (issue 13): arguments/results opt-in, redaction keys, retention. */
  callLog?: TenantCallLogPolicy;
}

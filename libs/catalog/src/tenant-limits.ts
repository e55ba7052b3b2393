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
}

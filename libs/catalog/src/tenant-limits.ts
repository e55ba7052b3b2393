import type { TenantCallLogPolicy } from './tenant-call-log-policy';
import type { TenantRatePlan } from './tenant-rate-plan';

/**
 * A tenant's overrides of the platform's bounds, carried on its tenant document (`limits`).
 * Every key is optional; an absent key means the gateway's configured default. One object for
 * every kind of limit (batch limits and others add their keys here), each named after what it bounds.
 * Written only by the platform (tenants file, registry operator), never by a tenant's own admin:
 * a hostile tenant must not be able to raise its own bounds.
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
  /** Most members of one JSON-RPC batch, 2025-03-26 only (gateway default BATCH_MAX_ITEMS). */
  batchMaxItems?: number;
  /** Most bytes of one batch's combined response (gateway default BATCH_MAX_RESPONSE_BYTES). */
  batchMaxResponseBytes?: number;
}

/** The range each override must fall in (the tenants-file schema and tenantLimitsOf both apply it). */
/** The numeric overrides (bounded here); `rate` and `callLog` are objects validated by @switchboard/limits where they are used. */
export type NumericTenantLimit = Exclude<keyof TenantLimits, 'rate' | 'callLog'>;

export const TENANT_LIMIT_BOUNDS: Readonly<Record<NumericTenantLimit, readonly [min: number, max: number]>> = {
  upstreamResponseBytes: [1024, 1024 * 1024 * 1024],
  maxInflight: [1, 100_000],
  batchMaxItems: [1, 1_000],
  batchMaxResponseBytes: [1024, 64 * 1024 * 1024],
};

/**
 * Reads a tenant's `limits` from an untrusted document (a registry catalog): keeps integers
 * inside TENANT_LIMIT_BOUNDS (clamped to the maximum), drops anything else, so a bad value falls
 * back to the gateway default rather than failing the tenant.
 */
export function tenantLimitsOf(raw: unknown): TenantLimits | undefined {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const r = raw as Record<string, unknown>;
  const out: TenantLimits = {};
  for (const key of Object.keys(TENANT_LIMIT_BOUNDS) as NumericTenantLimit[]) {
    const v = r[key];
    const [min, max] = TENANT_LIMIT_BOUNDS[key];
    if (typeof v === 'number' && Number.isInteger(v) && v >= min) out[key] = Math.min(v, max);
  }
  // Objects passed on as they are: the gateway validates them (a bad plan ⇒ operator defaults, never unlimited).
  if (r.rate !== null && typeof r.rate === 'object' && !Array.isArray(r.rate)) out.rate = r.rate as TenantRatePlan;
  if (r.callLog !== null && typeof r.callLog === 'object' && !Array.isArray(r.callLog)) out.callLog = r.callLog as TenantCallLogPolicy;
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * Per-tenant overrides of the gateway's bounds (issue 18), carried on the tenant document beside
 * its other settings. Every field is optional: absent ⇒ the gateway's configured default. Kept as
 * one separate optional object so the rest of the tenant document does not depend on it.
 * Written only by the platform (tenants file, registry operator), never by a tenant's own admin:
 * a hostile tenant must not be able to raise its own bounds.
 */
export interface TenantLimits {
  /** Most members of one JSON-RPC batch (2025-03-26 only). */
  batchMaxItems?: number;
  /** Most bytes of one batch's combined response. */
  batchMaxResponseBytes?: number;
}

/** Hard ceilings an override may not pass, whatever the source says (the gateway's config maxima). */
export const TENANT_LIMIT_CEILINGS: Required<TenantLimits> = { batchMaxItems: 1_000, batchMaxResponseBytes: 64 * 1024 * 1024 };

/**
 * Reads a tenant's `limits` from an untrusted document: keeps positive integers (clamped to
 * TENANT_LIMIT_CEILINGS), drops anything else, so a bad value falls back to the default
 * rather than failing the tenant.
 */
export function tenantLimitsOf(raw: unknown): TenantLimits | undefined {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const r = raw as Record<string, unknown>;
  const out: TenantLimits = {};
  for (const key of Object.keys(TENANT_LIMIT_CEILINGS) as Array<keyof TenantLimits>) {
    const v = r[key];
    if (typeof v === 'number' && Number.isInteger(v) && v >= 1) out[key] = Math.min(v, TENANT_LIMIT_CEILINGS[key]);
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** A token-bucket (GCRA) limit: a sustained rate and how many requests may arrive at once. */
export interface RateLimitSpec {
  /** Sustained requests per second (fractions allowed: 0.5 = one every 2 s). */
  requestsPerSecond: number;
  /** Requests accepted back to back before the sustained rate applies (≥ 1). */
  burst: number;
}

/**
 * A tenant's rate plan, carried in the tenant document as `limits.rate` (the registry writes
 * it; every gateway enforces it through one shared Redis budget). Absent fields fall back to
 * the operator defaults of the gateway; every value is capped by the operator's ceilings.
 */
export interface TenantRatePlan {
  /** The tenant's whole budget: every MCP request of every caller counts. */
  tenant?: RateLimitSpec;
  /** Each caller (OAuth `sub`, else client id, else client IP) × server × tool (or list method). */
  subject?: RateLimitSpec;
  /** Per-tool overrides of `subject`, by exposed tool name. */
  tools?: Record<string, RateLimitSpec>;
  /** `tools/call`s per UTC day for the whole tenant; 0 or absent = the operator default. */
  dailyCalls?: number;
}

// Shapes of /v1/limits, /v1/usage and /v1/calls as the registry answers them (issue 13).

/** One limit: a sustained rate and the burst above it. */
export interface RateSpec {
  requestsPerSecond: number;
  burst: number;
}

/** The tenant's rate plan (`limits.rate`); null = operator defaults. */
export interface RatePlan {
  tenant?: RateSpec;
  subject?: RateSpec;
  tools?: Record<string, RateSpec>;
  dailyCalls?: number;
}

/** GET/PUT /v1/limits. */
export interface LimitsView {
  rate: RatePlan | null;
  callLog: Record<string, unknown> | null;
}

/** One row of GET /v1/usage. */
export interface UsageRow {
  day: string;
  server: string;
  tool: string;
  subject: string;
  calls: number;
  errors: number;
  toolErrors: number;
  rateLimited: number;
  bytesIn: number;
  bytesOut: number;
  avgMs: number;
}

/** One record of GET /v1/calls. */
export interface CallRow {
  id: string;
  at: string;
  subject: string | null;
  clientId: string | null;
  surface: string | null;
  method: string;
  tool: string | null;
  server: string | null;
  outcome: string;
  errorCode: number | null;
  durationMs: number;
  bytesIn: number;
  bytesOut: number;
}

/** A query string of the non-empty filters (`?a=1&b=2`, or '' when none). */
export function queryOf(filters: Record<string, string | number | undefined>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(filters)) if (v !== undefined && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}

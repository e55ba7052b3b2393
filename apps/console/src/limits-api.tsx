// Shapes of /v1/limits, /v1/usage and /v1/calls as the registry answers them (issue 13), generated from its OpenAPI document.

export type { CallRow, LimitsView, RatePlan, RateSpec, UsageRow } from './api-types';

/** A query string of the non-empty filters (`?a=1&b=2`, or '' when none). */
export function queryOf(filters: Record<string, string | number | undefined>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(filters)) if (v !== undefined && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}

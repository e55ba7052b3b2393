import type { RateLimitSpec, TenantRatePlan } from '@switchboard/catalog';
import { ratePlanSchema } from './rate-plan-schema';

/** The operator's side of every plan: defaults for what a plan leaves out, and ceilings no plan may pass. */
export interface OperatorLimits {
  tenant: RateLimitSpec;
  subject: RateLimitSpec;
  /** Default `tools/call`s per UTC day per tenant; 0 = no daily quota. */
  dailyCalls: number;
  ceiling: { tenant: RateLimitSpec; subject: RateLimitSpec; /** 0 = no ceiling. */ dailyCalls: number };
}

/** A tenant's plan with defaults filled in and ceilings applied: what the gateway enforces. */
export interface EffectiveRatePlan {
  tenant: RateLimitSpec;
  subject: RateLimitSpec;
  tools: ReadonlyMap<string, RateLimitSpec>;
  /** 0 = no daily quota. */
  dailyCalls: number;
}

const cap = (s: RateLimitSpec, c: RateLimitSpec): RateLimitSpec => ({
  requestsPerSecond: Math.min(s.requestsPerSecond, c.requestsPerSecond),
  burst: Math.min(s.burst, c.burst),
});

/**
 * Merges a tenant's `limits.rate` (untrusted input from the tenant document) with the operator
 * limits. A plan that fails validation is ignored as a whole (`invalid` set) — the operator
 * defaults apply, never "unlimited".
 */
export function effectiveRatePlan(plan: TenantRatePlan | undefined, operator: OperatorLimits): EffectiveRatePlan & { invalid?: string } {
  const parsed = plan === undefined ? undefined : ratePlanSchema.safeParse(plan);
  const valid = parsed?.success ? parsed.data : undefined;
  const tools = new Map<string, RateLimitSpec>();
  for (const [name, s] of Object.entries(valid?.tools ?? {})) tools.set(name, cap(s, operator.ceiling.subject));
  const daily = valid?.dailyCalls || operator.dailyCalls;
  const ceilingDaily = operator.ceiling.dailyCalls;
  return {
    tenant: cap(valid?.tenant ?? operator.tenant, operator.ceiling.tenant),
    subject: cap(valid?.subject ?? operator.subject, operator.ceiling.subject),
    tools,
    dailyCalls: ceilingDaily > 0 ? (daily > 0 ? Math.min(daily, ceilingDaily) : ceilingDaily) : daily,
    ...(parsed && !parsed.success
      ? { invalid: parsed.error.issues.map((i) => `${['limits', 'rate', ...i.path].join('.')}: ${i.message}`).join('; ') }
      : {}),
  };
}

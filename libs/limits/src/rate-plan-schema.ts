import { z } from 'zod';

/** Bounds of a tenant rate plan (the tenant writes it; every value is bounded and each has a test). */
export const RATE_PLAN_BOUNDS = {
  maxRequestsPerSecond: 100_000,
  maxBurst: 100_000,
  maxToolOverrides: 500,
  maxToolNameLength: 128,
  maxDailyCalls: 1_000_000_000,
} as const;

const spec = z
  .object({
    requestsPerSecond: z.number().positive().max(RATE_PLAN_BOUNDS.maxRequestsPerSecond),
    burst: z.number().int().min(1).max(RATE_PLAN_BOUNDS.maxBurst),
  })
  .strict();

/**
 * The validated shape of `limits.rate` (TenantRatePlan of @switchboard/catalog): the registry
 * refuses a bad plan with the field named, and a gateway ignores a malformed one (operator
 * defaults apply) rather than serving a tenant unlimited.
 */
export const ratePlanSchema = z
  .object({
    tenant: spec.optional(),
    subject: spec.optional(),
    tools: z
      .record(z.string().min(1).max(RATE_PLAN_BOUNDS.maxToolNameLength), spec)
      .refine(
        (t) => Object.keys(t).length <= RATE_PLAN_BOUNDS.maxToolOverrides,
        `at most ${RATE_PLAN_BOUNDS.maxToolOverrides} tool overrides`,
      )
      .optional(),
    dailyCalls: z.number().int().min(0).max(RATE_PLAN_BOUNDS.maxDailyCalls).optional(),
  })
  .strict();

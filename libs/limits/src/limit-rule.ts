/**
 * One limit a request must pass. `rate`: a GCRA token bucket (sustained `perSecond`, up to
 * `burst` back to back). `quota`: a counter of at most `limit` until `resetAtMs` (a UTC day).
 * `id` names the limit in answers and metrics (`tenant`, `tool`, `daily`, …): bounded values only.
 */
export type LimitRule =
  | { kind: 'rate'; id: string; key: string; perSecond: number; burst: number }
  | { kind: 'quota'; id: string; key: string; limit: number; resetAtMs: number };

/** The answer of a limiter: all rules passed (each consumed one unit), or none was consumed. */
export type LimitDecision =
  | { allowed: true; mode: LimiterMode }
  | {
      allowed: false;
      mode: LimiterMode;
      /** The rule that refused (the one with the longest wait when several did). */
      rule: LimitRule;
      /** When the same request would pass, in ms from now (≥ 1). */
      retryAfterMs: number;
    };

/** `shared`: decided in Redis for every replica; `local`: Redis unavailable, this replica's own buckets. */
export type LimiterMode = 'shared' | 'local';

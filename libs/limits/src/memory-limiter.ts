import type { LimitDecision, LimitRule } from './limit-rule';

export interface MemoryLimiterOptions {
  /** Every rate and quota is divided by this (the replica count the fallback assumes), never below one request. Default 1. */
  divisor?: number;
  /** Most buckets kept; past it, expired ones are swept and then the oldest dropped (memory stays bounded whatever clients send). Default 100 000. */
  maxKeys?: number;
  /** Clock in ms (tests). */
  now?: () => number;
}

/** Bucket state: a GCRA theoretical arrival time, or a quota count; both expire. */
interface Bucket {
  value: number;
  expiresAt: number;
}

/**
 * The per-replica limiter: the same GCRA and quota arithmetic as the shared Redis script,
 * in process memory. The shared limiter falls back to it while Redis is unavailable, so a
 * Redis outage degrades to per-replica limits — never to no limits.
 */
export class MemoryLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly divisor: number;
  private readonly maxKeys: number;
  private readonly now: () => number;

  constructor(options: MemoryLimiterOptions = {}) {
    this.divisor = Math.max(1, options.divisor ?? 1);
    this.maxKeys = Math.max(1, options.maxKeys ?? 100_000);
    this.now = options.now ?? Date.now;
  }

  /** Checks every rule; consumes one unit of each only when all pass. */
  check(rules: readonly LimitRule[]): LimitDecision {
    const now = this.now();
    const next: number[] = [];
    let worst: LimitRule | undefined;
    let wait = 0;
    for (let i = 0; i < rules.length; i++) {
      const rule = rules[i];
      const bucket = this.live(rule.key, now);
      if (rule.kind === 'rate') {
        const interval = (1000 * this.divisor) / rule.perSecond;
        const burst = Math.max(1, Math.floor(rule.burst / this.divisor));
        const tat = Math.max(bucket?.value ?? now, now);
        const allowAt = tat + interval - interval * burst;
        if (allowAt > now) {
          if (allowAt - now > wait) [worst, wait] = [rule, allowAt - now];
        } else next[i] = tat + interval;
      } else {
        const limit = Math.max(1, Math.floor(rule.limit / this.divisor));
        if ((bucket?.value ?? 0) + 1 > limit) {
          const left = Math.max(1, rule.resetAtMs - now);
          if (left > wait) [worst, wait] = [rule, left];
        }
      }
    }
    if (worst) return { allowed: false, mode: 'local', rule: worst, retryAfterMs: Math.max(1, Math.ceil(wait)) };
    for (let i = 0; i < rules.length; i++) {
      const rule = rules[i];
      if (rule.kind === 'rate') this.put(rule.key, { value: next[i], expiresAt: next[i] });
      else {
        const bucket = this.live(rule.key, now);
        this.put(rule.key, { value: (bucket?.value ?? 0) + 1, expiresAt: bucket?.expiresAt ?? rule.resetAtMs });
      }
    }
    return { allowed: true, mode: 'local' };
  }

  /** Buckets currently held (tests, metrics). */
  get size(): number {
    return this.buckets.size;
  }

  private live(key: string, now: number): Bucket | undefined {
    const bucket = this.buckets.get(key);
    if (bucket && bucket.expiresAt <= now) {
      this.buckets.delete(key);
      return undefined;
    }
    return bucket;
  }

  private put(key: string, bucket: Bucket): void {
    if (!this.buckets.has(key) && this.buckets.size >= this.maxKeys) this.evict();
    this.buckets.set(key, bucket);
  }

  private evict(): void {
    const now = this.now();
    for (const [key, bucket] of this.buckets) if (bucket.expiresAt <= now) this.buckets.delete(key);
    // Still full: drop the oldest entries (insertion order) — a forgotten bucket is a full one,
    // which errs towards serving, but memory stays bounded whatever keys clients make us create.
    const excess = this.buckets.size - this.maxKeys + 1;
    if (excess <= 0) return;
    let dropped = 0;
    for (const key of this.buckets.keys()) {
      if (dropped++ >= excess) break;
      this.buckets.delete(key);
    }
  }
}

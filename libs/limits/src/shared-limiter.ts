import { createHash } from 'node:crypto';
import type { RedisClient } from '@switchboard/redis-connection';
import { GCRA_SCRIPT } from './gcra-script';
import type { LimitDecision, LimitRule, LimiterMode } from './limit-rule';
import { MemoryLimiter } from './memory-limiter';

export interface SharedLimiterOptions {
  /** A client made by `limiterRedis()` (no offline queue, short command timeout), or undefined for local-only limiting. */
  redis: RedisClient | undefined;
  /** Prefix of every bucket key (tests isolate with it; production: a namespace). */
  prefix?: string;
  /** The per-replica fallback; default a MemoryLimiter with divisor 1. */
  fallback?: MemoryLimiter;
  /** Told once per switch between shared and local limiting (log it, set a gauge). */
  onModeChange?(mode: LimiterMode, cause?: Error): void;
}

const SCRIPT_SHA = createHash('sha1').update(GCRA_SCRIPT).digest('hex');

/**
 * The limiter every replica shares: all rules of a request are checked and consumed in Redis
 * in one atomic script (multi-key GCRA + quotas, Redis's clock). While Redis is unavailable
 * (not connected, a command fails or times out) the same rules run on the per-replica
 * fallback — never unlimited, never an error — and it switches back once Redis answers.
 */
export class SharedLimiter {
  private readonly prefix: string;
  private readonly fallback: MemoryLimiter;
  private current: LimiterMode;

  constructor(private readonly options: SharedLimiterOptions) {
    this.prefix = options.prefix ?? '';
    this.fallback = options.fallback ?? new MemoryLimiter();
    this.current = options.redis ? 'shared' : 'local';
  }

  /** Where decisions are made right now. */
  get mode(): LimiterMode {
    return this.current;
  }

  /**
   * Waits (bounded) until Redis is connected, so a replica that boots beside a healthy Redis
   * does not decide its first requests on its own buckets; past the bound it starts in
   * fallback mode and switches to shared once Redis answers.
   */
  async ready(timeoutMs = 3_000): Promise<void> {
    const redis = this.options.redis;
    if (!redis || redis.status === 'ready') return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        redis.off('ready', done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      redis.once('ready', done);
    });
  }

  /** Checks (and, when every rule passes, consumes) the rules of one request. */
  async check(rules: readonly LimitRule[]): Promise<LimitDecision> {
    if (rules.length === 0) return { allowed: true, mode: this.current };
    const redis = this.options.redis;
    if (!redis || redis.status !== 'ready') {
      this.switchTo('local', redis ? new Error(`Redis connection is ${redis.status}`) : undefined);
      return this.fallback.check(rules);
    }
    const args: Array<string | number> = [];
    for (const rule of rules) {
      if (rule.kind === 'rate') args.push('r', 1000 / rule.perSecond, rule.burst);
      else args.push('q', rule.limit, Math.max(1, rule.resetAtMs - Date.now()));
    }
    const keys = rules.map((r) => this.prefix + r.key);
    let reply: unknown;
    try {
      reply = await this.run(redis, keys, args);
    } catch (err) {
      this.switchTo('local', err as Error);
      return this.fallback.check(rules);
    }
    this.switchTo('shared');
    const [ok, index, wait] = reply as [number, number?, number?];
    if (ok === 1) return { allowed: true, mode: 'shared' };
    return { allowed: false, mode: 'shared', rule: rules[(index ?? 1) - 1], retryAfterMs: Math.max(1, wait ?? 1) };
  }

  private async run(redis: RedisClient, keys: string[], args: Array<string | number>): Promise<unknown> {
    try {
      return await redis.evalsha(SCRIPT_SHA, keys.length, ...keys, ...args);
    } catch (err) {
      // First use on this Redis (or after SCRIPT FLUSH / a restart): load it with EVAL once.
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return redis.eval(GCRA_SCRIPT, keys.length, ...keys, ...args);
    }
  }

  private switchTo(mode: LimiterMode, cause?: Error): void {
    if (mode === this.current) return;
    this.current = mode;
    this.options.onModeChange?.(mode, cause);
  }
}

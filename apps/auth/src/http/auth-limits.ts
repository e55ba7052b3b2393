import type { RedisClient } from '@switchboard/redis-connection';
import type { Logger } from 'pino';
import { MemoryLimiter, SharedLimiter, limiterRedis, type LimitRule } from '@switchboard/limits';

export interface AuthLimitsOptions {
  /** Redis of the shared limiter (every auth replica spends one budget); absent ⇒ per replica. */
  redisUrl?: string;
  prefix: string;
  /** Per (tenant, client address) per minute. */
  dcrPerMin: number;
  tokenPerMin: number;
  /** Console sign-in attempts per client address in `signInWindowS`. */
  signInLimit: number;
  signInWindowS: number;
  logger: Logger;
}

export type AuthLimitKind = 'dcr' | 'token' | 'signin';

/**
 * The auth service's limits on the shared limiter of @switchboard/limits (the gateway's): client
 * registration and the token endpoint per tenant × client address, console sign-in per client
 * address. Each check counts the attempt first; Redis down ⇒ per-replica buckets, logged once.
 */
export class AuthLimits {
  readonly redis: RedisClient | undefined;
  private readonly limiter: SharedLimiter;

  constructor(private readonly o: AuthLimitsOptions) {
    this.redis = o.redisUrl ? limiterRedis(o.redisUrl) : undefined;
    this.limiter = new SharedLimiter({
      redis: this.redis,
      prefix: o.prefix,
      fallback: new MemoryLimiter(),
      onModeChange: (mode, cause) =>
        mode === 'local'
          ? o.logger.error({ err: cause?.message }, 'auth limiter: Redis unavailable, limiting per replica')
          : o.logger.warn('auth limiter: Redis is back, limits are shared again'),
    });
  }

  /** Boot: waits (bounded) for the shared limiter's Redis. */
  async ready(): Promise<void> {
    await this.limiter.ready();
  }

  /** Counts one attempt; 0 when allowed, else the seconds to wait (for Retry-After). */
  async hit(kind: AuthLimitKind, tenantId: string, address: string): Promise<number> {
    const rule = this.rule(kind, tenantId, address);
    const decision = await this.limiter.check([rule]);
    return decision.allowed ? 0 : Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
  }

  close(): void {
    this.redis?.disconnect();
  }

  private rule(kind: AuthLimitKind, tenantId: string, address: string): LimitRule {
    const key = `auth:{${tenantId}}:${kind}:${address}`;
    if (kind === 'signin')
      return { kind: 'rate', id: kind, key, perSecond: this.o.signInLimit / this.o.signInWindowS, burst: this.o.signInLimit };
    const perMin = kind === 'dcr' ? this.o.dcrPerMin : this.o.tokenPerMin;
    return { kind: 'rate', id: kind, key, perSecond: perMin / 60, burst: perMin };
  }
}

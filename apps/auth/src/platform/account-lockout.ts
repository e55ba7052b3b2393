import type { RedisClient } from '@switchboard/redis-connection';

export interface AccountLockoutOptions {
  /** Shared store (every replica sees a lock); absent or down ⇒ this replica's memory. */
  redis: RedisClient | undefined;
  prefix: string;
  /** Failures before the first lock. */
  threshold: number;
  /** First lock length; each further failure doubles it, up to maxS. */
  baseS: number;
  maxS: number;
  now?: () => number;
}

/**
 * Locks a console account (tenant × user name) after `threshold` failed sign-ins, for
 * baseS · 2^(failures − threshold) seconds up to maxS; a success clears it. Checked before
 * the password is verified, so a locked account costs no registry call and no scrypt.
 * Failures are forgotten maxS·2 after the last one.
 */
export class AccountLockout {
  private readonly memory = new Map<string, { failures: number; lockedUntil: number; forgetAt: number }>();
  private readonly now: () => number;

  constructor(private readonly o: AccountLockoutOptions) {
    this.now = o.now ?? Date.now;
  }

  /** Seconds the account stays locked (0 = not locked). */
  async lockedFor(account: string): Promise<number> {
    const r = this.ready();
    if (r) {
      try {
        const ms = await r.pttl(this.key('lock', account));
        return ms > 0 ? Math.ceil(ms / 1000) : 0;
      } catch {
        // fall through to memory
      }
    }
    const m = this.live(account);
    return m && m.lockedUntil > this.now() ? Math.ceil((m.lockedUntil - this.now()) / 1000) : 0;
  }

  /** Records a failure; returns the lock length it caused in seconds (0 = none yet). */
  async failed(account: string): Promise<number> {
    const forgetMs = this.o.maxS * 2000;
    let failures: number;
    const r = this.ready();
    let shared = false;
    if (r) {
      try {
        const res = await r.multi().incr(this.key('fail', account)).pexpire(this.key('fail', account), forgetMs).exec();
        failures = Number(res?.[0]?.[1] ?? 1);
        shared = true;
      } catch {
        failures = this.memoryFail(account, forgetMs);
      }
    } else failures = this.memoryFail(account, forgetMs);
    if (failures < this.o.threshold) return 0;
    const seconds = Math.min(this.o.maxS, this.o.baseS * 2 ** (failures - this.o.threshold));
    if (shared && r) await r.set(this.key('lock', account), '1', 'PX', seconds * 1000).catch(() => undefined);
    const m = this.memory.get(account);
    if (m) m.lockedUntil = this.now() + seconds * 1000;
    return seconds;
  }

  async succeeded(account: string): Promise<void> {
    this.memory.delete(account);
    const r = this.ready();
    // Two DELs, not one: on a Redis Cluster the two keys hash to different slots (a two-key DEL is refused there).
    if (r) await Promise.all([r.del(this.key('fail', account)), r.del(this.key('lock', account))]).catch(() => undefined);
  }

  private memoryFail(account: string, forgetMs: number): number {
    const m = this.live(account) ?? { failures: 0, lockedUntil: 0, forgetAt: 0 };
    m.failures += 1;
    m.forgetAt = this.now() + forgetMs;
    this.memory.set(account, m);
    if (this.memory.size > 100_000) for (const [k, v] of this.memory) if (v.forgetAt <= this.now()) this.memory.delete(k);
    return m.failures;
  }

  private live(account: string) {
    const m = this.memory.get(account);
    if (m && m.forgetAt <= this.now()) {
      this.memory.delete(account);
      return undefined;
    }
    return m;
  }

  private ready(): RedisClient | undefined {
    return this.o.redis?.status === 'ready' ? this.o.redis : undefined;
  }

  private key(kind: string, account: string): string {
    return `${this.o.prefix}auth:lockout:${kind}:${account}`;
  }
}

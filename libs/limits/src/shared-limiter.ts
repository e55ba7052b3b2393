import { createHash } from 'node:crypto';
import type { RedisClient } from '@switchboard/redis-connection';
import { GCRA_SCRIPT, REFUND_SCRIPT } from './gcra-script';
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
  /**
   * Token leases (default off: every request is one Redis round trip, exact across replicas).
   * On, a replica takes units of a hot rule set in batches and spends them locally; see `SharedLimiter`.
   */
  leases?: LeaseOptions;
}

export interface LeaseOptions {
  /** Largest lease as a share of a rate rule's burst (default 0.1); below 10 units of burst a rule is never leased. */
  rateShare?: number;
  /** Largest lease as a share of a quota's limit (default 0.01). */
  quotaShare?: number;
  /** How long a replica may hold leased units before it returns what it did not spend (default 1000 ms). */
  ttlMs?: number;
  /** Most rule sets with a lease held at once (default 10 000); past it new ones go unleased. */
  maxLeases?: number;
  /** Clock in ms for lease lifetimes (tests). */
  now?: () => number;
}

/** Units of one rule set this replica holds; `size` is what it asks for next. */
interface Lease {
  rules: readonly LimitRule[];
  remaining: number;
  size: number;
  expiresAt: number;
  /** The fetch under way: requests of the same rule set wait for it instead of asking Redis too. */
  pending?: Promise<LimitDecision | undefined>;
}

const SCRIPT_SHA = createHash('sha1').update(GCRA_SCRIPT).digest('hex');
const REFUND_SHA = createHash('sha1').update(REFUND_SCRIPT).digest('hex');

/**
 * The limiter every replica shares: all rules of a request are checked and consumed in Redis
 * in one atomic script (multi-key GCRA + quotas, Redis's clock). While Redis is unavailable
 * (not connected, a command fails or times out) the same rules run on the per-replica
 * fallback — never unlimited, never an error — and it switches back once Redis answers.
 *
 * With `leases`, a rule set that keeps getting requests is granted several units per round
 * trip: the size starts at 1, doubles each time a lease is spent before it expires, halves when
 * one expires unspent (the rest is given back), and never exceeds `rateShare` of the smallest
 * burst / `quotaShare` of the smallest quota in the set. Redis grants only units that exist,
 * so all replicas together never accept more than the budget; what leasing trades is
 * placement — a replica may hold up to one lease of a rule set that another replica is
 * refused for, until it spends it or its lifetime ends.
 */
export class SharedLimiter {
  private readonly prefix: string;
  private readonly fallback: MemoryLimiter;
  private current: LimiterMode;
  private readonly leases = new Map<string, Lease>();
  private readonly leaseOptions: (Required<Omit<LeaseOptions, 'now'>> & { now: () => number }) | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  /** Lease id and cap of each rule set seen (rule arrays are never changed once made; a caller that reuses one skips the string building and its hashing). */
  private readonly prepared = new WeakMap<readonly LimitRule[], { id: string; cap: number }>();

  constructor(private readonly options: SharedLimiterOptions) {
    this.prefix = options.prefix ?? '';
    this.fallback = options.fallback ?? new MemoryLimiter();
    this.current = options.redis ? 'shared' : 'local';
    const l = options.leases;
    this.leaseOptions = l
      ? {
          rateShare: l.rateShare ?? 0.1,
          quotaShare: l.quotaShare ?? 0.01,
          ttlMs: l.ttlMs ?? 1_000,
          maxLeases: l.maxLeases ?? 10_000,
          now: l.now ?? Date.now,
        }
      : undefined;
  }

  /** Where decisions are made right now. */
  get mode(): LimiterMode {
    return this.current;
  }

  /** Rule sets with a lease held (tests, metrics). */
  get leaseCount(): number {
    return this.leases.size;
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
    const opts = this.leaseOptions;
    // Unleased (off, or a burst / quota too small to share): one round trip, no lease bookkeeping.
    if (!opts) return this.checkShared(rules, 1).then((r) => r.decision);
    let set = this.prepared.get(rules);
    if (!set) this.prepared.set(rules, (set = { id: leaseId(rules), cap: leaseCap(rules, opts.rateShare, opts.quotaShare) }));
    const { id, cap } = set;
    if (cap <= 1) return this.checkShared(rules, 1).then((r) => r.decision);
    for (;;) {
      const lease = this.leases.get(id);
      if (spend(lease, opts.now())) return { allowed: true, mode: 'shared' };
      if (lease?.pending) {
        // Another request of this rule set is asking Redis: share its answer (a refusal holds
        // for every waiter; a grant is spent from the lease on the next turn of the loop).
        const refused = await lease.pending;
        if (refused) return refused;
        continue;
      }
      return this.fetchLease(id, rules, cap, lease);
    }
  }

  /**
   * `check`'s fast path, without a promise: spends one unit of a lease this replica holds for
   * exactly this rule array (one `check` has seen) and says so; false means nothing was spent —
   * ask `check`. A request admitted here costs no Redis round trip and no microtask.
   */
  spendLeased(rules: readonly LimitRule[]): boolean {
    const opts = this.leaseOptions;
    const set = opts && this.prepared.get(rules);
    return set !== undefined && spend(this.leases.get(set.id), opts!.now());
  }

  /** Gives back every unspent lease (shutdown; tests). Best effort: units Redis does not get back stay spent. */
  async close(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
    const held = [...this.leases.values()];
    this.leases.clear();
    await Promise.all(held.map((l) => this.refund(l)));
  }

  private async fetchLease(id: string, rules: readonly LimitRule[], cap: number, previous: Lease | undefined): Promise<LimitDecision> {
    const opts = this.leaseOptions!;
    const now = opts.now();
    let lease = previous;
    if (!lease) {
      if (this.leases.size >= opts.maxLeases) this.sweep(now);
      if (this.leases.size >= opts.maxLeases) return this.checkShared(rules, 1).then((r) => r.decision);
      lease = { rules, remaining: 0, size: 1, expiresAt: 0 };
      this.leases.set(id, lease);
    } else if (now >= lease.expiresAt) {
      // Expired: what is left goes back, and the next lease is half as big.
      if (lease.remaining > 0) {
        void this.refund({ ...lease });
        lease.size = Math.max(1, Math.floor(lease.size / 2));
      }
      lease.remaining = 0;
    } else {
      // Spent before it expired: this rule set is hot, ask for twice as much.
      lease.size = Math.min(cap, lease.size * 2);
    }
    const own = lease;
    let settle!: (refused: LimitDecision | undefined) => void;
    own.pending = new Promise((resolve) => (settle = resolve));
    try {
      const { decision, granted } = await this.checkShared(rules, own.size);
      if (!decision.allowed) {
        settle(decision);
        return decision;
      }
      if (decision.mode === 'shared') {
        own.remaining += granted - 1;
        own.expiresAt = opts.now() + opts.ttlMs;
        this.startSweeper();
      }
      settle(undefined);
      return decision;
    } finally {
      own.pending = undefined;
    }
  }

  /** One round trip: wants `want` units of every rule; grants g ≥ 1 (≤ want) or refuses. Falls back locally (g = 1) without Redis. */
  private async checkShared(rules: readonly LimitRule[], want: number): Promise<{ decision: LimitDecision; granted: number }> {
    const redis = this.options.redis;
    if (!redis || redis.status !== 'ready') {
      this.switchTo('local', redis ? new Error(`Redis connection is ${redis.status}`) : undefined);
      return { decision: this.fallback.check(rules), granted: 1 };
    }
    let reply: unknown;
    try {
      reply = await this.run(redis, SCRIPT_SHA, GCRA_SCRIPT, rules, want);
    } catch (err) {
      this.switchTo('local', err as Error);
      return { decision: this.fallback.check(rules), granted: 1 };
    }
    this.switchTo('shared');
    const [ok, second, wait] = reply as [number, number?, number?];
    if (ok === 1) return { decision: { allowed: true, mode: 'shared' }, granted: Math.max(1, Math.min(want, second ?? 1)) };
    return {
      decision: { allowed: false, mode: 'shared', rule: rules[(second ?? 1) - 1], retryAfterMs: Math.max(1, wait ?? 1) },
      granted: 0,
    };
  }

  private async refund(lease: Pick<Lease, 'rules' | 'remaining'>): Promise<void> {
    const redis = this.options.redis;
    if (lease.remaining <= 0 || !redis || redis.status !== 'ready') return;
    await this.run(redis, REFUND_SHA, REFUND_SCRIPT, lease.rules, lease.remaining).catch(() => undefined);
  }

  /** Drops expired leases, giving back what they hold. */
  private sweep(now: number): void {
    for (const [id, lease] of this.leases) {
      if (lease.pending || now < lease.expiresAt) continue;
      this.leases.delete(id);
      void this.refund(lease);
    }
    if (this.leases.size === 0 && this.sweeper) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }

  private startSweeper(): void {
    const opts = this.leaseOptions;
    if (this.sweeper || !opts) return;
    this.sweeper = setInterval(() => this.sweep(opts.now()), opts.ttlMs);
    this.sweeper.unref();
  }

  private async run(redis: RedisClient, sha: string, script: string, rules: readonly LimitRule[], units: number): Promise<unknown> {
    const keys = rules.map((r) => this.prefix + r.key);
    const args: Array<string | number> = [units];
    for (const rule of rules) {
      if (rule.kind === 'rate') args.push('r', 1000 / rule.perSecond, rule.burst);
      else args.push('q', rule.limit, Math.max(1, rule.resetAtMs - Date.now()));
    }
    try {
      return await redis.evalsha(sha, keys.length, ...keys, ...args);
    } catch (err) {
      // First use on this Redis (or after SCRIPT FLUSH / a restart): load it with EVAL once.
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return redis.eval(script, keys.length, ...keys, ...args);
    }
  }

  private switchTo(mode: LimiterMode, cause?: Error): void {
    if (mode === this.current) return;
    this.current = mode;
    this.options.onModeChange?.(mode, cause);
  }
}

/** One lease per distinct rule set, parameters included (a changed plan is a new rule set). */
function leaseId(rules: readonly LimitRule[]): string {
  let id = '';
  for (const r of rules)
    id += r.kind === 'rate' ? `${r.key}\u0000r${r.perSecond}/${r.burst}\u0001` : `${r.key}\u0000q${r.limit}@${r.resetAtMs}\u0001`;
  return id;
}

/** The largest lease a rule set may get: a share of its smallest burst / quota, at least 1. */
function leaseCap(rules: readonly LimitRule[], rateShare: number, quotaShare: number): number {
  let cap = Number.MAX_SAFE_INTEGER;
  for (const r of rules) cap = Math.min(cap, Math.floor(r.kind === 'rate' ? r.burst * rateShare : r.limit * quotaShare));
  return Math.max(1, cap);
}

/** Takes one unit of a live lease; false when there is none to take. */
function spend(lease: Lease | undefined, now: number): boolean {
  if (!lease || lease.remaining <= 0 || now >= lease.expiresAt) return false;
  lease.remaining--;
  return true;
}

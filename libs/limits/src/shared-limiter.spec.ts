import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import type { RedisClient as Redis } from '@switchboard/redis-connection';
import type { LimitRule, LimiterMode } from './limit-rule';
import { limiterRedis } from './limiter-redis';
import { MemoryLimiter } from './memory-limiter';
import { SharedLimiter } from './shared-limiter';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test:limits:${randomUUID()}:`;
let a: Redis;
let b: Redis;

async function ready(redis: Redis): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    redis.once('ready', resolve);
    setTimeout(() => reject(new Error('Redis not ready')), 5_000).unref();
  });
}

beforeAll(async () => {
  a = limiterRedis(REDIS_URL);
  b = limiterRedis(REDIS_URL);
  await Promise.all([ready(a), ready(b)]);
});

afterAll(async () => {
  const keys = await a.keys(`${prefix}*`);
  if (keys.length > 0) await a.del(...keys);
  a.disconnect();
  b.disconnect();
});

const rate = (key: string, perSecond: number, burst: number, id = 'tool'): LimitRule => ({
  kind: 'rate',
  id,
  key: `rl:{t}:${key}`,
  perSecond,
  burst,
});

describe('SharedLimiter on Redis', () => {
  it('two limiters on two connections spend one budget: exactly the burst is accepted', async () => {
    const one = new SharedLimiter({ redis: a, prefix });
    const two = new SharedLimiter({ redis: b, prefix });
    const rules = [rate('shared', 0.01, 10)];
    const decisions = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? one : two).check(rules)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
    const refused = decisions.find((d) => !d.allowed);
    expect(refused).toMatchObject({ allowed: false, mode: 'shared', rule: { id: 'tool' } });
    // One token every 100 s: the first refusal waits (almost) that long.
    expect(refused && !refused.allowed && refused.retryAfterMs).toBeGreaterThan(90_000);
  });

  it('is all or nothing across keys: a refused rule spends none of the others', async () => {
    const limiter = new SharedLimiter({ redis: a, prefix });
    const tenant = rate('tenant', 0.01, 2, 'tenant');
    expect((await limiter.check([tenant, rate('x', 0.01, 1)])).allowed).toBe(true);
    expect(await limiter.check([tenant, rate('x', 0.01, 1)])).toMatchObject({ allowed: false, rule: { id: 'tool' } });
    expect((await limiter.check([tenant, rate('y', 0.01, 1)])).allowed).toBe(true);
    expect(await limiter.check([tenant, rate('z', 0.01, 1)])).toMatchObject({ allowed: false, rule: { id: 'tenant' } });
  });

  it('counts a quota with the time until its reset', async () => {
    const limiter = new SharedLimiter({ redis: a, prefix });
    const quota: LimitRule = { kind: 'quota', id: 'daily', key: 'rl:{t}:day', limit: 3, resetAtMs: Date.now() + 3_600_000 };
    for (let i = 0; i < 3; i++) expect((await limiter.check([quota])).allowed).toBe(true);
    const refused = await limiter.check([quota]);
    expect(refused).toMatchObject({ allowed: false, rule: { id: 'daily' } });
    expect(refused.allowed === false && refused.retryAfterMs).toBeGreaterThan(3_500_000);
    expect(await a.pttl(`${prefix}rl:{t}:day`)).toBeGreaterThan(3_500_000);
  });
});

describe('SharedLimiter with token leases', () => {
  it('a hot rule set takes several units per round trip, and two replicas still accept exactly the budget', async () => {
    const one = new SharedLimiter({ redis: a, prefix, leases: {} });
    const two = new SharedLimiter({ redis: b, prefix, leases: {} });
    const calls = [jest.spyOn(a, 'evalsha'), jest.spyOn(b, 'evalsha')];
    // No refill during the test (one unit per 100 s); burst 200 ⇒ leases of up to 20.
    const rules = [rate('leased', 0.01, 200, 'tenant')];
    let accepted = 0;
    let refused = 0;
    for (let i = 0; i < 150; i++) {
      for (const limiter of [one, two]) {
        if ((await limiter.check(rules)).allowed) accepted++;
        else refused++;
      }
    }
    const roundTrips = calls.reduce((n, c) => n + c.mock.calls.length, 0);
    calls.forEach((c) => c.mockRestore());
    // Both kept asking after the budget ran out, so every leased unit was spent: exactly 200.
    expect(accepted).toBe(200);
    // Each refusal is one round trip (nothing to lease); the 200 accepted took far fewer than 200.
    expect(roundTrips - refused).toBeLessThan(40);
    expect(await one.check(rules)).toMatchObject({ allowed: false, mode: 'shared', rule: { id: 'tenant' } });
  });

  it('concurrent requests of one rule set share a fetch and never pass the burst', async () => {
    const limiter = new SharedLimiter({ redis: a, prefix, leases: {} });
    const spy = jest.spyOn(a, 'evalsha');
    const rules = [rate('concurrent', 0.01, 100)];
    const decisions = await Promise.all(Array.from({ length: 300 }, () => limiter.check(rules)));
    const roundTrips = spy.mock.calls.length;
    spy.mockRestore();
    expect(decisions.filter((d) => d.allowed)).toHaveLength(100);
    expect(roundTrips).toBeLessThan(100);
  });

  it('keeps small limits exact: a burst below 10 is never leased', async () => {
    const limiter = new SharedLimiter({ redis: a, prefix, leases: {} });
    const spy = jest.spyOn(a, 'evalsha');
    const rules = [rate('small', 0.01, 9)];
    for (let i = 0; i < 12; i++) await limiter.check(rules);
    const roundTrips = spy.mock.calls.length;
    spy.mockRestore();
    expect(roundTrips).toBe(12);
    expect(limiter.leaseCount).toBe(0);
  });

  it('a refused rule of the set spends none of the others, with leases too', async () => {
    const limiter = new SharedLimiter({ redis: a, prefix, leases: {} });
    const tenant = rate('lease-tenant', 0.01, 1000, 'tenant');
    const tool = rate('lease-tool', 0.01, 20);
    let accepted = 0;
    for (let i = 0; i < 40; i++) if ((await limiter.check([tenant, tool])).allowed) accepted++;
    expect(accepted).toBe(20);
    await limiter.close();
    // The tenant bucket paid for exactly the 20 accepted: 980 of 1000 are left.
    const other = new SharedLimiter({ redis: b, prefix });
    let left = 0;
    for (let i = 0; i < 1000 && (await other.check([tenant])).allowed; i++) left++;
    expect(left).toBe(980);
  });

  it('gives back what an expired lease did not spend (quota counts only accepted calls)', async () => {
    let now = 1_000_000;
    const limiter = new SharedLimiter({ redis: a, prefix, leases: { ttlMs: 1_000, now: () => now } });
    const quota: LimitRule = { kind: 'quota', id: 'daily', key: 'rl:{t}:lease-day', limit: 10_000, resetAtMs: Date.now() + 3_600_000 };
    for (let i = 0; i < 8; i++) expect((await limiter.check([quota])).allowed).toBe(true);
    // Leases of 1, 2, 4 and 8 for 8 calls: Redis counts 15 while 7 are held here.
    expect(Number(await a.get(`${prefix}rl:{t}:lease-day`))).toBe(15);
    now += 1_001;
    // Expired: its 7 go back and the next lease is half as big (4: 1 spent, 3 held).
    expect((await limiter.check([quota])).allowed).toBe(true);
    await limiter.close();
    const deadline = Date.now() + 5_000;
    let count = Number(await a.get(`${prefix}rl:{t}:lease-day`));
    while (count !== 9 && Date.now() < deadline) count = Number(await a.get(`${prefix}rl:{t}:lease-day`));
    expect(count).toBe(9);
    expect(await a.pttl(`${prefix}rl:{t}:lease-day`)).toBeGreaterThan(3_500_000);
  });

  it('spends a held lease without a promise (spendLeased), and only units the lease holds', async () => {
    let now = 5_000_000;
    const limiter = new SharedLimiter({ redis: a, prefix, leases: { now: () => now } });
    const rules = [rate('spend-now', 0.01, 100)];
    // Never checked: nothing held, nothing spent.
    expect(limiter.spendLeased(rules)).toBe(false);
    // Leases of 1, 2 and 4 for 4 checks: 3 units held after them.
    for (let i = 0; i < 4; i++) expect((await limiter.check(rules)).allowed).toBe(true);
    const spy = jest.spyOn(a, 'evalsha');
    const spent = Array.from({ length: 5 }, () => limiter.spendLeased(rules));
    const roundTrips = spy.mock.calls.length;
    spy.mockRestore();
    expect(spent).toEqual([true, true, true, false, false]);
    expect(roundTrips).toBe(0);
    // An equal rule array is another array: only the one check prepared counts.
    expect(limiter.spendLeased([...rules])).toBe(false);
    // An expired lease is not spent.
    expect((await limiter.check(rules)).allowed).toBe(true);
    now += 1_001;
    expect(limiter.spendLeased(rules)).toBe(false);
    await limiter.close();
    expect(new SharedLimiter({ redis: a, prefix }).spendLeased(rules)).toBe(false);
    // The budget paid for exactly what was accepted: 4 + 3 + 1 leased before the refund of the rest.
    const other = new SharedLimiter({ redis: b, prefix });
    let left = 0;
    for (let i = 0; i < 120 && (await other.check(rules)).allowed; i++) left++;
    expect(left).toBe(100 - 8);
  });

  it('gives back unspent rate units: another replica can take them', async () => {
    const leased = new SharedLimiter({ redis: a, prefix, leases: {} });
    const rules = [rate('refund-rate', 0.01, 100)];
    for (let i = 0; i < 4; i++) expect((await leased.check(rules)).allowed).toBe(true);
    await leased.close();
    const other = new SharedLimiter({ redis: b, prefix });
    let accepted = 0;
    for (let i = 0; i < 120 && (await other.check(rules)).allowed; i++) accepted++;
    expect(accepted).toBe(96);
  });
});

describe('SharedLimiter without Redis', () => {
  it('falls back to the per-replica limiter (never unlimited), tells once, and keeps the same limits', async () => {
    const closed = await new Promise<number>((resolve) => {
      const srv = createServer();
      srv.listen(0, '127.0.0.1', () => {
        const port = (srv.address() as { port: number }).port;
        srv.close(() => resolve(port));
      });
    });
    const dead = limiterRedis(`redis://127.0.0.1:${closed}`);
    const changes: LimiterMode[] = [];
    const limiter = new SharedLimiter({ redis: dead, prefix, fallback: new MemoryLimiter(), onModeChange: (m) => changes.push(m) });
    const rules = [rate('down', 0.01, 3)];
    const decisions = [];
    for (let i = 0; i < 6; i++) decisions.push(await limiter.check(rules));
    dead.disconnect();
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false, false, false]);
    expect(decisions.every((d) => d.mode === 'local')).toBe(true);
    expect(changes).toEqual(['local']);
  });
});

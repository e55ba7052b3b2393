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

const rate = (key: string, perSecond: number, burst: number, id = 'tool'): LimitRule => ({ kind: 'rate', id, key: `rl:{t}:${key}`, perSecond, burst });

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

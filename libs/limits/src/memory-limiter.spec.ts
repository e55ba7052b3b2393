import type { LimitRule } from './limit-rule';
import { MemoryLimiter } from './memory-limiter';

const rate = (key: string, perSecond: number, burst: number, id = 'tool'): LimitRule => ({ kind: 'rate', id, key, perSecond, burst });

describe('MemoryLimiter', () => {
  let now = 1_000_000;
  const clock = () => now;

  it('accepts a burst back to back, then refuses with the wait until the next token', () => {
    const limiter = new MemoryLimiter({ now: clock });
    const rules = [rate('a', 2, 3)];
    expect([1, 2, 3].map(() => limiter.check(rules).allowed)).toEqual([true, true, true]);
    const refused = limiter.check(rules);
    expect(refused).toMatchObject({ allowed: false, mode: 'local', retryAfterMs: 500 });
    now += 500;
    expect(limiter.check(rules).allowed).toBe(true);
    expect(limiter.check(rules).allowed).toBe(false);
  });

  it('consumes nothing when one rule refuses (a refused tool call does not spend the tenant budget)', () => {
    const limiter = new MemoryLimiter({ now: clock });
    const tenant = rate('tenant', 1, 2, 'tenant');
    expect(limiter.check([tenant, rate('t1', 1, 1)]).allowed).toBe(true);
    const refused = limiter.check([tenant, rate('t1', 1, 1)]);
    expect(refused).toMatchObject({ allowed: false, rule: { id: 'tool' } });
    // The tenant bucket still has its second token for another tool.
    expect(limiter.check([tenant, rate('t2', 1, 1)]).allowed).toBe(true);
  });

  it('reports the rule with the longest wait when several refuse', () => {
    const limiter = new MemoryLimiter({ now: clock });
    limiter.check([rate('x', 10, 1, 'subject'), rate('y', 0.1, 1, 'tenant')]);
    const refused = limiter.check([rate('x', 10, 1, 'subject'), rate('y', 0.1, 1, 'tenant')]);
    expect(refused).toMatchObject({ allowed: false, rule: { id: 'tenant' }, retryAfterMs: 10_000 });
  });

  it('counts a quota until its reset time and answers the time left', () => {
    const limiter = new MemoryLimiter({ now: clock });
    const quota: LimitRule = { kind: 'quota', id: 'daily', key: 'd', limit: 2, resetAtMs: now + 60_000 };
    expect(limiter.check([quota]).allowed).toBe(true);
    expect(limiter.check([quota]).allowed).toBe(true);
    expect(limiter.check([quota])).toMatchObject({ allowed: false, retryAfterMs: 60_000 });
    now += 60_000;
    expect(limiter.check([{ ...quota, resetAtMs: now + 86_400_000 }]).allowed).toBe(true);
  });

  it('divides rates and quotas by the assumed replica count, never below one request', () => {
    const limiter = new MemoryLimiter({ now: clock, divisor: 4 });
    const rules = [rate('div', 4, 8)];
    expect([1, 2, 3].map(() => limiter.check(rules).allowed)).toEqual([true, true, false]);
    expect(limiter.check([rate('one', 1, 1)]).allowed).toBe(true);
  });

  it('keeps at most maxKeys buckets whatever keys clients make it create', () => {
    const limiter = new MemoryLimiter({ now: clock, maxKeys: 100 });
    for (let i = 0; i < 1_000; i++) limiter.check([rate(`k${i}`, 1, 1)]);
    expect(limiter.size).toBeLessThanOrEqual(100);
  });
});

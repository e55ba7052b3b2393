import { effectiveRatePlan, type OperatorLimits } from './effective-rate-plan';
import { RequestLimitRuleCache, requestLimitRules, type LimitedRequest } from './request-limit-rules';
import { subjectIdOf } from './subject';

const operator: OperatorLimits = {
  tenant: { requestsPerSecond: 100, burst: 200 },
  subject: { requestsPerSecond: 10, burst: 20 },
  dailyCalls: 0,
  ceiling: { tenant: { requestsPerSecond: 1000, burst: 2000 }, subject: { requestsPerSecond: 500, burst: 1000 }, dailyCalls: 0 },
};

describe('effectiveRatePlan', () => {
  it('fills what a plan leaves out with the operator defaults and caps it at the ceilings', () => {
    const plan = effectiveRatePlan(
      { tenant: { requestsPerSecond: 5000, burst: 10 }, tools: { slow: { requestsPerSecond: 0.5, burst: 1 } }, dailyCalls: 50 },
      operator,
    );
    expect(plan.tenant).toEqual({ requestsPerSecond: 1000, burst: 10 });
    expect(plan.subject).toEqual(operator.subject);
    expect(plan.tools.get('slow')).toEqual({ requestsPerSecond: 0.5, burst: 1 });
    expect(plan.dailyCalls).toBe(50);
  });

  it('ignores a malformed plan as a whole (operator defaults, never unlimited) and says why', () => {
    const plan = effectiveRatePlan({ tenant: { requestsPerSecond: -1, burst: 1 } }, operator);
    expect(plan.tenant).toEqual(operator.tenant);
    expect(plan.invalid).toContain('limits.rate.tenant.requestsPerSecond');
  });

  it('applies a daily ceiling even when the plan sets none', () => {
    expect(effectiveRatePlan(undefined, { ...operator, ceiling: { ...operator.ceiling, dailyCalls: 1000 } }).dailyCalls).toBe(1000);
  });
});

describe('requestLimitRules', () => {
  const plan = effectiveRatePlan({ tools: { slow: { requestsPerSecond: 1, burst: 2 } }, dailyCalls: 100 }, operator);
  const now = Date.UTC(2026, 11, 1, 19, 30);

  it('a tools/call spends the tenant budget, its caller × server × tool bucket and the daily quota', () => {
    const rules = requestLimitRules(
      { tenantId: 'acme', method: 'tools/call', subjectKind: 'sub', subjectId: 'user-1', serverId: 'alpha', name: 'fast' },
      plan,
      now,
    );
    expect(rules).toEqual([
      { kind: 'rate', id: 'tenant', key: 'rl:{acme}:all', perSecond: 100, burst: 200 },
      { kind: 'rate', id: 'subject', key: 'rl:{acme}:s:sub:user-1:alpha:fast', perSecond: 10, burst: 20 },
      { kind: 'quota', id: 'daily', key: 'rl:{acme}:day:2026-12-01', limit: 100, resetAtMs: Date.UTC(2026, 11, 2) },
    ]);
  });

  it('uses the per-tool override for that tool', () => {
    const rules = requestLimitRules(
      { tenantId: 'acme', method: 'tools/call', subjectKind: 'sub', subjectId: 'u', serverId: 'alpha', name: 'slow' },
      plan,
      now,
    );
    expect(rules[1]).toMatchObject({ id: 'tool', perSecond: 1, burst: 2 });
  });

  it('limits lists per caller × method, without the daily quota; other methods only spend the tenant budget', () => {
    expect(
      requestLimitRules(
        { tenantId: 'acme', method: 'tools/list', subjectKind: 'sub', subjectId: 'u', serverId: '-', name: undefined },
        plan,
        now,
      ).map((r) => r.key),
    ).toEqual(['rl:{acme}:all', 'rl:{acme}:s:sub:u:-:tools/list']);
    expect(
      requestLimitRules(
        { tenantId: 'acme', method: 'ping', subjectKind: 'sub', subjectId: 'u', serverId: '-', name: undefined },
        plan,
        now,
      ),
    ).toHaveLength(1);
  });

  it('limits GET stream resumptions (stream/resume) per caller, keying an IPv6 caller by its /64', () => {
    const rules = requestLimitRules(
      {
        tenantId: 'acme',
        method: 'stream/resume',
        subjectKind: 'ip',
        subjectId: subjectIdOf(undefined, '2001:db8:1:2::99'),
        serverId: '-',
        name: undefined,
      },
      plan,
      now,
    );
    expect(rules.map((r) => r.key)).toEqual(['rl:{acme}:all', 'rl:{acme}:s:ip:2001:db8:1:2::/64:-:stream/resume']);
  });

  it('hashes a long or odd subject into a fixed-size key part', () => {
    const rules = requestLimitRules(
      {
        tenantId: 'acme',
        method: 'tools/call',
        subjectKind: 'sub',
        subjectId: `x{${'a'.repeat(5000)}}`,
        serverId: 'alpha',
        name: undefined,
      },
      plan,
      now,
    );
    expect(rules[1].key).toMatch(/^rl:\{acme\}:s:h:[A-Za-z0-9_-]{32}:alpha:\?$/);
  });
});

describe('RequestLimitRuleCache', () => {
  const call: LimitedRequest = {
    tenantId: 'acme',
    method: 'tools/call',
    subjectKind: 'sub',
    subjectId: 'alice',
    serverId: 'up',
    name: 'echo',
  };
  const plan = effectiveRatePlan({ dailyCalls: 10 }, { ...operator, ceiling: { ...operator.ceiling, dailyCalls: 100 } });
  const noon = Date.UTC(2026, 11, 4, 12);

  it('gives the same request under the same plan the same rules, equal to requestLimitRules', () => {
    const cache = new RequestLimitRuleCache();
    const first = cache.rules(call, plan, noon);
    expect(first).toEqual(requestLimitRules(call, plan, noon));
    expect(cache.rules({ ...call }, plan, noon + 1000)).toBe(first);
    expect(cache.size).toBe(1);
  });

  it('rebuilds when the tenant plan changes and when the daily quota rolls over', () => {
    const cache = new RequestLimitRuleCache();
    const first = cache.rules(call, plan, noon);
    const other = effectiveRatePlan({ subject: { requestsPerSecond: 1, burst: 2 }, dailyCalls: 10 }, operator);
    const changed = cache.rules(call, other, noon);
    expect(changed).not.toBe(first);
    expect(changed.find((r) => r.id === 'subject')).toMatchObject({ perSecond: 1, burst: 2 });
    const nextDay = cache.rules(call, other, Date.UTC(2026, 11, 5, 0, 0, 1));
    expect(nextDay.find((r) => r.kind === 'quota')).toMatchObject({ key: 'rl:{acme}:day:2026-12-05', resetAtMs: Date.UTC(2026, 11, 6) });
    expect(cache.size).toBe(1);
  });

  it('keeps callers apart whatever their subject or name spells (no key a caller can choose collides with another request)', () => {
    const cache = new RequestLimitRuleCache();
    // With plain separators these two would share a key: subject "a" + server "b\u0000c" vs subject "a\u0000b" + server "c".
    const a = cache.rules({ ...call, subjectId: 'a', serverId: 'b\u0000c' }, plan, noon);
    const b = cache.rules({ ...call, subjectId: 'a\u0000b', serverId: 'c' }, plan, noon);
    expect(a).not.toBe(b);
    expect(a).toEqual(requestLimitRules({ ...call, subjectId: 'a', serverId: 'b\u0000c' }, plan, noon));
    expect(b).toEqual(requestLimitRules({ ...call, subjectId: 'a\u0000b', serverId: 'c' }, plan, noon));
    // The same id under another kind (an OAuth client named like a user's sub) is another caller.
    const asClient = cache.rules({ ...call, subjectKind: 'client', subjectId: 'a', serverId: 'b\u0000c' }, plan, noon);
    expect(asClient).not.toBe(a);
    expect(asClient[1].key).not.toBe(a[1].key);
    // An unknown name (undefined) is not the tool called "-" or "?".
    expect(cache.rules({ ...call, name: undefined }, plan, noon)).not.toBe(cache.rules({ ...call, name: '-' }, plan, noon));
    expect(cache.size).toBe(5);
  });

  it('is bounded: past its size the oldest entry goes', () => {
    const cache = new RequestLimitRuleCache(3);
    const first = cache.rules({ ...call, subjectKind: 'ip', subjectId: '1' }, plan, noon);
    for (const ip of ['2', '3', '4']) cache.rules({ ...call, subjectKind: 'ip', subjectId: ip }, plan, noon);
    expect(cache.size).toBe(3);
    expect(cache.rules({ ...call, subjectKind: 'ip', subjectId: '4' }, plan, noon)).toBe(
      cache.rules({ ...call, subjectKind: 'ip', subjectId: '4' }, plan, noon),
    );
    const again = cache.rules({ ...call, subjectKind: 'ip', subjectId: '1' }, plan, noon);
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
    expect(cache.size).toBe(3);
  });

  it('drops the levels an evicted entry leaves empty, so callers that come and go do not grow it', () => {
    const cache = new RequestLimitRuleCache(2);
    for (let i = 0; i < 50; i++) cache.rules({ ...call, tenantId: `t${i}`, subjectKind: 'ip', subjectId: String(i) }, plan, noon);
    // Private on purpose; read here because the levels are what a leak would grow.
    const root = cache['root'];
    expect([...root.keys()]).toEqual(['t48', 't49']);
    const kept = cache.rules({ ...call, tenantId: 't49', subjectKind: 'ip', subjectId: '49' }, plan, noon);
    const other = cache.rules({ ...call, tenantId: 't49', subjectKind: 'ip', subjectId: 'other' }, plan, noon);
    expect([...root.keys()]).toEqual(['t49']);
    expect(cache.size).toBe(2);
    // Levels still in use stay: evicting ip:49 leaves ip:other, under the same tenant and method, found.
    cache.rules({ ...call, tenantId: 't49', subjectKind: 'ip', subjectId: 'third' }, plan, noon);
    expect(cache.rules({ ...call, tenantId: 't49', subjectKind: 'ip', subjectId: 'other' }, plan, noon)).toBe(other);
    expect(cache.size).toBe(2);
    expect(kept).toEqual(requestLimitRules({ ...call, tenantId: 't49', subjectKind: 'ip', subjectId: '49' }, plan, noon));
  });
});

import { effectiveRatePlan, type OperatorLimits } from './effective-rate-plan';
import { requestLimitRules } from './request-limit-rules';

const operator: OperatorLimits = {
  tenant: { requestsPerSecond: 100, burst: 200 },
  subject: { requestsPerSecond: 10, burst: 20 },
  dailyCalls: 0,
  ceiling: { tenant: { requestsPerSecond: 1000, burst: 2000 }, subject: { requestsPerSecond: 500, burst: 1000 }, dailyCalls: 0 },
};

describe('effectiveRatePlan', () => {
  it('fills what a plan leaves out with the operator defaults and caps it at the ceilings', () => {
    const plan = effectiveRatePlan({ tenant: { requestsPerSecond: 5000, burst: 10 }, tools: { slow: { requestsPerSecond: 0.5, burst: 1 } }, dailyCalls: 50 }, operator);
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
    const rules = requestLimitRules({ tenantId: 'acme', method: 'tools/call', subject: 'user-1', serverId: 'alpha', name: 'fast' }, plan, now);
    expect(rules).toEqual([
      { kind: 'rate', id: 'tenant', key: 'rl:{acme}:all', perSecond: 100, burst: 200 },
      { kind: 'rate', id: 'subject', key: 'rl:{acme}:s:user-1:alpha:fast', perSecond: 10, burst: 20 },
      { kind: 'quota', id: 'daily', key: 'rl:{acme}:day:2026-12-01', limit: 100, resetAtMs: Date.UTC(2026, 11, 2) },
    ]);
  });

  it('uses the per-tool override for that tool', () => {
    const rules = requestLimitRules({ tenantId: 'acme', method: 'tools/call', subject: 'u', serverId: 'alpha', name: 'slow' }, plan, now);
    expect(rules[1]).toMatchObject({ id: 'tool', perSecond: 1, burst: 2 });
  });

  it('limits lists per caller × method, without the daily quota; other methods only spend the tenant budget', () => {
    expect(requestLimitRules({ tenantId: 'acme', method: 'tools/list', subject: 'u', serverId: '-', name: undefined }, plan, now).map((r) => r.key)).toEqual([
      'rl:{acme}:all',
      'rl:{acme}:s:u:-:tools/list',
    ]);
    expect(requestLimitRules({ tenantId: 'acme', method: 'ping', subject: 'u', serverId: '-', name: undefined }, plan, now)).toHaveLength(1);
  });

  it('hashes a long or odd subject into a fixed-size key part', () => {
    const rules = requestLimitRules({ tenantId: 'acme', method: 'tools/call', subject: `x{${'a'.repeat(5000)}}`, serverId: 'alpha', name: undefined }, plan, now);
    expect(rules[1].key).toMatch(/^rl:\{acme\}:s:h:[A-Za-z0-9_-]{32}:alpha:\?$/);
  });
});

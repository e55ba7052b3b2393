import type { RedisClient } from '@switchboard/redis-connection';
import { metrics } from '@opentelemetry/api';
import type { Logger } from 'pino';
import type { TenantCatalog } from '@switchboard/catalog';
import {
  MemoryLimiter,
  SharedLimiter,
  effectiveRatePlan,
  limiterRedis,
  rateLimitedAnswer,
  RequestLimitRuleCache,
  subjectIdOf,
  subjectKindOf,
  type EffectiveRatePlan,
  type LimiterMode,
  type OperatorLimits,
} from '@switchboard/limits';
import type { AdmitRefusal, AdmitRequest, EdgeCall, McpTarget } from '@switchboard/mcp-http';
import type { GatewayConfig } from '../config/config';

/**
 * The gateway's limit step: every classified MCP request passes the tenant's budget, the
 * caller × server × tool bucket and (tools/call) the daily quota on the shared limiter
 * before it runs. Plans arrive in the tenant document (`limits.rate`) like any publish.
 */
export class GatewayLimits {
  private readonly limiter: SharedLimiter | undefined;
  private readonly redis: RedisClient | undefined;
  private readonly operator: OperatorLimits;
  private readonly defaults: EffectiveRatePlan;
  private readonly plans = new Map<string, EffectiveRatePlan>();
  private readonly rules = new RequestLimitRuleCache();
  private readonly refusals = metrics
    .getMeter('switchboard')
    .createCounter('limiter.refusals', { description: 'MCP requests refused by a rate limit or quota, by tenant, limit and limiter mode' });
  private fallbackGauge = 0;

  constructor(
    config: GatewayConfig,
    private readonly logger: Logger,
  ) {
    this.operator = {
      tenant: { requestsPerSecond: config.LIMITS_TENANT_RPS, burst: config.LIMITS_TENANT_BURST },
      subject: { requestsPerSecond: config.LIMITS_SUBJECT_RPS, burst: config.LIMITS_SUBJECT_BURST },
      dailyCalls: config.LIMITS_DAILY_CALLS,
      ceiling: {
        tenant: { requestsPerSecond: config.LIMITS_MAX_TENANT_RPS, burst: config.LIMITS_MAX_TENANT_BURST },
        subject: { requestsPerSecond: config.LIMITS_MAX_SUBJECT_RPS, burst: config.LIMITS_MAX_SUBJECT_BURST },
        dailyCalls: config.LIMITS_MAX_DAILY_CALLS,
      },
    };
    this.defaults = effectiveRatePlan(undefined, this.operator);
    const url = config.LIMITS_REDIS_URL ?? config.REDIS_URL;
    const enabled = config.LIMITS_ENABLED === 'true' || (config.LIMITS_ENABLED === 'auto' && url !== undefined);
    if (!enabled) return;
    this.redis = url ? limiterRedis(url, { commandTimeoutMs: config.LIMITS_REDIS_TIMEOUT_MS }) : undefined;
    if (!url) logger.warn('rate limits are per replica: no LIMITS_REDIS_URL / REDIS_URL to share them through');
    metrics
      .getMeter('switchboard')
      .createObservableGauge('limiter.fallback', {
        description: '1 while this replica limits on its own (Redis unavailable), 0 while limits are shared',
      })
      .addCallback((r) => r.observe(this.fallbackGauge));
    this.limiter = new SharedLimiter({
      redis: this.redis,
      prefix: config.LIMITS_KEY_PREFIX ?? config.REDIS_NAMESPACE,
      fallback: new MemoryLimiter({ divisor: config.LIMITS_FALLBACK_DIVISOR }),
      leases:
        config.LIMITS_LEASE_SHARE > 0 ? { rateShare: config.LIMITS_LEASE_SHARE, quotaShare: config.LIMITS_LEASE_SHARE / 10 } : undefined,
      onModeChange: (mode, cause) => this.modeChanged(mode, cause),
    });
    if (!this.redis) this.fallbackGauge = 1;
  }

  /** `shared` while decisions are made in Redis, `local` while this replica limits on its own; undefined when limits are off. */
  get mode(): LimiterMode | undefined {
    return this.limiter?.mode;
  }

  /**
   * Boot: waits (bounded) for the limiter's Redis so a replica that starts beside a healthy
   * Redis does not serve its first requests on per-replica buckets; past the bound it starts
   * in fallback mode and switches to shared once Redis answers.
   */
  async ready(timeoutMs = 3_000): Promise<void> {
    await this.limiter?.ready(timeoutMs);
  }

  /** Whether the step runs at all (off: the transport skips it). */
  get enabled(): boolean {
    return this.limiter !== undefined;
  }

  /** Takes a tenant's (new) plan from its document; a malformed plan is logged and the operator defaults apply. */
  apply(tenant: TenantCatalog): void {
    const plan = effectiveRatePlan(tenant.limits?.rate, this.operator);
    if (plan.invalid) this.logger.warn({ tenant: tenant.id, problems: plan.invalid }, 'tenant rate plan ignored; operator defaults apply');
    this.plans.set(tenant.id, plan);
  }

  /** The tenant left this replica's working set: operator defaults until it is applied again. */
  forget(tenantId: string): void {
    this.plans.delete(tenantId);
  }

  /** The effective plan a tenant is limited by (operator defaults when it has none). */
  planOf(tenantId: string): EffectiveRatePlan {
    return this.plans.get(tenantId) ?? this.defaults;
  }

  /** The transport's `admit` hook: synchronous when a lease this replica holds covers the request, else one round trip. */
  admit(req: EdgeCall, target: McpTarget, request: AdmitRequest): AdmitRefusal | undefined | Promise<AdmitRefusal | undefined> {
    const limiter = this.limiter;
    if (!limiter) return undefined;
    const { message, auth, called } = request;
    const rules = this.rules.rules(
      {
        tenantId: target.tenantId,
        method: message.method,
        subjectKind: subjectKindOf(auth),
        subjectId: subjectIdOf(auth, req.ip),
        serverId: called.serverId,
        name: called.name,
      },
      this.planOf(target.tenantId),
    );
    if (limiter.spendLeased(rules)) return undefined;
    return limiter.check(rules).then((decision) => {
      if (decision.allowed) return undefined;
      this.refusals.add(1, { tenant: target.tenantId, limit: decision.rule.id, mode: decision.mode });
      return rateLimitedAnswer(decision, request.era);
    });
  }

  async close(): Promise<void> {
    await this.limiter?.close();
    this.redis?.disconnect();
  }

  private modeChanged(mode: LimiterMode, cause?: Error): void {
    this.fallbackGauge = mode === 'local' ? 1 : 0;
    if (mode === 'local')
      this.logger.error({ err: cause?.message }, 'rate limiter: Redis unavailable, limiting per replica until it returns');
    else this.logger.warn('rate limiter: Redis is back, limits are shared again');
  }
}

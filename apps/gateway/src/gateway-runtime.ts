import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { CatalogCaches, type TenantCatalog } from '@switchboard/catalog';
import { McpEndpoint, type EdgeCall, type McpTarget, type UpstreamInvoker } from '@switchboard/mcp-http';
import { accessLogHook } from '@switchboard/telemetry';
import type { ColdLoads } from '@switchboard/tenant-config';
import type { Logger } from 'pino';
import { GatewayAuth } from './auth/gateway-auth';
import { CATALOG_SOURCE, type CatalogSource } from './catalog-source/catalog-source';
import type { GatewayConfig } from './config/config';
import { clientAddress } from './edge-server';
import { TenantGuardrails } from './guardrails/tenant-guardrails';
import { webhookCaller } from './guardrails/webhook-caller';
import { GatewayLimits } from './limits/gateway-limits';
import { gatewayPolicy } from './runtime/gateway-policy';
import { attachReplicaState, closeReplicaState, createReplicaState, type ReplicaState } from './runtime/replica-state';
import { createUpstreams } from './runtime/upstream';
import { attachWorkingSet } from './runtime/working-set';
import { TenantDirectory } from './tenants/tenant-directory';
import { GATEWAY_CONFIG, GATEWAY_LOGGER } from './tokens';
import type { UpstreamPool } from './upstream/upstream-pool';
import { UsageRecorder } from './usage/usage-recorder';

/**
 * The gateway's parts, composed once: the tenant directory and what each tenant configures
 * (auth, limits, usage, guardrails), the upstreams, the state replicas share, and the MCP endpoint built
 * from them once every tenant is loaded. `applyTenant` is the one place a tenant's catalog lands.
 */
@Injectable()
export class GatewayRuntime implements OnModuleInit, OnApplicationShutdown {
  readonly directory: TenantDirectory;
  readonly auth: GatewayAuth;
  readonly limits: GatewayLimits;
  readonly usage: UsageRecorder | undefined;
  readonly guardrails: TenantGuardrails;
  readonly upstream: UpstreamPool;
  /** Serves `/t/:tenant/mcp` (and the host form); built in `onModuleInit`, opened by the front door. */
  endpoint: McpEndpoint | undefined;
  private readonly state: ReplicaState;
  private readonly invoker: UpstreamInvoker;
  private unsubscribe: (() => void) | undefined;
  /** The working set's cold path when the source fetches tenants on use. */
  cold: ColdLoads<TenantCatalog, McpTarget> | undefined;

  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(CATALOG_SOURCE) private readonly source: CatalogSource,
    @Inject(GATEWAY_LOGGER) private readonly logger: Logger,
    private readonly adapterHost: HttpAdapterHost,
  ) {
    this.directory = new TenantDirectory({
      publicUrl: config.publicUrl,
      domain: config.GATEWAY_DOMAIN,
      caches: new CatalogCaches({ pageCacheBytes: Math.round(config.GATEWAY_PAGE_CACHE_MB * 1024 * 1024) }),
      budgetBytes: Math.round(config.GATEWAY_TENANT_CACHE_MB * 1024 * 1024),
      onEvict: (id) => this.forgetTenant(id),
    });
    this.state = createReplicaState(config, logger);
    this.auth = new GatewayAuth(config, this.directory);
    this.limits = new GatewayLimits(config, logger);
    this.usage = createUsage(config, logger);
    const breaker = { failureThreshold: config.UPSTREAM_BREAKER_FAILURES, openMs: config.UPSTREAM_BREAKER_OPEN_MS };
    this.guardrails = new TenantGuardrails({ logger, webhook: webhookCaller({ allowHosts: config.UPSTREAM_ALLOW_HTTP_HOSTS, breaker }) });
    const upstreams = createUpstreams(config, logger, {
      directory: this.directory,
      auth: this.auth,
      guardrails: this.guardrails,
      taskInputRelay: this.state.taskInputRelay,
    });
    this.upstream = upstreams.pool;
    this.invoker = upstreams.invoker;
  }

  async onModuleInit(): Promise<void> {
    const streamsResumable = await attachReplicaState(this.state, this.upstream.taskInputs, this.logger);
    await this.limits.ready();
    for (const tenant of await this.source.load()) this.applyTenant(tenant, 'tenant catalog loaded');
    const onDemand = this.source.onDemand;
    if (onDemand)
      this.cold = attachWorkingSet(
        this.config,
        this.directory,
        onDemand,
        (t) => this.applyTenant(t, 'tenant catalog fetched'),
        this.logger,
      );
    this.unsubscribe = this.source.subscribe((tenant) => {
      try {
        this.applyTenant(tenant, 'tenant catalog updated');
      } catch (err) {
        this.logger.error({ tenant: tenant.id, err: (err as Error).message }, 'catalog update rejected; keeping the previous one');
      }
    });
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    // Sampled access log of every route, the MCP endpoint's too.
    const accessLog = accessLogHook(this.logger);
    fastify.addHook('onResponse', accessLog);
    this.auth.registerRoutes(fastify);
    this.endpoint = this.createEndpoint(streamsResumable, (call) => void accessLog(call, call));
  }

  /** A tenant's catalog (new or changed) reaches every part that reads it; one fetched on use counts against the working set. */
  private applyTenant(tenant: TenantCatalog, event: string): McpTarget {
    const target = this.directory.apply(tenant, this.source.onDemand?.sizeOf(tenant.id));
    this.limits.apply(tenant);
    this.usage?.apply(tenant);
    this.guardrails.apply(tenant);
    this.logger.info({ tenant: tenant.id, tools: target.catalog.snapshot.tools.length, version: tenant.snapshot.version }, event);
    return target;
  }

  /**
   * A tenant left the working set: its plan and call-log policy go (defaults until it is fetched
   * again, admission of its in-flight calls already ran). Its compiled guardrails stay, so a call
   * still running never loses its interceptors; only tenants with guardrails have an entry.
   */
  private forgetTenant(tenantId: string): void {
    this.limits.forget(tenantId);
    this.usage?.forget(tenantId);
    this.source.onDemand?.forget(tenantId);
  }

  private createEndpoint(streamsResumable: boolean, onResponse: (call: EdgeCall) => void): McpEndpoint {
    const { config, state } = this;
    return new McpEndpoint({
      policy: gatewayPolicy({
        config,
        directory: this.directory,
        auth: this.auth,
        limits: this.limits,
        usage: this.usage,
        upstream: this.invoker,
      }),
      bundles: this.source.bundles,
      hostForm: Boolean(config.GATEWAY_DOMAIN),
      logger: this.logger,
      clientIp: clientAddress(config),
      onResponse,
      bodyLimit: config.GATEWAY_BODY_LIMIT,
      sseHeartbeatMs: config.SSE_HEARTBEAT_MS,
      sseMaxLifetimeMs: config.SSE_MAX_LIFETIME_MS,
      callTimeoutMs: config.UPSTREAM_TIMEOUT_MS + 5_000,
      batchMaxItems: config.BATCH_MAX_ITEMS,
      batchMaxResponseBytes: config.BATCH_MAX_RESPONSE_BYTES,
      notifyMaxBytesPerCall: config.NOTIFY_MAX_BYTES_PER_CALL,
      sealer: state.sealer,
      clientRequests: state.clientRequests,
      tasks: state.tasks,
      parkedCalls: state.parkedCalls,
      ...(state.upstreamTaskIndex ? { upstreamTaskIndex: state.upstreamTaskIndex } : {}),
      ...(state.streamEvents && streamsResumable ? { streamEvents: state.streamEvents } : {}),
    });
  }

  async onApplicationShutdown(): Promise<void> {
    this.unsubscribe?.();
    await this.source.close();
    await this.upstream.close();
    await this.limits.close();
    await this.usage?.close();
    await closeReplicaState(this.state);
  }
}

/** Usage metering: on with USAGE_ENABLED=true, or `auto` when Redis is configured. */
function createUsage(config: GatewayConfig, logger: Logger): UsageRecorder | undefined {
  const on = config.USAGE_ENABLED === 'true' || (config.USAGE_ENABLED === 'auto' && config.REDIS_URL !== undefined);
  if (!on || !config.REDIS_URL) return undefined;
  return new UsageRecorder({
    redisUrl: config.REDIS_URL,
    namespace: config.REDIS_NAMESPACE,
    flushMs: config.USAGE_FLUSH_MS,
    maxBatch: config.USAGE_MAX_BATCH,
    maxBuffered: config.USAGE_MAX_BUFFERED,
    streamMaxLen: config.USAGE_STREAM_MAXLEN,
    streamMaxBytes: config.USAGE_STREAM_MAX_BYTES,
    tenantCaptureBytes: config.USAGE_TENANT_CAPTURE_BYTES,
    logger,
  });
}

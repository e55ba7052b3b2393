import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { ClientRequestBroker, ParkedCalls, StateSealer, TaskManager, registerMcpRoutes, type BarePost, type EdgePolicy } from '@switchboard/mcp-http';
import { parseSecretsKeys } from '@switchboard/secret-box';
import { guardedFetch, guardedLookup } from '@switchboard/net-guard';
import { upstreamDispatcher } from '@switchboard/upstream-client';
import type { Logger } from 'pino';
import { CATALOG_SOURCE, type CatalogSource } from './catalog-source/catalog-source';
import { GATEWAY_CONFIG, GATEWAY_LOGGER } from './tokens';
import type { GatewayConfig } from './config/config';
import { ConnectorTokens } from './auth/connector-tokens';
import { GatewayAuth } from './auth/gateway-auth';
import { TenantDirectory } from './tenants/tenant-directory';
import { UpstreamPool } from './upstream/upstream-pool';
import { NotificationPacer } from './upstream/notification-pacer';
import { GatewayUpstream } from './upstream/gateway-upstream';
import { GatewayLimits } from './limits/gateway-limits';
import { clientAddress, createEdgeInstance, edgePaths } from './edge-server';
import { UsageRecorder } from './usage/usage-recorder';
import { accessLogHook, mcpRefusal, mcpServerSpan } from '@switchboard/telemetry';
import { RedisAnswerRelay } from './server-requests/redis-answer-relay';
import { RedisTaskStore } from './tasks/redis-task-store';
import { RedisUpstreamTaskIndex } from './tasks/redis-upstream-task-index';
import { RedisParkRelay } from './server-requests/redis-park-relay';
import { RedisTaskInputRelay } from './upstream/redis-task-input-relay';
import { DEFAULT_STREAM_RETENTION, RedisStreamEvents } from './server-requests/redis-stream-events';
import { RedisUpstreamSessions } from './upstream/upstream-sessions';

/**
 * Wires the edge: loads every tenant's catalog from the source, compiles it, keeps it
 * current, and registers the MCP routes on Fastify directly (the hot path skips Nest's
 * per-request pipeline; Nest owns lifecycle, configuration and the other routes).
 */
@Injectable()
export class GatewayRuntime implements OnModuleInit, OnApplicationShutdown {
  readonly directory: TenantDirectory;
  readonly upstream: UpstreamPool;
  private readonly invoker: GatewayUpstream;
  readonly auth: GatewayAuth;
  readonly limits: GatewayLimits;
  readonly usage: UsageRecorder | undefined;
  /** The bare Fastify instance serving the MCP routes (mounted in front of Nest's by createGateway). */
  readonly edge: FastifyInstance;
  /** The MCP POST steps served straight from node:http (mounted by `mountEdge`); set once the routes are registered. */
  edgePost: BarePost | undefined;
  private unsubscribe: (() => void) | undefined;
  private readonly sealer: StateSealer;
  private readonly relay: RedisAnswerRelay | undefined;
  private readonly clientRequests: ClientRequestBroker;
  private readonly tasks: TaskManager;
  private readonly upstreamTaskIndex: RedisUpstreamTaskIndex | undefined;
  private readonly parkRelay: RedisParkRelay | undefined;
  private readonly taskInputRelay: RedisTaskInputRelay | undefined;
  private readonly parkedCalls: ParkedCalls;
  private readonly streamEvents: RedisStreamEvents | undefined;
  private streamEventsReady = false;

  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(CATALOG_SOURCE) private readonly source: CatalogSource,
    @Inject(GATEWAY_LOGGER) private readonly logger: Logger,
    private readonly adapterHost: HttpAdapterHost,
  ) {
    this.directory = new TenantDirectory({
      publicUrl: config.publicUrl,
      domain: config.GATEWAY_DOMAIN,
      pageCacheBytes: Math.round(config.GATEWAY_PAGE_CACHE_MB * 1024 * 1024),
    });
    // Replicas must agree on the sealing keys: GATEWAY_STATE_KEYS, else keys derived (per
    // purpose, HKDF) from the shared SECRETS_KEY every replica already holds.
    const stateKeys =
      config.GATEWAY_STATE_KEYS?.split(',').map((k) => Buffer.from(k.trim(), 'base64')) ??
      (config.SECRETS_KEY ? parseSecretsKeys(config.SECRETS_KEY) : undefined);
    if (!stateKeys) logger.warn('neither GATEWAY_STATE_KEYS nor SECRETS_KEY is set: sessions, server-to-client request ids and MRTR state are sealed with a per-process key, so they do not survive a restart or work across replicas');
    this.sealer = stateKeys ? new StateSealer(stateKeys) : StateSealer.ephemeral();
    this.relay = config.REDIS_URL ? new RedisAnswerRelay(config.REDIS_URL, config.REDIS_NAMESPACE, logger) : undefined;
    this.clientRequests = new ClientRequestBroker(this.sealer, {
      ...(config.GATEWAY_REPLICA_ID ? { replicaId: config.GATEWAY_REPLICA_ID } : {}),
      ...(this.relay ? { relay: this.relay } : {}),
    });
    // Tasks extension: state in Redis (any replica answers tasks/get), else in this process.
    this.tasks = new TaskManager({
      replicaId: this.clientRequests.replicaId,
      taskAfterMs: config.TASKS_AFTER_MS,
      ttlMs: config.TASKS_TTL_MS,
      maxRunMs: config.TASKS_MAX_RUN_MS,
      maxLive: config.TASKS_MAX_LIVE,
      maxRetained: config.TASKS_MAX_RETAINED,
      maxTaskBytes: config.TASKS_MAX_TASK_BYTES,
      maxTenantBytes: config.TASKS_TENANT_MAX_BYTES,
      ...(config.REDIS_URL ? { store: new RedisTaskStore(config.EPHEMERAL_REDIS_URL ?? config.REDIS_URL, config.REDIS_NAMESPACE, logger) } : {}),
      onError: (err) => logger.warn({ err: (err as Error).message }, 'tasks: store failure'),
    });
    // Which caller owns which proxied upstream task (2025-11-25 tasks/list on any replica).
    this.upstreamTaskIndex = config.REDIS_URL ? new RedisUpstreamTaskIndex(config.EPHEMERAL_REDIS_URL ?? config.REDIS_URL, config.REDIS_NAMESPACE, logger) : undefined;
    // Modern calls whose (legacy) upstream asks the client mid-call wait here between retries;
    // a retry on another replica reaches them through Redis.
    this.parkRelay = config.REDIS_URL ? new RedisParkRelay(config.REDIS_URL, config.REDIS_NAMESPACE, logger, config.UPSTREAM_TIMEOUT_MS + 5_000) : undefined;
    this.parkedCalls = new ParkedCalls(this.sealer, {
      replicaId: this.clientRequests.replicaId,
      ...(this.parkRelay ? { relay: this.parkRelay } : {}),
      waitMs: config.UPSTREAM_TIMEOUT_MS,
    });
    // Legacy SSE streams resumable with Last-Event-ID on any replica (bounded Redis streams).
    this.streamEvents = config.REDIS_URL
      ? new RedisStreamEvents(config.EPHEMERAL_REDIS_URL ?? config.REDIS_URL, config.REDIS_NAMESPACE, logger, {
          ...DEFAULT_STREAM_RETENTION,
          maxEventBytes: config.SSE_STREAM_MAX_BYTES,
          maxStreamBytes: config.SSE_STREAM_MAX_BYTES,
          maxTenantBytes: config.SSE_TENANT_MAX_BYTES,
        })
      : undefined;
    this.auth = new GatewayAuth(config, this.directory);
    this.edge = createEdgeInstance(config, logger);
    this.limits = new GatewayLimits(config, logger);
    const usageOn = config.USAGE_ENABLED === 'true' || (config.USAGE_ENABLED === 'auto' && config.REDIS_URL !== undefined);
    this.usage =
      usageOn && config.REDIS_URL
        ? new UsageRecorder({
            redisUrl: config.REDIS_URL,
            namespace: config.REDIS_NAMESPACE,
            flushMs: config.USAGE_FLUSH_MS,
            maxBatch: config.USAGE_MAX_BATCH,
            maxBuffered: config.USAGE_MAX_BUFFERED,
            streamMaxLen: config.USAGE_STREAM_MAXLEN,
            streamMaxBytes: config.USAGE_STREAM_MAX_BYTES,
            tenantCaptureBytes: config.USAGE_TENANT_CAPTURE_BYTES,
            logger,
          })
        : undefined;
    // Tenant-registered upstreams (registry source) go through the SSRF guard at connect time;
    // the file source's upstreams are operator configuration.
    const registry = Boolean(config.REGISTRY_URL || config.REDIS_URL);
    const connectorTokens = new ConnectorTokens({ authUrl: config.AUTH_INTERNAL_URL ?? config.AUTH_PUBLIC_URL, internalToken: config.AUTH_INTERNAL_TOKEN, cacheMs: config.CONNECTOR_TOKEN_CACHE_MS });
    // A legacy upstream's task input held by one replica, listed and answered through any.
    this.taskInputRelay = config.REDIS_URL ? new RedisTaskInputRelay(config.EPHEMERAL_REDIS_URL ?? config.REDIS_URL, config.REDIS_NAMESPACE, logger, this.clientRequests.replicaId) : undefined;
    this.upstream = new UpstreamPool({
      ...(this.taskInputRelay ? { taskInputShare: this.taskInputRelay } : {}),
      timeoutMs: config.UPSTREAM_TIMEOUT_MS,
      maxConcurrency: config.UPSTREAM_MAX_CONCURRENCY,
      ...(config.UPSTREAM_MAX_QUEUE !== undefined ? { maxQueue: config.UPSTREAM_MAX_QUEUE } : {}),
      maxResponseBytes: config.UPSTREAM_RESPONSE_MAX_BYTES,
      maxStreamBytes: config.UPSTREAM_CALL_STREAM_MAX_BYTES,
      notificationPacer: new NotificationPacer(config.UPSTREAM_NOTIFY_BYTES_PER_SEC, config.UPSTREAM_NOTIFY_BURST_BYTES),
      tenantMaxInflight: config.GATEWAY_TENANT_MAX_INFLIGHT,
      limitsOf: (tenantId) => this.directory.tenant(tenantId)?.limits,
      logger,
      breaker: { failureThreshold: config.UPSTREAM_BREAKER_FAILURES, openMs: config.UPSTREAM_BREAKER_OPEN_MS },
      directRequests: config.UPSTREAM_DIRECT_REQUESTS === 'true',
      // Stateful upstreams' sessions shared by the replicas (a session resource made through one is readable through another).
      ...(config.REDIS_URL ? { sessions: new RedisUpstreamSessions(config.REDIS_URL, config.REDIS_NAMESPACE, logger) } : {}),
      // One guarded fetch (so one keep-alive pool) per tenant.
      ...(registry
        ? {
            fetchFactory: () => guardedFetch({ allowHosts: config.UPSTREAM_ALLOW_HTTP_HOSTS }),
            // Direct requests resolve through the same guard: every socket's address is checked at connect time.
            dispatcherFactory: () => upstreamDispatcher(guardedLookup({ allowHosts: config.UPSTREAM_ALLOW_HTTP_HOSTS })),
          }
        : {}),
    });
    // Per-user connector credentials are looked up before the pool, which never sees the caller.
    this.invoker = new GatewayUpstream(this.upstream, (tenantId, serverId, ctx) =>
      this.auth.isConnector(tenantId, serverId) ? connectorTokens.credential(tenantId, serverId, ctx.auth) : undefined,
    );
  }

  async onModuleInit(): Promise<void> {
    // Answers relayed from other replicas; without Redis a replica only routes its own.
    await this.relay?.attach(this.clientRequests).catch((err: Error) => this.logger.warn({ err: err.message }, 'server-to-client relay unavailable; answers are routed on this replica only'));
    await this.tasks.ready.catch((err: Error) => this.logger.warn({ err: err.message }, 'tasks: store unavailable; long calls are answered on their request'));
    await this.taskInputRelay?.attach(this.upstream.taskInputs).catch((err: Error) => this.logger.warn({ err: err.message }, 'task-input relay unavailable; task input is served on the replica holding it only'));
    await this.parkRelay?.attach(this.parkedCalls).catch((err: Error) => this.logger.warn({ err: err.message }, 'parked-call relay unavailable; modern retries are resumed on this replica only'));
    await this.streamEvents
      ?.connect()
      .then(() => (this.streamEventsReady = true))
      .catch((err: Error) => this.logger.warn({ err: err.message }, 'stream events store unavailable; legacy SSE streams are not resumable'));
    await this.limits.ready();
    for (const tenant of await this.source.load()) {
      const target = this.directory.apply(tenant);
      this.limits.apply(tenant);
      this.usage?.apply(tenant);
      this.logger.info({ tenant: tenant.id, tools: target.catalog.snapshot.tools.length, version: tenant.snapshot.version }, 'tenant catalog loaded');
    }
    this.unsubscribe = this.source.subscribe((tenant) => {
      try {
        const target = this.directory.apply(tenant);
        this.limits.apply(tenant);
        this.usage?.apply(tenant);
        this.logger.info({ tenant: tenant.id, tools: target.catalog.snapshot.tools.length, version: tenant.snapshot.version }, 'tenant catalog updated');
      } catch (err) {
        this.logger.error({ tenant: tenant.id, err: (err as Error).message }, 'catalog update rejected; keeping the previous one');
      }
    });
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    // Sampled access log of every route (ACCESS_LOG_SAMPLE_RATE / ACCESS_LOG_ERROR_SAMPLE_RATE), the MCP routes' too.
    fastify.addHook('onResponse', accessLogHook(this.logger));
    const accessLog = accessLogHook(this.logger);
    this.edge.addHook('onResponse', accessLog);
    this.auth.registerRoutes(fastify);
    const auth = this.auth;
    const limits = this.limits.enabled ? this.limits : undefined;
    const usage = this.usage;
    const clientContext = this.config.GATEWAY_TRACE_CLIENT_CONTEXT;
    const policy: EdgePolicy = {
      resolveTarget: (params, host) => this.directory.resolve(params, host),
      authenticate: (req, target) => auth.authenticate(req, target),
      authorizeTool: (target, tool, granted) => auth.authorizeTool(target, tool, granted),
      ...(limits ? { admit: (req, target, request) => limits.admit(req, target, request) } : {}),
      observe: {
        onRequest: (info) => {
          const span = mcpServerSpan(info, { clientContext });
          return usage ? usage.observe(info, span) : span;
        },
        // 401/403/404/413/415/… answered before a JSON-RPC method ran: a span and mcp_server_refusals_total.
        onRefusal: (refusal) => mcpRefusal(refusal),
      },
      upstream: this.invoker,
    };
    const routes = registerMcpRoutes(this.edge, edgePaths(this.config).routes, {
      policy,
      bundles: this.source.bundles,
      bodyLimit: this.config.GATEWAY_BODY_LIMIT,
      sseHeartbeatMs: this.config.SSE_HEARTBEAT_MS,
      sseMaxLifetimeMs: this.config.SSE_MAX_LIFETIME_MS,
      callTimeoutMs: this.config.UPSTREAM_TIMEOUT_MS + 5_000,
      batchMaxItems: this.config.BATCH_MAX_ITEMS,
      batchMaxResponseBytes: this.config.BATCH_MAX_RESPONSE_BYTES,
      notifyMaxBytesPerCall: this.config.NOTIFY_MAX_BYTES_PER_CALL,
      sealer: this.sealer,
      clientRequests: this.clientRequests,
      tasks: this.tasks,
      parkedCalls: this.parkedCalls,
      ...(this.upstreamTaskIndex ? { upstreamTaskIndex: this.upstreamTaskIndex } : {}),
      ...(this.streamEvents && this.streamEventsReady ? { streamEvents: this.streamEvents } : {}),
    });
    this.edgePost = routes.barePost({
      logger: this.logger,
      clientIp: clientAddress(this.config),
      onResponse: (req, reply) => void accessLog(req, reply),
    });
  }

  async onApplicationShutdown(): Promise<void> {
    this.unsubscribe?.();
    await this.edge.close();
    await this.source.close();
    await this.upstream.close();
    await this.limits.close();
    await this.usage?.close();
    await this.relay?.close();
    await this.tasks.close();
    await this.upstreamTaskIndex?.close();
    await this.parkRelay?.close();
    await this.taskInputRelay?.close();
    await this.streamEvents?.close();
  }
}

import { guardedFetch, guardedLookup } from '@switchboard/net-guard';
import type { UpstreamInvoker } from '@switchboard/mcp-http';
import { upstreamDispatcher } from '@switchboard/upstream-client';
import type { Logger } from 'pino';
import { ConnectorTokens } from '../auth/connector-tokens';
import type { GatewayAuth } from '../auth/gateway-auth';
import type { GatewayConfig } from '../config/config';
import type { TenantDirectory } from '../tenants/tenant-directory';
import type { TenantGuardrails } from '../guardrails/tenant-guardrails';
import { GatewayUpstream } from '../upstream/gateway-upstream';
import { NotificationPacer } from '../upstream/notification-pacer';
import type { RedisTaskInputRelay } from '../upstream/redis-task-input-relay';
import { UpstreamPool } from '../upstream/upstream-pool';
import { RedisUpstreamSessions } from '../upstream/upstream-sessions';

/** The tenants' upstream MCP servers: the pool (connections, bounds, breakers) and the invoker the endpoint calls. */
export interface GatewayUpstreams {
  pool: UpstreamPool;
  invoker: UpstreamInvoker;
}

/** What the upstreams read per call: which tenant owns a server, connector auth, interceptors, relayed task input. */
export interface UpstreamDeps {
  directory: TenantDirectory;
  auth: GatewayAuth;
  guardrails: TenantGuardrails;
  taskInputRelay: RedisTaskInputRelay | undefined;
}

export function createUpstreams(
  config: GatewayConfig,
  logger: Logger,
  { directory, auth, guardrails, taskInputRelay }: UpstreamDeps,
): GatewayUpstreams {
  // Tenant-registered upstreams (registry source) go through the SSRF guard at connect time;
  // the file source's upstreams are operator configuration.
  const registry = Boolean(config.REGISTRY_URL || config.REDIS_URL);
  const pool = new UpstreamPool({
    ...(taskInputRelay ? { taskInputShare: taskInputRelay } : {}),
    timeoutMs: config.UPSTREAM_TIMEOUT_MS,
    maxConcurrency: config.UPSTREAM_MAX_CONCURRENCY,
    ...(config.UPSTREAM_MAX_QUEUE !== undefined ? { maxQueue: config.UPSTREAM_MAX_QUEUE } : {}),
    maxResponseBytes: config.UPSTREAM_RESPONSE_MAX_BYTES,
    maxStreamBytes: config.UPSTREAM_CALL_STREAM_MAX_BYTES,
    notificationPacer: new NotificationPacer(config.UPSTREAM_NOTIFY_BYTES_PER_SEC, config.UPSTREAM_NOTIFY_BURST_BYTES),
    tenantMaxInflight: config.GATEWAY_TENANT_MAX_INFLIGHT,
    limitsOf: (tenantId) => directory.tenant(tenantId)?.limits,
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
  const connectorTokens = new ConnectorTokens({
    authUrl: config.AUTH_INTERNAL_URL ?? config.AUTH_PUBLIC_URL,
    internalToken: config.AUTH_INTERNAL_TOKEN,
    cacheMs: config.CONNECTOR_TOKEN_CACHE_MS,
  });
  // Per-user connector credentials are looked up before the pool, which never sees the caller;
  // tenant interceptors run around the whole upstream call.
  const credentials = new GatewayUpstream(pool, (tenantId, serverId, ctx) =>
    auth.isConnector(tenantId, serverId) ? connectorTokens.credential(tenantId, serverId, ctx.auth) : undefined,
  );
  return { pool, invoker: guardrails.wrap(credentials) };
}

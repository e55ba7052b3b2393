import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { LogController } from 'fastify';
import type { ShutdownGate } from '@switchboard/mcp-http';
import { guardedFetch } from '@switchboard/net-guard';
import { createRedis } from '@switchboard/redis-connection';
import type { Logger } from 'pino';
import { PROMETHEUS_CONTENT_TYPE, createLogger, startTelemetry } from '@switchboard/telemetry';
import type { RegistryConfig } from './config';
import { SecretBox } from '@switchboard/secret-box';
import { Database } from './db/database';
import { migrate } from './db/migrate';
import { DiscoveryQueue } from './discovery/discovery-queue';
import { DiscoveryWorker } from './discovery/discovery-worker';
import { UsageDrainer } from './usage/usage-drainer';
import { AuditExporter } from './audit-export/audit-exporter';
import { hostname } from 'node:os';
import { ConsoleSessions } from './http/console-session';
import { PlatformIssuer } from './http/platform-issuer';
import { serveConsole } from './console/serve-console';
import { ApiExceptionFilter } from './http/api-exception.filter';
import { Authenticator } from './http/authenticator';
import { Publisher } from './publishing/publisher';
import { RedisReconciler } from './publishing/redis-reconciler';
import type { RegistryServices } from './registry-services';
import { RegistryModule } from './registry.module';
import { ConnectorVault } from './credentials/connector-vault';
import { Credentials } from './credentials/credentials';
import { SCIM_MAX_BODY_BYTES } from './scim/scim-discovery';
import { UserRevocations } from './scim/user-revocations';
import { SsoClients } from './console-sso/sso-client';
import { startWebhooks } from './webhooks/start-webhooks';

export interface Registry {
  app: NestFastifyApplication;
  services: RegistryServices;
  reconciler: RedisReconciler;
  close(): Promise<void>;
}

/** Connects Postgres and Redis and builds every collaborator the controllers inject. */
async function buildServices(config: RegistryConfig & { DATABASE_URL: string }, logger: Logger): Promise<RegistryServices> {
  await migrate(config.DATABASE_URL, logger, config.MIGRATION_LOCK_TIMEOUT_MS);
  const db = new Database(config.DATABASE_URL, logger);
  const redis = createRedis(config.REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    commandTimeout: 2_000,
  });
  redis.on('error', () => undefined);
  await redis
    .connect()
    .catch((err: Error) => logger.warn({ err: err.message }, 'Redis unavailable at boot; publishing continues in Postgres'));
  const box = new SecretBox(config.secretsKey);
  const policy = { allowHosts: config.REGISTRY_ALLOW_HTTP_HOSTS };
  const credentials = new Credentials(db, box, policy);
  if (config.REGISTRY_CRASH_AT)
    logger.warn(
      { step: config.REGISTRY_CRASH_AT },
      'REGISTRY_CRASH_AT is set: this process kills itself at that step of every publish (chaos tests only)',
    );
  const publisher = new Publisher(db, redis, config.REDIS_NAMESPACE, credentials, box, config.TOOL_GRACE_SECONDS, logger, {
    crashAt: config.REGISTRY_CRASH_AT,
  });
  const queue = new DiscoveryQueue({
    redisUrl: config.REDIS_URL,
    prefix: config.REGISTRY_QUEUE_PREFIX,
    attempts: config.DISCOVERY_ATTEMPTS,
    refreshMs: config.DISCOVERY_REFRESH_MS,
  });
  const sessions = new ConsoleSessions(box);
  // The audience is read per use: with REGISTRY_PORT=0 the public URL is only known once listening.
  const platform = config.CONSOLE_ISSUER
    ? new PlatformIssuer({
        issuer: config.CONSOLE_ISSUER,
        clientId: config.CONSOLE_CLIENT_ID,
        audience: () => `${config.REGISTRY_PUBLIC_URL}/v1`,
        backChannelOrigin: config.CONSOLE_ISSUER_INTERNAL_URL,
      })
    : undefined;
  const auth = new Authenticator(db, config.REGISTRY_OPERATOR_KEY, config.INTERNAL_TOKEN, { platform, sessions });
  const vault = new ConnectorVault(config.AUTH_INTERNAL_URL, config.INTERNAL_TOKEN);
  const revocations = new UserRevocations(db, config.AUTH_INTERNAL_URL, config.INTERNAL_TOKEN, logger);
  return {
    config,
    db,
    redis,
    box,
    auth,
    credentials,
    vault,
    publisher,
    queue,
    policy,
    fetch: guardedFetch(policy),
    logger,
    sessions,
    platform,
    revocations,
    sso: new SsoClients(policy),
  };
}

/** The background jobs this process runs (discovery worker, webhooks, usage drain, audit export); returns their stop. */
function startJobs(s: RegistryServices): () => Promise<void> {
  const { config, db, logger } = s;
  const worker = config.REGISTRY_WORKER
    ? new DiscoveryWorker(
        { redisUrl: config.REDIS_URL, prefix: config.REGISTRY_QUEUE_PREFIX, timeoutMs: config.DISCOVERY_TIMEOUT_MS, policy: s.policy },
        db,
        s.credentials,
        s.queue,
        s.publisher,
        logger,
        s.vault,
      )
    : undefined;
  const webhooks = startWebhooks(config, db, s.box, s.policy, logger);
  const drainer = config.USAGE_DRAIN
    ? new UsageDrainer(db, {
        redis: createRedis(config.REDIS_URL, { enableOfflineQueue: true, maxRetriesPerRequest: null, lazyConnect: false }),
        namespace: config.REDIS_NAMESPACE,
        consumer: `registry-${hostname()}-${process.pid}`,
        count: 50,
        claimIdleMs: 60_000,
        callRetentionDays: config.CALL_LOG_RETENTION_DAYS,
        usageRetentionDays: config.USAGE_RETENTION_DAYS,
        logger,
      })
    : undefined;
  drainer?.start();
  const exporter =
    config.AUDIT_EXPORT_INTERVAL_MS > 0
      ? new AuditExporter(db, s.box, s.fetch, logger, {
          intervalMs: config.AUDIT_EXPORT_INTERVAL_MS,
          batchSize: config.AUDIT_EXPORT_BATCH_SIZE,
          timeoutMs: config.AUDIT_EXPORT_TIMEOUT_MS,
        })
      : undefined;
  exporter?.start();
  return async () => {
    await Promise.all([worker?.close(), webhooks.close()]);
    await drainer?.stop();
    await exporter?.stop();
  };
}

/** Routes beside Nest's controllers on the same Fastify instance: metrics, health, SCIM's content type, the console. */
function mountPlatformRoutes(app: NestFastifyApplication, s: RegistryServices, reconciler: RedisReconciler): void {
  // Prometheus scrape target (queue depth, job latency); startTelemetry is idempotent (main started it first).
  const telemetry = startTelemetry({ serviceName: 'registry', serviceVersion: '0.1.0' });
  const fastify = app.getHttpAdapter().getInstance();
  // SCIM clients send application/scim+json; SCIM bodies have their own, smaller limit (Nest adds its routes at init, after this hook).
  fastify.addContentTypeParser(
    'application/scim+json',
    { parseAs: 'string', bodyLimit: SCIM_MAX_BODY_BYTES },
    fastify.getDefaultJsonParser('error', 'error'),
  );
  fastify.addHook('onRoute', (route) => {
    if (route.url.startsWith('/scim/')) route.bodyLimit = SCIM_MAX_BODY_BYTES;
  });
  fastify.get('/metrics', async (_req, reply) => reply.header('content-type', PROMETHEUS_CONTENT_TYPE).send(await telemetry.metricsText()));
  // Liveness: the process answers. Readiness: Postgres (the source of truth) answers; Redis is reported (jobs and publication wait for it).
  fastify.get('/healthz', async () => ({ status: 'ok' }));
  fastify.get('/readyz', async (_req, reply) => {
    const postgres = await s.db.query('SELECT 1').then(
      () => true,
      () => false,
    );
    return reply
      .code(postgres ? 200 : 503)
      .send({ status: postgres ? 'ready' : 'not ready', postgres, redis: s.redis.status === 'ready', reconcile: reconciler.stats });
  });
  // The tenant console (apps/console, built by `vite build apps/console`) at /console/, when built.
  if (!serveConsole(fastify)) s.logger.info('tenant console not built (vite build apps/console); /console/ is not served');
}

/**
 * Builds the registry: runs migrations, wires Postgres, Redis, the discovery queue (and
 * worker when enabled) and the admin API, re-pushes published catalogs to Redis, and
 * returns the initialised (not yet listening) Nest application.
 */
export async function createRegistry(
  config: RegistryConfig & { DATABASE_URL: string },
  options: {
    logger?: Logger;
    /** Installed as the first request hook; the caller attaches the graceful shutdown to it once the server exists. */
    shutdownGate?: ShutdownGate;
  } = {},
): Promise<Registry> {
  const logger = options.logger ?? createLogger({ service: 'registry', level: config.LOG_LEVEL, redact: ['*.value'] });
  for (const w of config.warnings) logger.warn(`UNSAFE DEVELOPMENT DEFAULT: ${w}`);
  const services = await buildServices(config, logger);
  const { db, redis, publisher, queue, revocations } = services;
  const reconciler = new RedisReconciler(db, redis, publisher, queue, logger, {
    namespace: config.REDIS_NAMESPACE,
    verifyMs: config.REGISTRY_REDIS_VERIFY_MS,
    verifyBatch: config.REGISTRY_REDIS_VERIFY_BATCH,
    outboxMinAgeMs: 5_000,
  });
  const stopJobs = startJobs(services);
  const adapter = new FastifyAdapter({
    loggerInstance: logger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 1024 * 1024,
  });
  options.shutdownGate?.install(adapter.getInstance());
  const app = await NestFactory.create<NestFastifyApplication>(RegistryModule.forRoot(services), adapter, { logger: ['error', 'warn'] });
  app.useGlobalFilters(new ApiExceptionFilter(logger, config.RETRY_AFTER_SECONDS));
  mountPlatformRoutes(app, services, reconciler);
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  // Boot reconciliation: finish half-done publications, re-push every tenant, declare the
  // schedulers, enqueue discoveries recorded while Redis was down; then follow reconnects.
  await reconciler.start();
  revocations.start();
  revocations.kick();
  return {
    app,
    services,
    reconciler,
    close: async () => {
      reconciler.close();
      await revocations.close();
      await app.close();
      await stopJobs();
      await queue.close();
      redis.disconnect();
      await db.close();
    },
  };
}

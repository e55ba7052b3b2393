import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { LogController, type FastifyBaseLogger } from 'fastify';
import type { Logger } from 'pino';
import { parseSecretsKeys } from '@switchboard/secret-box';
import { PROMETHEUS_CONTENT_TYPE, createLogger, startTelemetry } from '@switchboard/telemetry';
import { parseTrustProxy } from '@switchboard/limits';
import { AppModule } from './app.module';
import type { CatalogSource } from './catalog-source/catalog-source';
import { CompositeCatalogSource } from './catalog-source/composite-catalog-source';
import { FileCatalogSource } from './catalog-source/file-catalog-source';
import { LazyRegistryCatalogSource } from './catalog-source/lazy-registry-catalog-source';
import { RegistryCatalogSource } from './catalog-source/registry-catalog-source';
import type { GatewayConfig } from './config/config';
import { FrontDoor } from './edge-server';
import { GatewayRuntime } from './gateway-runtime';

export interface CreateGatewayOptions {
  /** Defaults to the file source named by TENANTS_FILE. */
  source?: CatalogSource;
  logger?: Logger;
  /** The server's front door; main.ts passes its own to attach the graceful shutdown to it. */
  door?: FrontDoor;
}

/**
 * Builds and initialises the gateway application (routes registered, catalogs compiled)
 * without listening, so tests can `inject()` (MCP paths through `app.getHttpServer()`) and `main` can `listen()`.
 */
export async function createGateway(config: GatewayConfig, options: CreateGatewayOptions = {}): Promise<NestFastifyApplication> {
  // Idempotent: main.ts started it before Fastify loaded; tests get the metrics-only pipeline.
  const telemetry = startTelemetry({ serviceName: 'gateway', serviceVersion: '0.1.0' });
  const logger = options.logger ?? createLogger({ service: 'gateway', level: config.LOG_LEVEL });
  const source = options.source ?? (await defaultSource(config, logger));
  // One HTTP server: MCP requests are answered by the runtime's endpoint, the rest by Nest (edge-server.ts).
  const door = options.door ?? new FrontDoor();
  const adapter = new FastifyAdapter({
    serverFactory: door.serverFactory,
    loggerInstance: logger,
    // Per-request log lines would cost more than the hot path itself; MCP spans and metrics carry that.
    logController: new LogController({ disableRequestLogging: true }),
    // No per-request child logger: with redaction configured, pino's child() costs ~5% of a
    // tools/list. Log lines carry trace and span ids (the logger's mixin) instead of reqId.
    childLoggerFactory: (logger: FastifyBaseLogger) => logger,
    bodyLimit: config.GATEWAY_BODY_LIMIT,
    // Which X-Forwarded-For entries are believed: the client address keys anonymous callers' rate limits.
    trustProxy: parseTrustProxy(config.GATEWAY_TRUST_PROXY),
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config, source, logger), adapter, {
    logger: ['error', 'warn'],
  });
  // No Nest signal hooks: main.ts drains first (GracefulShutdown, admitting through the door), then closes the app.
  // Prometheus scrape target. Not routed by the Ingress (only MCP and /.well-known are public).
  app
    .getHttpAdapter()
    .getInstance()
    .get('/metrics', async (_req, reply) => reply.header('content-type', PROMETHEUS_CONTENT_TYPE).send(await telemetry.metricsText()));
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  const endpoint = app.get(GatewayRuntime).endpoint;
  if (!endpoint) throw new Error('the MCP endpoint was not built');
  door.open(endpoint);
  return app;
}

/** CATALOG_SOURCES, or by default the registry source when REGISTRY_URL or REDIS_URL is configured, else the file source (demo, tests). */
async function defaultSource(config: GatewayConfig, logger: Logger): Promise<CatalogSource> {
  const kinds = config.CATALOG_SOURCES?.split(',') ?? [config.REGISTRY_URL || config.REDIS_URL ? 'registry' : 'file'];
  const sources: CatalogSource[] = [];
  for (const kind of new Set(kinds)) {
    sources.push(
      kind === 'file'
        ? await FileCatalogSource.open({
            file: config.TENANTS_FILE,
            chainReaderUrl: config.CHAIN_READER_URL,
            logger,
            maxPageBytes: config.UPSTREAM_RESPONSE_MAX_BYTES,
          })
        : registrySource(config, logger),
    );
  }
  return sources.length === 1 ? sources[0] : new CompositeCatalogSource(sources, logger);
}

function registrySource(config: GatewayConfig, logger: Logger): CatalogSource {
  if (!config.SECRETS_KEY)
    logger.warn('UNSAFE DEVELOPMENT DEFAULT: SECRETS_KEY is not set; opening upstream credentials with the public dev key');
  const options = {
    redisUrl: config.REDIS_URL,
    namespace: config.REDIS_NAMESPACE,
    registryUrl: config.REGISTRY_URL,
    internalToken: config.INTERNAL_TOKEN,
    secretsKey: parseSecretsKeys(config.SECRETS_KEY ?? DEV_SECRETS_KEY),
    resyncMs: config.REGISTRY_RESYNC_MS,
    logger,
  };
  // Lazy: tenants are fetched on first use, so boot and idle memory do not grow with the platform's tenants.
  return config.GATEWAY_TENANT_LOADING === 'lazy' ? new LazyRegistryCatalogSource(options) : new RegistryCatalogSource(options);
}

/** The registry's public development key (its config's DEV_SECRETS_KEY); only for local runs. */
const DEV_SECRETS_KEY = Buffer.from('switchboard-dev-secrets-key-0001').toString('base64');

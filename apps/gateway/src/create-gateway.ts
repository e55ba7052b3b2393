import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { LogController } from 'fastify';
import pino, { type Logger } from 'pino';
import { AppModule } from './app.module';
import type { CatalogSource } from './catalog-source/catalog-source';
import { FileCatalogSource } from './catalog-source/file-catalog-source';
import type { GatewayConfig } from './config/config';

export interface CreateGatewayOptions {
  /** Defaults to the file source named by TENANTS_FILE. */
  source?: CatalogSource;
  logger?: Logger;
}

/**
 * Builds and initialises the gateway application (routes registered, catalogs compiled)
 * without listening, so tests can `inject()` and `main` can `listen()`.
 */
export async function createGateway(config: GatewayConfig, options: CreateGatewayOptions = {}): Promise<NestFastifyApplication> {
  const logger =
    options.logger ??
    pino({
      level: config.LOG_LEVEL,
      base: { service: 'gateway' },
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie', '*.headers.authorization', '*.authorization'], censor: '[redacted]' },
    });
  const source = options.source ?? (await FileCatalogSource.open({ file: config.TENANTS_FILE, chainReaderUrl: config.CHAIN_READER_URL, logger }));
  const adapter = new FastifyAdapter({
    loggerInstance: logger,
    // Per-request log lines would cost more than the hot path itself; MCP spans and metrics carry that.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.GATEWAY_BODY_LIMIT,
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config, source, logger), adapter, { logger: ['error', 'warn'] });
  app.enableShutdownHooks();
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return app;
}

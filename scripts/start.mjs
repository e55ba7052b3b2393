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
    const child = spawn(process.execPath, [script], { cwd: root, env: { ...process.env, ...env, SWITCHBOARD_ENV: 'development' }, stdio: ['ignore', 'pipe', 'pipe'] });
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
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--save', ''], { stdio: ['ignore', 'ignore', 'inherit'] });
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

async function main() {
  const startedAt = Date.now();
  // Build first (tsc -b is a no-op when nothing changed; the console build is skipped when its
  // inputs are unchanged). Running it here rather than as `npm run build && …` keeps this
  // process the direct child of npm, so Ctrl-C / SIGTERM reach it.
  await buildAll(root);
  const env = {};
  const chainMain = path.join(root, 'apps/chain-reader/dist/main.js');
  // The chain-reader boots beside the registry: its URL is known from its port, the registry
  // only calls it later (discovery jobs), and the gateway rediscovers it in the background until
  // it answers.
  let chainReady = Promise.resolve();
  const chainPort = process.env.CHAIN_READER_PORT ?? '4200';
  if (existsSync(chainMain)) env.CHAIN_READER_URL = `http://127.0.0.1:${chainPort}/mcp`;
  const startChain = () => {
    if (!existsSync(chainMain)) return;
    chainReady = start('chain-reader', chainMain, { CHAIN_READER_PORT: chainPort, CHAIN_READER_DEVNET_STATE_DIR: process.env.CHAIN_READER_DEVNET_STATE_DIR ?? path.join(root, '.data', 'chain-devnet') }, /MCP endpoint (http:\/\/\S+\/mcp)/).then((m) => {
      env.CHAIN_READER_URL = m[1];
    });
    chainReady.catch(() => undefined); // awaited below; a failure also stops everything via start()
  };
  const port = process.env.GATEWAY_PORT ?? '3000';
  let redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  let registryUrl;
  let authUrl;
  let authReady = Promise.resolve();
  // The gateway needs nothing else up to serve its file tenants (`demo`, `conformance`), so it
  // boots first, alone: booting is CPU-bound, and started beside the registry, Postgres, the
  // devnet and auth it took several times as long. Registry tenants come from Redis (what the
  // last start published) and by the registry's feed as it publishes them (it re-syncs on its
  // own); the chain upstream is rediscovered in the background once the chain-reader answers
  // (demo's chain tools appear at the gateway's next retry, at most 30 s after it is up). Measured
  // under load (bench/scale/npm-start.mjs): tools/list served after 16-18 s instead of 37-73 s, every
  // service ready at the same ~61 s either way.
  let gatewayReady;
  const startGateway = async (extra) => {
    gatewayReady = start('gateway', path.join(root, 'apps/gateway/dist/main.js'), { GATEWAY_PORT: port, ...GATEWAY_MEMORY_ENV, ...env, ...extra }, /gateway listening on (http:\/\/\S+)/);
    await gatewayReady;
    startChain();
  };
  let redisOk = await reachable(redisUrl);
  if (!redisOk && process.env.REDIS_URL === undefined) {
    const privateUrl = await startPrivateRedis();
    if (privateUrl) {
      process.stdout.write(`No Redis at ${redisUrl}: started a private redis-server at ${privateUrl} (data in .data/redis)\n`);
      redisUrl = privateUrl;
      redisOk = true;
    }
  }
  if (redisOk) {
    // One secret for the service-to-service /internal/* calls (gateway → registry and auth,
    // auth → registry for console sign-in), fresh on every start unless INTERNAL_TOKEN is set.
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
    // The registry: Postgres (embedded under .data/ unless DATABASE_URL is set), BullMQ
    // discovery, a seeded demo tenant `acme` with one SDK-built upstream.
    const reg = await start(
      'registry',
      path.join(root, 'apps/registry/dist/main.js'),
      {
        REGISTRY_PORT: registryPort,
        REGISTRY_PUBLIC_URL: registryPublicUrl,
        REGISTRY_SEED_DEMO: 'true',
        INTERNAL_TOKEN: internalToken,
        // The console signs tenant admins in through the auth service's platform issuer.
        CONSOLE_ISSUER: `${authPublicUrl}/platform`,
        REGISTRY_ALLOW_HTTP_HOSTS: '127.0.0.1,localhost',
        REDIS_URL: redisUrl,
        GATEWAY_PUBLIC_URL: `http://127.0.0.1:${port}`,
        ...env,
      },
      /registry listening on (http:\/\/\S+)/,
      180_000,
    );
    registryUrl = reg[1];
    // The authorization server for protected tenants (the `secure` demo tenant), on the same
    // Postgres (its own schema `auth`): the embedded one the registry started, unless DATABASE_URL is set.
    // It boots beside the gateway, which only calls it per request (JWKS, token exchange).
    authReady = start(
      'auth',
      path.join(root, 'apps/auth/dist/main.js'),
      {
        AUTH_PORT: authPort,
        AUTH_PUBLIC_URL: authPublicUrl,
        INTERNAL_TOKEN: internalToken,
        CONSOLE_REDIRECT_URI: `${registryPublicUrl}/console/callback`,
        CONSOLE_AUDIENCE: `${registryPublicUrl}/v1`,
        REGISTRY_INTERNAL_URL: registryUrl,
        // Tenant documents (the registry-seeded `secure` among them) from the registry's Redis feed.
        REDIS_URL: redisUrl,
        ...(process.env.SECRETS_KEY ? { CATALOG_SECRETS_KEY: process.env.SECRETS_KEY } : {}),
        DATABASE_URL: process.env.DATABASE_URL ?? `postgres://postgres:postgres@127.0.0.1:${process.env.REGISTRY_EMBEDDED_PG_PORT ?? '54329'}/switchboard`,
        GATEWAY_PUBLIC_URL: `http://127.0.0.1:${port}`,
      },
      /auth listening on (http:\/\/\S+)/,
    ).then((m) => {
      authUrl = m[1];
    });
    authReady.catch(() => undefined); // awaited below
  } else {
    process.stderr.write(`Redis is not reachable at ${redisUrl}${process.env.REDIS_URL === undefined ? ' and redis-server is not on PATH' : ''}: install Redis (apt-get install redis-server, brew install redis) or set REDIS_URL; running the gateway and chain-reader only (no registry, console or auth).\n`);
  }
  if (!gatewayReady) await startGateway({});
  const [m] = await Promise.all([gatewayReady, chainReady, authReady]);
  const base = m[1];
  const demo = `${base}/t/demo/mcp`;
  process.stdout.write(
    [
      '',
      `Switchboard is running (ready in ${((Date.now() - startedAt) / 1000).toFixed(1)} s).`,
      `  Demo tenant MCP endpoint:  ${demo}`,
      `  Connect Claude Code:       claude mcp add --transport http switchboard-demo ${demo}`,
      `  List its tools:            npx @modelcontextprotocol/inspector --cli ${demo} --method tools/list`,
      `  Server card / llms.txt:    ${base}/t/demo/.well-known/mcp.json   ${base}/t/demo/llms.txt`,
      `  Conformance tenant:        ${base}/t/conformance/mcp`,
      ...(registryUrl ? [`  Registry admin API:        ${registryUrl}/docs   (tenant acme: ${base}/t/acme/mcp; its admin key is printed above)`] : []),
      ...(registryUrl ? [`  Tenant console:            ${registryUrl}/console/   (sign in: workspace acme, user admin, the password printed above)`] : []),
      ...(authUrl ? [`  OAuth-protected tenant:    ${base}/t/secure/mcp   (seeded through the registry; authorization server ${authUrl}/t/secure, local login)`] : []),
      'Press Ctrl-C to stop.',
      '',
    ].join('\n'),
  );
}

main().catch((err) => {
  process.stderr.write(`npm start failed: ${err.message}\n`);
  shutdown(1);
});

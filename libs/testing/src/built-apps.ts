// The built apps (`npm run build` first) as child processes on free ports, with a fresh database,
// a Redis namespace of their own and the admin-API calls every platform test makes. Spawned by
// path, never imported, so any app's e2e may boot a neighbour this way.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { bullPrefix } from '@switchboard/redis-connection';
import { Redis } from 'ioredis';
import { Client as PgClient } from 'pg';
import { pollUntil as until } from './poll-until';

/** The repository root (apps are spawned from their built `dist/`). */
export const REPO_ROOT = path.resolve(__dirname, '../../..');
const PG_ADMIN = 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = 'redis://127.0.0.1:6379';

/** A fresh database (schema `registry` is created by the registry's migrations); dropped by `drop`. */
export async function createDatabase(): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const name = `sb_reg_${randomBytes(5).toString('hex')}`;
  const admin = new PgClient(PG_ADMIN);
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return {
    name,
    url: `postgres://postgres@127.0.0.1:5432/${name}`,
    drop: async () => {
      const c = new PgClient(PG_ADMIN);
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** Unique Redis namespace / BullMQ prefix and shared secrets for one test file. */
export function testEnv() {
  const id = randomBytes(4).toString('hex');
  return {
    namespace: `t${id}:`,
    queuePrefix: `tbull${id}`,
    secretsKey: randomBytes(32).toString('base64'),
    internalToken: `internal-${randomBytes(12).toString('hex')}`,
    operatorKey: `operator-${randomBytes(12).toString('hex')}`,
  };
}

/** Deletes every Redis key of a namespace and BullMQ prefix. */
export async function cleanRedis(env: ReturnType<typeof testEnv>): Promise<void> {
  const r = new Redis(REDIS_URL);
  for (const pattern of [`${env.namespace}*`, `${bullPrefix(env.queuePrefix)}:*`]) {
    let cursor = '0';
    for (let i = 0; i < 10_000; i++) {
      const [next, keys] = await r.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      if (keys.length) await r.del(...keys);
      cursor = next;
      if (cursor === '0') break;
    }
  }
  r.disconnect();
}

export interface Proc {
  url: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** Spawns a built app and waits for its "listening on <url>" line. */
export function spawnApp(name: string, script: string, env: Record<string, string>, ready: RegExp, timeoutMs = 30_000): Promise<Proc> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, script)], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let stopping = false;
    const timer = setTimeout(() => reject(new Error(`${name} not ready in ${timeoutMs} ms:\n${out}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = ready.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({
          url: m[1],
          child,
          output: () => out,
          stop: () =>
            new Promise<void>((res) => {
              if (child.exitCode !== null) return res();
              stopping = true;
              child.once('exit', () => res());
              child.kill('SIGTERM');
              setTimeout(() => child.kill('SIGKILL'), 3_000).unref();
            }),
        });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      const message = `${name} exited with ${code ?? signal}:\n${out}`;
      // After it was ready (a settled promise ignores the reject) a test sees only refused
      // connections, so a crash's last 2 KB of output go to the test output (a clean exit, 0,
      // is one a test asked for; crash tests that SIGKILL their app print it too).
      if (!stopping && code !== 0 && ready.test(out))
        process.stderr.write(`[${name} exited unexpectedly with ${code ?? signal}] ${out.slice(-2_000)}\n`);
      reject(new Error(message));
    });
  });
}

/** A registry's environment for one test run: its Redis namespace, queue prefix and secrets, loopback upstreams allowed, no periodic rediscovery. */
export function registryEnv(env: ReturnType<typeof testEnv>): Record<string, string> {
  return {
    REDIS_URL,
    REDIS_NAMESPACE: env.namespace,
    REGISTRY_QUEUE_PREFIX: env.queuePrefix,
    SECRETS_KEY: env.secretsKey,
    INTERNAL_TOKEN: env.internalToken,
    REGISTRY_OPERATOR_KEY: env.operatorKey,
    REGISTRY_ALLOW_HTTP_HOSTS: 'localhost',
    DISCOVERY_REFRESH_MS: '0',
  };
}

export function startRegistry(env: ReturnType<typeof testEnv>, databaseUrl: string, extra: Record<string, string> = {}): Promise<Proc> {
  return spawnApp(
    'registry',
    'apps/registry/dist/main.js',
    {
      DATABASE_URL: databaseUrl,
      REGISTRY_PORT: '0',
      ...registryEnv(env),
      DISCOVERY_ATTEMPTS: '2',
      DISCOVERY_TIMEOUT_MS: '3000',
      RETRY_AFTER_SECONDS: '7',
      LOG_LEVEL: 'warn',
      ...extra,
    },
    /registry listening on (http:\/\/\S+)/,
  );
}

export function startGateway(env: ReturnType<typeof testEnv>, registryUrl: string, extra: Record<string, string> = {}): Promise<Proc> {
  return spawnApp(
    'gateway',
    'apps/gateway/dist/main.js',
    {
      GATEWAY_PORT: '0',
      REDIS_URL,
      REDIS_NAMESPACE: env.namespace,
      REGISTRY_URL: registryUrl,
      INTERNAL_TOKEN: env.internalToken,
      SECRETS_KEY: env.secretsKey,
      UPSTREAM_ALLOW_HTTP_HOSTS: 'localhost',
      UPSTREAM_TIMEOUT_MS: '1500',
      LOG_LEVEL: 'warn',
      ...extra,
    },
    /gateway listening on (http:\/\/\S+)/,
  );
}

export interface ApiResult {
  status: number;
  headers: Headers;
  body: Record<string, unknown> & { error?: { code: string; message: string; field?: string } };
}

/** Calls the admin API with a bearer key. */
export async function api(base: string, key: string | undefined, method: string, url: string, body?: unknown): Promise<ApiResult> {
  const headers: Record<string, string> = {};
  if (key) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${url}`, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: ApiResult['body'] = {};
  try {
    parsed = text ? (JSON.parse(text) as ApiResult['body']) : {};
  } catch {
    parsed = { raw: text };
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

/** Creates a tenant through the operator key (optionally with its first console admin); returns its API key. */
export async function createTenant(
  base: string,
  operatorKey: string,
  id: string,
  admin?: { username: string; password: string; name?: string },
): Promise<string> {
  const res = await api(base, operatorKey, 'POST', '/v1/tenants', { id, name: `Tenant ${id}`, ...(admin ? { admin } : {}) });
  if (res.status !== 201) throw new Error(`tenant ${id}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.apiKey as string;
}

/** Registers a server and waits until discovery marks it healthy (or errored). */
export async function registerAndDiscover(base: string, key: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const created = await api(base, key, 'POST', '/v1/servers', body);
  if (created.status !== 201) throw new Error(`register ${String(body.id)}: ${created.status} ${JSON.stringify(created.body)}`);
  return until(`discovery of ${String(body.id)}`, async () => {
    const s = await api(base, key, 'GET', `/v1/servers/${String(body.id)}`);
    return s.body.health !== 'pending' ? s.body : undefined;
  });
}

// Publish throughput of the real registry (apps/registry/dist/main.js, so build first): N tenants,
// each with one SDK upstream of BENCH_TOOLS tools registered and discovered (setup, not timed),
// then every tenant publishes all its tools through `POST /v1/publications` at BENCH_CONCURRENCY
// at a time (timed: snapshot compile, Postgres commit, Redis write and announce). Prints
// tenants/s (and per CPU-second of the registry process), the Redis memory of one tenant document (`MEMORY USAGE`), the boot time of a
// restarted registry (it re-pushes every tenant first) and the size of the full version list. Uses a fresh database
// on 127.0.0.1:5432 and its own Redis namespace, both removed at the end.
//
// Env: BENCH_TENANTS (200), BENCH_TOOLS (20), BENCH_CONCURRENCY (4), REDIS_URL (redis://127.0.0.1:6379).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { Redis } from 'ioredis';
import pg from 'pg';
import { z } from 'zod';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TENANTS = Number(process.env.BENCH_TENANTS ?? 200);
const TOOLS = Number(process.env.BENCH_TOOLS ?? 20);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const HINTS = { readOnlyHint: true, destructiveHint: false, openWorldHint: false };

/** A stateless SDK upstream with TOOLS tools of realistic size (a description and a 3-property schema each). */
async function startUpstream() {
  const http = createServer(async (req, res) => {
    const server = new McpServer({ name: 'bench-upstream', version: '1.0.0' });
    for (let i = 0; i < TOOLS; i++)
      server.registerTool(
        `lookup_record_${i}`,
        {
          description: `Looks up records of kind ${i} by name, region and date range; returns at most 50 matches.`,
          inputSchema: { name: z.string(), region: z.string().optional(), limit: z.number().int().max(50).optional() },
          annotations: HINTS,
        },
        async () => ({ content: [{ type: 'text', text: 'ok' }] }),
      );
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void transport.close());
    await server.connect(transport);
    const chunks = [];
    for await (const c of req) chunks.push(c);
    await transport.handleRequest(req, res, chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined);
  });
  await new Promise((r) => http.listen(0, '127.0.0.1', r));
  return { url: `http://localhost:${http.address().port}/mcp`, close: () => new Promise((r) => http.close(r)) };
}

function startRegistry(env) {
  const child = spawn(process.execPath, [path.join(ROOT, 'apps/registry/dist/main.js')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...env },
  });
  let out = '';
  return new Promise((resolve, reject) => {
    const onData = (d) => {
      out += d;
      const m = /registry listening on (http:\/\/\S+)/.exec(out);
      if (m)
        resolve({
          url: m[1],
          pid: child.pid,
          output: () => out,
          stop: () => new Promise((r) => (child.once('exit', r), child.kill('SIGTERM'))),
        });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`registry exited ${code}: ${out.slice(-2000)}`)));
  });
}

/** CPU seconds (user + system) the process has used, from /proc (Linux). */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function api(base, key, method, url, body) {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

async function pool(items, n, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

const dbName = `sb_bench_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client('postgres://postgres@127.0.0.1:5432/postgres');
await admin.connect();
await admin.query(`CREATE DATABASE ${dbName}`);
const namespace = `bench${randomBytes(4).toString('hex')}:`;
const operatorKey = `operator-${randomBytes(12).toString('hex')}`;
const upstream = await startUpstream();
const registryEnv = {
  DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${dbName}`,
  REGISTRY_PORT: '0',
  REDIS_URL,
  REDIS_NAMESPACE: namespace,
  REGISTRY_QUEUE_PREFIX: `bull${namespace.slice(0, -1)}`,
  SECRETS_KEY: randomBytes(32).toString('base64'),
  INTERNAL_TOKEN: randomBytes(16).toString('hex'),
  REGISTRY_OPERATOR_KEY: operatorKey,
  REGISTRY_ALLOW_HTTP_HOSTS: 'localhost',
  DISCOVERY_REFRESH_MS: '0',
  LOG_LEVEL: 'warn',
};
let registry = await startRegistry(registryEnv);
const redis = new Redis(REDIS_URL);
try {
  const tenants = Array.from({ length: TENANTS }, (_, i) => `bench-${String(i).padStart(6, '0')}`);
  const keys = new Map();
  const setupStart = performance.now();
  await pool(tenants, CONCURRENCY, async (id) => {
    const t = await api(registry.url, operatorKey, 'POST', '/v1/tenants', { id, name: `Tenant ${id}` });
    if (t.status !== 201) throw new Error(`tenant ${id}: ${t.status} ${JSON.stringify(t.body)}`);
    keys.set(id, t.body.apiKey);
    const s = await api(registry.url, t.body.apiKey, 'POST', '/v1/servers', { id: 'main', name: 'Main', url: upstream.url });
    if (s.status !== 201) throw new Error(`server ${id}: ${s.status} ${JSON.stringify(s.body)}`);
    for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
      const g = await api(registry.url, t.body.apiKey, 'GET', '/v1/servers/main');
      if (g.body?.health && g.body.health !== 'pending') return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`discovery of ${id} timed out`);
  });
  const setupS = (performance.now() - setupStart) / 1000;
  const items = Array.from({ length: TOOLS }, (_, i) => ({ name: `lookup_record_${i}` }));
  const latencies = [];
  const cpuStart = cpuSeconds(registry.pid);
  const start = performance.now();
  await pool(tenants, CONCURRENCY, async (id) => {
    const t0 = performance.now();
    const p = await api(registry.url, keys.get(id), 'POST', '/v1/publications', { serverId: 'main', items });
    if (p.status !== 200 || p.body?.redis !== 'ok') throw new Error(`publish ${id}: ${p.status} ${JSON.stringify(p.body)}`);
    latencies.push(performance.now() - t0);
  });
  const seconds = (performance.now() - start) / 1000;
  const cpu = cpuSeconds(registry.pid) - cpuStart;
  latencies.sort((a, b) => a - b);
  const sizes = [];
  for (const id of tenants.slice(0, 50)) sizes.push(Number(await redis.memory('USAGE', `${namespace}sb:catalog:${id}`)));
  const docBytes = (await redis.strlen(`${namespace}sb:catalog:${tenants[0]}`)) || 0;
  sizes.sort((a, b) => a - b);
  // A restart re-pushes every published tenant before listening (boot reconciliation): its time per tenant.
  await registry.stop();
  const bootStart = performance.now();
  registry = await startRegistry({ ...registryEnv, LOG_LEVEL: 'info' });
  const resyncMs = Number(/"reason":"boot","redis":"ready","ms":(\d+)/.exec(registry.output())?.[1] ?? NaN);
  const bootSeconds = (performance.now() - bootStart) / 1000;
  const versions = await fetch(`${registry.url}/internal/catalog-versions`, {
    headers: { authorization: `Bearer ${registryEnv.INTERNAL_TOKEN}` },
  });
  const versionsBytes = (await versions.arrayBuffer()).byteLength;
  console.log(
    JSON.stringify(
      {
        tenants: TENANTS,
        toolsPerTenant: TOOLS,
        concurrency: CONCURRENCY,
        setupSeconds: +setupS.toFixed(1),
        publishSeconds: +seconds.toFixed(2),
        tenantsPerSecond: +(TENANTS / seconds).toFixed(1),
        tenantsPerRegistryCpuSecond: +(TENANTS / cpu).toFixed(1),
        publishP50Ms: +latencies[Math.floor(latencies.length / 2)].toFixed(1),
        publishP99Ms: +latencies[Math.floor(latencies.length * 0.99)].toFixed(1),
        redisMemoryUsageBytesMedian: sizes[Math.floor(sizes.length / 2)],
        documentBytes: docBytes,
        bootWithResyncSeconds: +bootSeconds.toFixed(2),
        bootResyncMsPerTenant: +(resyncMs / TENANTS).toFixed(2),
        catalogVersionsBytesPerTenant: +(versionsBytes / TENANTS).toFixed(1),
      },
      null,
      2,
    ),
  );
} finally {
  await registry.stop();
  await upstream.close();
  const left = await redis.keys(`${namespace}*`);
  if (left.length > 0) await redis.del(...left);
  // BullMQ hash-tags its prefix: `{bull<ns>}:…`.
  const bull = await redis.keys(`{bull${namespace.slice(0, -1)}}*`);
  if (bull.length > 0) await redis.del(...bull);
  redis.disconnect();
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.end();
}

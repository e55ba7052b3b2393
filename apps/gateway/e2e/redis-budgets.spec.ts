/**
 * Byte budgets of the shared Redis (issue 41 finding 3), attack-style: a tenant's hostile
 * upstream floods progress notifications of about 1 MB each on many concurrent calls. Each
 * call relays at most NOTIFY_MAX_BYTES_PER_CALL (then one warning), each resumable stream keeps
 * at most SSE_STREAM_MAX_BYTES, and all of the tenant's streams at most SSE_TENANT_MAX_BYTES,
 * measured in what Redis holds; another tenant's streams are still stored whole.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { serveStateless } from '@switchboard/testing';
import { Redis } from 'ioredis';
import { z } from 'zod';
import { LEGACY, POST_HEADERS, sseMessages, startGateway, type Json, type TestGateway } from './support/harness';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const NS = `e2e-budget-${randomBytes(4).toString('hex')}:`;
const MiB = 1024 * 1024;
const BUDGETS = { SSE_STREAM_MAX_BYTES: 2 * MiB, SSE_TENANT_MAX_BYTES: 4 * MiB, NOTIFY_MAX_BYTES_PER_CALL: 3 * MiB };
/** Just under the old 1 MiB per-event bound, so the unfixed gateway stored every one. */
const NOTE_BYTES = 1_000_000;

let upstream: Server;
let gw: TestGateway;
const admin = new Redis(REDIS_URL, { lazyConnect: true });

/** An upstream whose `flood` tool sends `count` progress notifications of `bytes` each, then answers. */
function floodServer(): McpServer {
  const server = new McpServer({ name: 'flood', version: '1.0.0' });
  server.registerTool(
    'flood',
    { description: 'Floods progress.', inputSchema: { count: z.number().int(), bytes: z.number().int() } },
    async ({ count, bytes }, extra) => {
      const progressToken = extra._meta?.progressToken;
      if (progressToken !== undefined) {
        for (let i = 1; i <= count; i++) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken, progress: i, total: count, message: String(i % 10).repeat(bytes) },
          });
        }
      }
      return { content: [{ type: 'text', text: 'flooded' }] };
    },
  );
  return server;
}

beforeAll(async () => {
  await admin.connect();
  upstream = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void serveStateless(floodServer(), req, res, JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null')));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`;
  gw = await startGateway({
    tenants: ['hog', 'calm'].map((id) => ({ id, name: id, catalogs: [{ upstream: { id: 'f', url, prefix: 'f_' } }] })),
    env: {
      REDIS_URL,
      REDIS_NAMESPACE: NS,
      CATALOG_SOURCES: 'file',
      GATEWAY_STATE_KEYS: randomBytes(32).toString('base64'),
      UPSTREAM_RESPONSE_MAX_BYTES: String(2 * MiB),
      USAGE_ENABLED: 'false',
      UPSTREAM_ALLOW_HTTP_HOSTS: '127.0.0.1',
      // This spec is about what is stored; pacing of the flood (notification-flood.spec.ts) is out of the way.
      UPSTREAM_NOTIFY_BYTES_PER_SEC: String(2 ** 30),
      UPSTREAM_NOTIFY_BURST_BYTES: String(2 ** 30),
      ...Object.fromEntries(Object.entries(BUDGETS).map(([k, v]) => [k, String(v)])),
    },
    listen: true,
  });
}, 60_000);

afterAll(async () => {
  await gw?.close();
  await new Promise<void>((resolve) => upstream?.close(() => resolve()));
  const keys = await admin.keys(`${NS}*`);
  if (keys.length > 0) await admin.del(...keys);
  await admin.quit();
});

async function session(tenant: string): Promise<string> {
  const res = await fetch(gw.mcpUrl(tenant), {
    method: 'POST',
    headers: { ...POST_HEADERS },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'e2e', version: '1' } },
    }),
  });
  await res.text();
  return res.headers.get('mcp-session-id')!;
}

/** One legacy call of `f_flood` asking for progress; the messages of its SSE answer. */
async function flood(tenant: string, sessionId: string, count: number, bytes: number): Promise<Json[]> {
  const res = await fetch(gw.mcpUrl(tenant), {
    method: 'POST',
    headers: { ...POST_HEADERS, 'mcp-protocol-version': LEGACY, 'mcp-session-id': sessionId },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'f_flood', arguments: { count, bytes }, _meta: { progressToken: 'p' } },
    }),
  });
  const text = await res.text();
  return sseMessages(text);
}

function tenantHash(tenantId: string): string {
  return createHash('sha256').update(tenantId).digest('base64url').slice(0, 16);
}

/** What Redis holds for a tenant's resumable streams: event data bytes and Redis's own MEMORY USAGE of their keys. */
async function held(tenant: string): Promise<{ data: number; memory: number; streams: number }> {
  let data = 0;
  let memory = 0;
  const keys = await admin.keys(`${NS}sb:sse:{${tenantHash(tenant)}}:*`);
  for (const key of keys) {
    memory += Number(await admin.memory('USAGE', key));
    for (const [, fields] of await admin.xrange(key, '-', '+')) data += Buffer.byteLength(fields[1] ?? '');
  }
  return { data, memory, streams: keys.length };
}

test('a hostile upstream flooding 1 MB progress notifications: per call, per stream and per tenant bytes stay bounded; another tenant is stored whole', async () => {
  const hog = await session('hog');
  const calls = await Promise.all(Array.from({ length: 6 }, () => flood('hog', hog, 12, NOTE_BYTES)));
  const calm = await session('calm');
  const fine = await flood('calm', calm, 3, 1_000);
  expect(fine.filter((m) => m.method === 'notifications/progress')).toHaveLength(3);

  // Appends are fire and forget: wait until the calm tenant's stream holds its 3 events and the result.
  const calmHeld = await (async () => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const h = await held('calm');
      if (h.data >= 3_000 || Date.now() > deadline) return h;
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  expect(calmHeld.streams).toBe(1);
  expect(calmHeld.data).toBeGreaterThanOrEqual(3_000);

  const hogHeld = await held('hog');
  expect(hogHeld.data).toBeLessThanOrEqual(BUDGETS.SSE_TENANT_MAX_BYTES);
  // Redis's own accounting of the keys (entry and listpack overhead included) stays near the budget.
  expect(hogHeld.memory).toBeLessThanOrEqual(BUDGETS.SSE_TENANT_MAX_BYTES * 1.25);
  for (const key of await admin.keys(`${NS}sb:sse:{${tenantHash('hog')}}:*`)) {
    let stream = 0;
    for (const [, fields] of await admin.xrange(key, '-', '+')) stream += Buffer.byteLength(fields[1] ?? '');
    expect(stream).toBeLessThanOrEqual(BUDGETS.SSE_STREAM_MAX_BYTES);
  }
  // Never an unbounded key: everything stored for the tenant expires.
  const unbounded: string[] = [];
  for (const key of await admin.keys(`${NS}*`)) if ((await admin.pttl(key)) < 0) unbounded.push(key);
  expect(unbounded).toEqual([]);
  // And per call: at most its budget of notifications reached the client.
  for (const messages of calls) {
    const progress = messages.filter((m) => m.method === 'notifications/progress');
    const warning = messages.filter((m) => m.method === 'notifications/message');
    // At most the call's budget of notifications reached the client, then one warning naming it, then the result.
    expect(progress.length * NOTE_BYTES).toBeLessThanOrEqual(BUDGETS.NOTIFY_MAX_BYTES_PER_CALL);
    expect(progress.length).toBeGreaterThan(0);
    expect(JSON.stringify(warning)).toContain('NOTIFY_MAX_BYTES_PER_CALL');
    expect(messages.at(-1)).toMatchObject({ id: 2, result: { content: [{ type: 'text', text: 'flooded' }] } });
  }
}, 120_000);

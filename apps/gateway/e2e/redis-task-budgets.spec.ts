/**
 * Task byte budgets of the shared Redis (issue 41 finding 3) and anonymous task secrets
 * (finding "Lower"), through a real gateway: a tenant's upstream answers task-supporting calls
 * with big results. A result over TASKS_MAX_TASK_BYTES fails its task with an error naming the
 * budget; many tasks together stay within TASKS_TENANT_MAX_BYTES in what Redis holds. On this
 * open tenant every caller is anonymous: a task id is usable only with the secret its creator got.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import {
  httpPost,
  modernHeaders,
  modernRequest,
  rpcError,
  rpcResult,
  startGateway,
  waitFor,
  type Json,
  type TestGateway,
} from './support/harness';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const NS = `e2e-task-budget-${randomBytes(4).toString('hex')}:`;
const TASK_BYTES = 16 * 1024;
const TENANT_BYTES = 64 * 1024;
const withTasks = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } };

let upstream: Server;
let gw: TestGateway;
let nextId = 1;
const admin = new Redis(REDIS_URL, { lazyConnect: true });

/** A 2025-11-25 upstream whose `render` (task support optional) answers `bytes` of text after `ms`. */
function renderUpstream(): Server {
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const msg = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as {
        id?: unknown;
        method?: string;
        params?: { arguments?: { ms?: number; bytes?: number } };
      };
      const reply = (result: unknown) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
      if (msg.id === undefined) return void res.writeHead(202).end();
      if (msg.method === 'initialize')
        return reply({ protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'render', version: '1' } });
      if (msg.method === 'tools/list') {
        return reply({
          tools: [
            {
              name: 'render',
              inputSchema: { type: 'object', properties: { ms: { type: 'number' }, bytes: { type: 'number' } } },
              execution: { taskSupport: 'optional' },
            },
          ],
        });
      }
      if (msg.method === 'tools/call') {
        const a = msg.params?.arguments ?? {};
        setTimeout(() => reply({ content: [{ type: 'text', text: 'r'.repeat(a.bytes ?? 0) }] }), a.ms ?? 0);
        return;
      }
      reply({});
    });
  });
}

beforeAll(async () => {
  await admin.connect();
  upstream = renderUpstream();
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`;
  gw = await startGateway({
    tenants: [{ id: 'open', name: 'Open', catalogs: [{ upstream: { id: 'render', url } }] }],
    env: {
      REDIS_URL,
      REDIS_NAMESPACE: NS,
      CATALOG_SOURCES: 'file',
      UPSTREAM_ALLOW_HTTP_HOSTS: '127.0.0.1',
      GATEWAY_STATE_KEYS: randomBytes(32).toString('base64'),
      USAGE_ENABLED: 'false',
      TASKS_AFTER_MS: '100',
      TASKS_MAX_TASK_BYTES: String(TASK_BYTES),
      TASKS_TENANT_MAX_BYTES: String(TENANT_BYTES),
    },
    listen: true,
  });
}, 60_000);

afterAll(async () => {
  await gw?.close();
  upstream?.closeAllConnections();
  await new Promise<void>((resolve) => upstream?.close(() => resolve()));
  const keys = await admin.keys(`${NS}*`);
  if (keys.length > 0) await admin.del(...keys);
  await admin.quit();
});

function rpc(method: string, params: Json, name?: string) {
  return httpPost(gw.mcpUrl('open'), modernRequest(nextId++, method, { ...params, _meta: withTasks }), modernHeaders(method, name));
}

async function render(bytes: number): Promise<Json> {
  const res = await rpc('tools/call', { name: 'render', arguments: { ms: 600, bytes } }, 'render');
  expect(res.status).toBe(200);
  return rpcResult(res);
}

async function settled(taskId: string): Promise<Json> {
  return waitFor(
    `task ${taskId} to settle`,
    async () => {
      const task = rpcResult(await rpc('tasks/get', { taskId }, taskId));
      return task.status === 'completed' || task.status === 'failed' ? task : undefined;
    },
    20_000,
    100,
  );
}

/** Bytes Redis holds in the tenant's task records and answers. */
async function heldBytes(): Promise<number> {
  let total = 0;
  for (const key of await admin.keys(`${NS}sb:task:{open}:*`)) {
    const type = await admin.type(key);
    if (type === 'string') total += await admin.strlen(key);
    else if (type === 'hash') for (const [k, v] of Object.entries(await admin.hgetall(key))) total += k.length + v.length;
  }
  return total;
}

test('a task result over the task budget fails the task with an error naming it; nothing big is stored', async () => {
  const created = await render(40_000);
  expect(created).toMatchObject({ resultType: 'task', status: 'working' });
  const done = await settled(created.taskId as string);
  expect(done.status).toBe('failed');
  expect(done.error).toMatchObject({ data: { budget: 'TASKS_MAX_TASK_BYTES', limitBytes: TASK_BYTES } });
  expect(done).not.toHaveProperty('result');
  expect(await heldBytes()).toBeLessThan(TASK_BYTES);
});

test("many tasks with big results: the tenant's stored tasks stay within the tenant budget; those past it fail naming it", async () => {
  const created = await Promise.all(Array.from({ length: 10 }, () => render(12_000)));
  const ids = created.filter((c) => c.resultType === 'task').map((c) => c.taskId as string);
  expect(ids.length).toBeGreaterThan(5);
  const outcomes = await Promise.all(ids.map(settled));
  const failed = outcomes.filter((t) => t.status === 'failed');
  expect(failed.length).toBeGreaterThan(0);
  for (const t of failed) expect((t.error as { data?: { budget?: string } }).data?.budget).toMatch(/^TASKS_(TENANT|TASK)_MAX_BYTES$/);
  expect(outcomes.some((t) => t.status === 'completed')).toBe(true);
  expect(await heldBytes()).toBeLessThanOrEqual(TENANT_BYTES);
  // Never an unbounded key: everything stored for the tenant expires.
  const unbounded: string[] = [];
  for (const key of await admin.keys(`${NS}*`)) if ((await admin.pttl(key)) < 0) unbounded.push(key);
  expect(unbounded).toEqual([]);
});

test("an anonymous caller's task id carries a secret: without it (or with another) tasks/get and tasks/cancel find nothing", async () => {
  const created = await render(10);
  const taskId = created.taskId as string;
  const [publicId, secret] = taskId.split('.');
  expect(secret).toBeDefined();
  for (const guess of [publicId!, `${publicId}.${'A'.repeat(22)}`]) {
    for (const method of ['tasks/get', 'tasks/cancel']) {
      const res = await rpc(method, { taskId: guess }, guess);
      expect(rpcError(res).message).toMatch(/Task not found/);
    }
  }
  expect((await settled(taskId)).status).toBe('completed');
});

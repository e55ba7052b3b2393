/**
 * Tasks extension (SEP-2663, issue 14 item 3) across replicas: two real gateways share Redis
 * (a namespace of this test's own). A long tools/call made on replica A becomes a task; B
 * answers tasks/get, takes tasks/update answers and tasks/cancel requests, and A (which runs
 * the work) resumes or stops it. Another tenant, or a client without the extension, gets
 * nothing of it.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
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

const TASKS = 'io.modelcontextprotocol/tasks';
const TENANTS: Array<{ id: string; name: string; catalogs: unknown[] }> = [
  { id: 'conf', name: 'Conformance', catalogs: [{ builtin: 'conformance' }] },
  { id: 'other', name: 'Other', catalogs: [{ builtin: 'conformance' }] },
];

/**
 * A tenant's upstream (plain JSON-RPC over HTTP, 2025-11-25): `render` declares
 * `execution.taskSupport: "optional"` and takes `ms` to answer; `quick` declares nothing.
 * `aborted` counts calls the client cancelled (`notifications/cancelled`, or the request closed early).
 */
function slowUpstream(): Promise<{ url: string; aborted: () => number; close(): Promise<void> }> {
  let aborted = 0;
  const http: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const msg = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as {
        id?: unknown;
        method?: string;
        params?: { name?: string; arguments?: { ms?: number } };
      };
      const reply = (result: unknown) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
      if (msg.method === 'notifications/cancelled') aborted++;
      if (msg.id === undefined) return void res.writeHead(202).end();
      if (msg.method === 'initialize')
        return reply({ protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'render', version: '1' } });
      if (msg.method === 'tools/list') {
        return reply({
          tools: [
            {
              name: 'render',
              inputSchema: { type: 'object', properties: { ms: { type: 'number' } } },
              execution: { taskSupport: 'optional' },
            },
            { name: 'quick', inputSchema: { type: 'object' }, taskSupport: 'required' },
          ],
        });
      }
      if (msg.method === 'tools/call') {
        const timer = setTimeout(
          () => reply({ content: [{ type: 'text', text: `rendered ${msg.params?.name}` }] }),
          msg.params?.arguments?.ms ?? 0,
        );
        res.on('close', () => {
          if (!res.writableFinished) aborted++;
          clearTimeout(timer);
        });
        return;
      }
      reply({});
    });
  });
  return new Promise((resolve) =>
    http.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(http.address() as { port: number }).port}/mcp`,
        aborted: () => aborted,
        close: () => new Promise<void>((r) => (http.closeAllConnections(), http.close(() => r()))),
      }),
    ),
  );
}
let upstream: Awaited<ReturnType<typeof slowUpstream>>;
const NAMESPACE = `e2e-tasks-${randomBytes(4).toString('hex')}:`;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

let a: TestGateway;
let b: TestGateway;
let nextId = 1;

beforeAll(async () => {
  upstream = await slowUpstream();
  TENANTS.push({ id: 'render', name: 'Render', catalogs: [{ upstream: { id: 'render', url: upstream.url } }] });
  const shared = {
    GATEWAY_STATE_KEYS: randomBytes(32).toString('base64'),
    REDIS_URL,
    REDIS_NAMESPACE: NAMESPACE,
    CATALOG_SOURCES: 'file',
    UPSTREAM_ALLOW_HTTP_HOSTS: '127.0.0.1',
  };
  a = await startGateway({ tenants: TENANTS, env: { ...shared, GATEWAY_REPLICA_ID: 'tasks-a' }, listen: true });
  b = await startGateway({ tenants: TENANTS, env: { ...shared, GATEWAY_REPLICA_ID: 'tasks-b' }, listen: true });
}, 60_000);

afterAll(async () => {
  await a?.close();
  await b?.close();
  await upstream?.close();
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${NAMESPACE}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

const withTasks = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, extensions: { [TASKS]: {} } } };

/** A 2026-07-28 request; `declare` puts the tasks extension (and elicitation) in its per-request capabilities. */
function rpc(gw: TestGateway, tenant: string, method: string, params: Json, declare = true, name?: string) {
  const body = modernRequest(nextId++, method, declare ? { ...params, _meta: withTasks } : params);
  return httpPost(
    gw.mcpUrl(tenant),
    body,
    modernHeaders(method, name ?? (typeof params.taskId === 'string' ? params.taskId : (params.name as string | undefined))),
  );
}

async function call(gw: TestGateway, tenant: string, name: string, args: Json): Promise<Json> {
  const res = await rpc(gw, tenant, 'tools/call', { name, arguments: args });
  expect(res.status).toBe(200);
  return rpcResult(res);
}

async function get(gw: TestGateway, tenant: string, taskId: string): Promise<Json> {
  const res = await rpc(gw, tenant, 'tasks/get', { taskId });
  expect(res.status).toBe(200);
  return rpcResult(res);
}

function until(gw: TestGateway, taskId: string, status: string, tenant = 'conf'): Promise<Json> {
  return waitFor(
    `task ${status} on ${gw.baseUrl}`,
    async () => {
      const task = await get(gw, tenant, taskId);
      return task.status === status ? task : undefined;
    },
    20_000,
    100,
  );
}

test('a task created on A is read on B at once, and B sees it complete with the inlined result', async () => {
  const created = await call(a, 'conf', 'slow_compute', { seconds: 1, label: 'cross' });
  expect(created).toMatchObject({ resultType: 'task', status: 'working' });
  expect(typeof created.taskId).toBe('string');
  expect((created.taskId as string).length).toBeGreaterThanOrEqual(22);
  expect(created).not.toHaveProperty('result');

  const immediate = await get(b, 'conf', created.taskId as string);
  expect(immediate).toMatchObject({ resultType: 'complete', taskId: created.taskId, status: 'working' });

  const done = await until(b, created.taskId as string, 'completed');
  expect(done.result).toMatchObject({ content: [{ type: 'text', text: 'Computed cross after 1 s' }] });
  expect(done).not.toHaveProperty('error');
});

test('input asked by a task on A is answered through B (partially, then fully) and the task completes', async () => {
  const created = await call(a, 'conf', 'multi_input', {});
  const taskId = created.taskId as string;
  const parked = await until(b, taskId, 'input_required');
  const keys = Object.keys(parked.inputRequests as Json);
  expect(keys).toHaveLength(2);

  const partial = await rpc(b, 'conf', 'tasks/update', {
    taskId,
    inputResponses: { [keys[0]]: { action: 'accept', content: { name: 'one' } } },
  });
  expect(rpcResult(partial)).toEqual(expect.objectContaining({ resultType: 'complete' }));
  const still = await get(a, 'conf', taskId);
  expect(still.status).toBe('input_required');
  expect(Object.keys(still.inputRequests as Json)).toEqual([keys[1]]);

  await rpc(b, 'conf', 'tasks/update', { taskId, inputResponses: { [keys[1]]: { action: 'accept', content: { name: 'two' } } } });
  const done = await until(a, taskId, 'completed');
  expect(JSON.stringify(done.result)).toContain('Got one and two');
});

test('tasks/cancel on B stops the work running on A; cancelling again is the same empty ack', async () => {
  const created = await call(a, 'conf', 'slow_compute', { seconds: 60, label: 'cancel-me' });
  const taskId = created.taskId as string;
  const ack = rpcResult(await rpc(b, 'conf', 'tasks/cancel', { taskId }));
  expect(Object.keys(ack).filter((k) => k !== '_meta')).toEqual(['resultType']);
  await until(a, taskId, 'cancelled');
  expect(rpcResult(await rpc(b, 'conf', 'tasks/cancel', { taskId })).resultType).toBe('complete');
});

test("another tenant gets 'not found' for a task id it did not create; a client without the extension gets -32021", async () => {
  const created = await call(a, 'conf', 'slow_compute', { seconds: 60, label: 'private' });
  const taskId = created.taskId as string;
  try {
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const params = method === 'tasks/update' ? { taskId, inputResponses: {} } : { taskId };
      const foreign = rpcError(await rpc(b, 'other', method, params));
      expect(foreign.code).toBe(-32602);
      expect(foreign.message).toContain('Task not found');
      const undeclared = await rpc(b, 'conf', method, params, false);
      expect(undeclared.status).toBe(400);
      expect(rpcError(undeclared)).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [TASKS]: {} } } } });
    }
    // The other tenant's cancel did nothing: the task still runs.
    expect((await get(b, 'conf', taskId)).status).toBe('working');
    const guessed = rpcError(await rpc(b, 'conf', 'tasks/get', { taskId: `${taskId.slice(0, -1)}${taskId.endsWith('A') ? 'B' : 'A'}` }));
    expect(guessed.code).toBe(-32602);
  } finally {
    await rpc(a, 'conf', 'tasks/cancel', { taskId });
  }
});

test('without the extension a task-supporting tool answers on its request, and a required-task tool is refused with -32021', async () => {
  const sync = rpcResult(await rpc(a, 'conf', 'tools/call', { name: 'slow_compute', arguments: { seconds: 0.5 } }, false));
  expect(sync).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Computed result after 0.5 s' }] });
  expect(sync).not.toHaveProperty('taskId');
  const refused = await rpc(a, 'conf', 'tools/call', { name: 'failing_job', arguments: {} }, false);
  expect(refused.status).toBe(400);
  expect(rpcError(refused).code).toBe(-32021);
});

test('bad tasks/* params are -32602 naming the field, never a 500', async () => {
  const noId = await rpc(b, 'conf', 'tasks/get', { taskId: 7 } as Json, true, 'x');
  expect(rpcError(noId)).toMatchObject({ code: -32602 });
  expect(rpcError(noId).message).toContain('params.taskId');
  const created = await call(a, 'conf', 'slow_compute', { seconds: 60 });
  const bad = await rpc(b, 'conf', 'tasks/update', { taskId: created.taskId, inputResponses: [1, 2] });
  expect(rpcError(bad).message).toContain('params.inputResponses');
  await rpc(a, 'conf', 'tasks/cancel', { taskId: created.taskId });
});

test("an upstream tool that declares execution.taskSupport 'optional' becomes a gateway task when slow; cancel on B cancels the upstream call made by A", async () => {
  const created = await call(a, 'render', 'render', { ms: 800 });
  expect(created).toMatchObject({ resultType: 'task', status: 'working' });
  const done = await until(b, created.taskId as string, 'completed', 'render');
  expect(done.result).toMatchObject({ content: [{ type: 'text', text: 'rendered render' }] });

  const before = upstream.aborted();
  const long = await call(a, 'render', 'render', { ms: 60_000 });
  await rpc(b, 'render', 'tasks/cancel', { taskId: long.taskId });
  await until(b, long.taskId as string, 'cancelled', 'render');
  await waitFor('the upstream call to be cancelled', () => (upstream.aborted() > before ? true : undefined), 10_000);

  // Without the declaration (and whatever the upstream claims in a field of ours) a tool is never a task.
  const quick = await call(a, 'render', 'quick', {});
  expect(quick).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'rendered quick' }] });
  const undeclared = rpcResult(await rpc(a, 'render', 'tools/call', { name: 'quick', arguments: {} }, false));
  expect(undeclared.content).toEqual([{ type: 'text', text: 'rendered quick' }]);
});

/**
 * An upstream's own tasks through the gateway (issue 42 item 4). The upstream is built with the
 * SDK 1.x, stateful, and its `research` tool declares `execution.taskSupport: "required"` (its
 * tasks live in the SDK's task store, bound to the upstream session that created them). A
 * 2025-11-25 client (SDK 1.x) makes a task-augmented call through gateway A, polls tasks/get,
 * fetches tasks/result, cancels; gateway B (same state keys, its own upstream session) serves
 * the task too. A 2026-07-28 client declaring the tasks extension gets the same task in that
 * extension's shapes. Other callers' lookups find nothing.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as SdkTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
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

interface ResearchUpstream {
  url: string;
  store: InMemoryTaskStore;
  /** Upstream task ids in creation order. */
  created: string[];
  /** Completes the task of `topic` with its report. */
  finish(topic: string): Promise<void>;
  /** Ends every session (as an upstream restart would): their tasks are gone. */
  endSessions(): Promise<void>;
  /** initialize requests received (a new upstream session each). */
  initializes(): number;
  close(): Promise<void>;
}

async function researchUpstream(): Promise<ResearchUpstream> {
  const store = new InMemoryTaskStore();
  const created: string[] = [];
  const finishers = new Map<string, () => Promise<void>>();
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const newServer = (): McpServer => {
    const server = new McpServer(
      { name: 'research', version: '1.0.0' },
      { capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }, taskStore: store },
    );
    server.registerTool('ping_lab', { description: 'Answers at once (no task support)' }, () => ({
      content: [{ type: 'text', text: 'pong' }],
    }));
    server.experimental.tasks.registerToolTask(
      'research',
      { description: 'Researches a topic in the background', inputSchema: { topic: z.string() }, execution: { taskSupport: 'required' } },
      {
        createTask: async ({ topic }, extra) => {
          const task = await extra.taskStore.createTask({ ttl: 120_000, pollInterval: 100 });
          created.push(task.taskId);
          finishers.set(topic, () =>
            extra.taskStore.storeTaskResult(task.taskId, 'completed', { content: [{ type: 'text', text: `report on ${topic}` }] }),
          );
          return { task };
        },
        getTask: async (_args, extra) => extra.taskStore.getTask(extra.taskId),
        getTaskResult: async (_args, extra) => extra.taskStore.getTaskResult(extra.taskId) as never,
      },
    );
    return server;
  };
  let initializes = 0;
  const http: HttpServer = createHttpServer((req, res) => {
    const id = req.headers['mcp-session-id'];
    if (id === undefined && req.method === 'POST') initializes++;
    const known = typeof id === 'string' ? sessions.get(id) : undefined;
    if (known) return void known.handleRequest(req, res);
    if (typeof id === 'string') return void res.writeHead(404).end();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomBytes(8).toString('hex'),
      onsessioninitialized: (sid) => void sessions.set(sid, transport),
    });
    void newServer()
      .connect(transport)
      .then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as { port: number }).port}/mcp`,
    store,
    created,
    finish: async (topic) => {
      const done = finishers.get(topic);
      if (!done) throw new Error(`no task for ${topic}`);
      await done();
    },
    endSessions: async () => {
      const ended = [...sessions.values()];
      sessions.clear();
      await Promise.all(ended.map((t) => t.close().catch(() => undefined)));
    },
    initializes: () => initializes,
    close: async () => {
      await Promise.all([...sessions.values()].map((t) => t.close().catch(() => undefined)));
      store.cleanup();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

let upstream: ResearchUpstream;
let a: TestGateway;
let b: TestGateway;
const clients: SdkClient[] = [];

beforeAll(async () => {
  upstream = await researchUpstream();
  const tenants = [
    { id: 'lab', name: 'Lab', catalogs: [{ upstream: { id: 'research', url: upstream.url, stateful: true } }] },
    { id: 'other', name: 'Other', catalogs: [{ upstream: { id: 'research', url: upstream.url, stateful: true } }] },
  ];
  const shared = {
    GATEWAY_STATE_KEYS: randomBytes(32).toString('base64'),
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_NAMESPACE: `e2e-utasks-${randomBytes(4).toString('hex')}:`,
    CATALOG_SOURCES: 'file',
    UPSTREAM_ALLOW_HTTP_HOSTS: '127.0.0.1',
  };
  a = await startGateway({ tenants, env: { ...shared, GATEWAY_REPLICA_ID: 'utasks-a' }, listen: true });
  b = await startGateway({ tenants, env: { ...shared, GATEWAY_REPLICA_ID: 'utasks-b' }, listen: true });
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await a?.close();
  await b?.close();
  await upstream?.close();
});

async function legacyClient(gw: TestGateway, tenant = 'lab'): Promise<SdkClient> {
  const client = new SdkClient(
    { name: 'e2e-tasks', version: '1.0.0' },
    { capabilities: { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} } },
  );
  await client.connect(new SdkTransport(new URL(gw.mcpUrl(tenant))));
  clients.push(client);
  return client;
}

/** A task-augmented tools/call of `research` (what `callToolStream` sends for a task tool). */
async function createTask(
  client: SdkClient,
  topic: string,
): Promise<{ taskId: string; status: string; ttl: number | null; pollInterval?: number }> {
  const created = await client.request(
    { method: 'tools/call', params: { name: 'research', arguments: { topic }, task: { ttl: 60_000 } } },
    CreateTaskResultSchema,
  );
  return created.task;
}

test('a 2025-11-25 client creates an upstream task, polls tasks/get, and gets tasks/result; replica B serves it too', async () => {
  const client = await legacyClient(a);
  // The gateway declares the 2025-11-25 tasks utility and lists the tool as the upstream does.
  expect(client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
  const listed = await client.listTools();
  expect(listed.tools.find((t) => t.name === 'research')?.execution).toEqual({ taskSupport: 'required' });

  const task = await createTask(client, 'owls');
  expect(task.status).toBe('working');
  expect(task.taskId.startsWith('ut1.')).toBe(true);
  // The handle is the gateway's: neither the upstream's task id nor its session is readable in it.
  const upstreamId = upstream.created.at(-1)!;
  expect(task.taskId).not.toContain(upstreamId);

  const working = await client.experimental.tasks.getTask(task.taskId);
  expect(working).toMatchObject({ taskId: task.taskId, status: 'working', pollInterval: 100 });

  // Replica B (its own upstream session) reads the task created through A.
  const onB = await legacyClient(b);
  expect(await onB.experimental.tasks.getTask(task.taskId)).toMatchObject({ taskId: task.taskId, status: 'working' });

  await upstream.finish('owls');
  await waitFor(
    'the task to complete',
    async () => ((await client.experimental.tasks.getTask(task.taskId)).status === 'completed' ? true : undefined),
    10_000,
    50,
  );
  const result = await onB.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
  expect(result.content).toEqual([{ type: 'text', text: 'report on owls' }]);
  expect(result._meta?.['io.modelcontextprotocol/related-task']).toEqual({ taskId: task.taskId });

  // The SDK's own task flow (callToolStream) ends with the result too.
  const stream = client.experimental.tasks.callToolStream({ name: 'research', arguments: { topic: 'bats' } }, CallToolResultSchema, {
    task: { ttl: 60_000 },
  });
  const kinds: string[] = [];
  for await (const message of stream) {
    kinds.push(message.type);
    if (message.type === 'taskCreated') setTimeout(() => void upstream.finish('bats'), 200);
    if (message.type === 'result') expect(message.result.content).toEqual([{ type: 'text', text: 'report on bats' }]);
    if (message.type === 'error') throw message.error;
  }
  expect(kinds[0]).toBe('taskCreated');
  expect(kinds.at(-1)).toBe('result');
});

test('tasks/cancel through replica B reaches the upstream', async () => {
  const client = await legacyClient(a);
  const task = await createTask(client, 'moths');
  const upstreamId = upstream.created.at(-1)!;
  const onB = await legacyClient(b);
  const cancelled = await onB.experimental.tasks.cancelTask(task.taskId);
  expect(cancelled).toMatchObject({ taskId: task.taskId, status: 'cancelled' });
  expect((await upstream.store.getTask(upstreamId))?.status).toBe('cancelled');
  expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('cancelled');
});

test("tasks/list shows the caller's own upstream tasks, as their upstream sees them, on either replica", async () => {
  const mine = await legacyClient(a);
  const first = await createTask(mine, 'larks');
  const second = await createTask(mine, 'wrens');
  await upstream.finish('larks');
  // This tenant is open: an anonymous caller's list is its own session's tasks, here read on replica B.
  const session = (mine.transport as SdkTransport).sessionId!;
  const res = await fetch(b.mcpUrl('lab'), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      'mcp-session-id': session,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tasks/list', params: {} }),
  });
  const listed = rpcResult({ body: (await res.text()).replace(/^(event: message\n)?(id: .*\n)?data: /, '') }) as {
    tasks: Array<{ taskId: string; status: string }>;
  };
  const byId = new Map(listed.tasks.map((t) => [t.taskId, t.status]));
  expect(byId.get(first.taskId)).toBe('completed');
  expect(byId.get(second.taskId)).toBe('working');
  expect(listed.tasks).toHaveLength(2);
  // Another session of the same tenant, and another tenant's caller, see none of them.
  expect((await (await legacyClient(b)).experimental.tasks.listTasks()).tasks).toEqual([]);
  expect((await (await legacyClient(b, 'other')).experimental.tasks.listTasks()).tasks).toEqual([]);
  await expect(mine.experimental.tasks.listTasks('not-a-cursor')).rejects.toMatchObject({
    code: -32602,
    message: expect.stringContaining('params.cursor'),
  });
  await upstream.finish('wrens');
});

test("another tenant's caller and an altered handle find nothing", async () => {
  const client = await legacyClient(a);
  const task = await createTask(client, 'newts');
  const other = await legacyClient(a, 'other');
  const notFound = await other.experimental.tasks.getTask(task.taskId).catch((err: unknown) => err);
  expect(notFound).toBeInstanceOf(McpError);
  expect(notFound).toMatchObject({ code: -32602 });
  expect((notFound as Error).message).toContain('Task not found');
  const altered = `${task.taskId.slice(0, -2)}${task.taskId.endsWith('A') ? 'B' : 'A'}A`;
  await expect(client.experimental.tasks.getTask(altered)).rejects.toMatchObject({ code: -32602 });
  // A tool without task support is refused as a task (2025-11-25: "forbidden"), and called plainly without one.
  await expect(
    client.request({ method: 'tools/call', params: { name: 'ping_lab', arguments: {}, task: {} } }, CreateTaskResultSchema),
  ).rejects.toMatchObject({
    code: -32601,
    message: expect.stringContaining('Tool ping_lab cannot be called as a task'),
  });
  expect((await client.callTool({ name: 'ping_lab', arguments: {} })).content).toEqual([{ type: 'text', text: 'pong' }]);
  await expect(
    client.request(
      { method: 'tools/call', params: { name: 'research', arguments: { topic: 'x' }, task: { ttl: -1 } } },
      CreateTaskResultSchema,
    ),
  ).rejects.toMatchObject({
    code: -32602,
    message: expect.stringContaining('params.task.ttl'),
  });
  await upstream.finish('newts');
});

test('a task whose upstream session ended is not found, and costs no reconnect', async () => {
  const client = await legacyClient(a);
  const task = await createTask(client, 'crows');
  await upstream.endSessions();
  const before = upstream.initializes();
  await expect(client.experimental.tasks.getTask(task.taskId)).rejects.toMatchObject({
    code: -32602,
    message: expect.stringContaining('the upstream session that held it has ended'),
  });
  expect(upstream.initializes()).toBe(before);
  // The next call opens a new upstream session and works.
  expect((await createTask(client, 'rooks')).status).toBe('working');
  await upstream.finish('rooks');
});

/**
 * Which of `values` the tasks extension's own schemas (`@modelcontextprotocol/ext-tasks`
 * core/v2, the SEP-2663 text's generated schemas) accept as `kind`. ESM-only, so checked in a
 * child Node process.
 */
function acceptedByExtension(checks: Array<{ kind: 'CreateTaskResult' | 'DetailedTask'; value: unknown }>): boolean[] {
  const script = `import * as v2 from '@modelcontextprotocol/ext-tasks/core/v2';
let input = '';
for await (const chunk of process.stdin) input += chunk;
const checks = JSON.parse(input);
process.stdout.write(JSON.stringify(checks.map((c) => (c.kind === 'CreateTaskResult' ? v2.isCreateTaskResultV2(c.value) : v2.isDetailedTaskV2(c.value)))));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    input: JSON.stringify(checks),
    cwd: __dirname,
    encoding: 'utf8',
  });
  return JSON.parse(out) as boolean[];
}

let nextId = 1;
const withTasks = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } } };

function modern(gw: TestGateway, method: string, params: Json, declare = true) {
  const name = typeof params.taskId === 'string' ? params.taskId : (params.name as string | undefined);
  return httpPost(
    gw.mcpUrl('lab'),
    modernRequest(nextId++, method, declare ? { ...params, _meta: withTasks } : params),
    modernHeaders(method, name),
  );
}

test('a 2026-07-28 client gets the upstream task in the tasks extension shapes, on either replica', async () => {
  const created = rpcResult(await modern(a, 'tools/call', { name: 'research', arguments: { topic: 'voles' } }));
  expect(created).toMatchObject({ resultType: 'task', status: 'working', pollIntervalMs: 100 });
  const taskId = created.taskId as string;
  expect(rpcResult(await modern(b, 'tasks/get', { taskId }))).toMatchObject({ taskId, status: 'working' });
  await upstream.finish('voles');
  const done = await waitFor('the task to complete', async () => {
    const got = rpcResult(await modern(b, 'tasks/get', { taskId }));
    return got.status === 'completed' ? got : undefined;
  });
  expect(done.result).toMatchObject({ content: [{ type: 'text', text: 'report on voles' }] });
  const working = rpcResult(await modern(b, 'tasks/get', { taskId }));
  expect(
    acceptedByExtension([
      { kind: 'CreateTaskResult', value: created },
      { kind: 'DetailedTask', value: done },
      { kind: 'DetailedTask', value: working },
    ]),
  ).toEqual([true, true, true]);

  // Cancel is forwarded; a tool that only runs as a task refuses a client without the extension.
  const second = rpcResult(await modern(a, 'tools/call', { name: 'research', arguments: { topic: 'shrews' } }));
  const upstreamId = upstream.created.at(-1)!;
  expect(rpcResult(await modern(b, 'tasks/cancel', { taskId: second.taskId as string }))).toMatchObject({ resultType: 'complete' });
  expect((await upstream.store.getTask(upstreamId))?.status).toBe('cancelled');
  const refused = rpcError(await modern(a, 'tools/call', { name: 'research', arguments: { topic: 'x' } }, false));
  expect(refused.code).toBe(-32021);
  expect(refused.message).toContain(TASKS);
});

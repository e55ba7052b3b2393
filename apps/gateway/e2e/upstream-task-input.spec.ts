/**
 * A 2025-11-25 upstream's task that needs the client's input, for a 2026-07-28 client (issue 42,
 * SEP-2663 tasks extension). The upstream (SDK 1.x, stateful) asks with `elicitation/create` on
 * its session while the task runs — outside any call of the client, which only polls. The gateway
 * holds that request and shows it in tasks/get as `inputRequests` (status input_required); the
 * client's tasks/update answer goes back to the upstream, whose task then completes with it.
 * Replica B (same Redis, same state keys) lists the question gateway A holds and relays the
 * answer to A.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
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

interface InterviewUpstream {
  url: string;
  close(): Promise<void>;
}

/** An upstream whose `interview` task asks the client for a name, then greets it. */
async function interviewUpstream(): Promise<InterviewUpstream> {
  const store = new InMemoryTaskStore();
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const newServer = (): McpServer => {
    const server = new McpServer(
      { name: 'interview', version: '1.0.0' },
      { capabilities: { tools: {}, tasks: { cancel: {}, requests: { tools: { call: {} } } } }, taskStore: store },
    );
    server.experimental.tasks.registerToolTask(
      'interview',
      { description: 'Asks who is there, in the background', inputSchema: { topic: z.string() }, execution: { taskSupport: 'required' } },
      {
        createTask: async ({ topic }, extra) => {
          const task = await extra.taskStore.createTask({ ttl: 120_000, pollInterval: 50 });
          // Asked on the session, outside the call that created the task (as the SDK's own example does).
          void server.server
            .elicitInput({
              mode: 'form',
              message: `Who is asking about ${topic}?`,
              requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
            })
            .then((answer) => {
              const text = answer.action === 'accept' ? `Hello, ${String(answer.content?.name)}` : `The client chose ${answer.action}`;
              return store.storeTaskResult(task.taskId, 'completed', { content: [{ type: 'text', text }] });
            })
            .catch((err: unknown) =>
              store.storeTaskResult(task.taskId, 'failed', { content: [{ type: 'text', text: String(err) }], isError: true }),
            );
          return { task };
        },
        getTask: async (_args, extra) => extra.taskStore.getTask(extra.taskId),
        getTaskResult: async (_args, extra) => extra.taskStore.getTaskResult(extra.taskId) as never,
      },
    );
    return server;
  };
  const http: HttpServer = createHttpServer((req, res) => {
    const id = req.headers['mcp-session-id'];
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
    close: async () => {
      await Promise.all([...sessions.values()].map((t) => t.close().catch(() => undefined)));
      store.cleanup();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

let upstream: InterviewUpstream;
let gw: TestGateway;
let b: TestGateway;

beforeAll(async () => {
  upstream = await interviewUpstream();
  const tenants = [{ id: 'lab', name: 'Lab', catalogs: [{ upstream: { id: 'interview', url: upstream.url, stateful: true } }] }];
  const shared = {
    GATEWAY_STATE_KEYS: randomBytes(32).toString('base64'),
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_NAMESPACE: `e2e-utinput-${randomBytes(4).toString('hex')}:`,
    CATALOG_SOURCES: 'file',
    UPSTREAM_ALLOW_HTTP_HOSTS: '127.0.0.1',
  };
  gw = await startGateway({ tenants, env: { ...shared, GATEWAY_REPLICA_ID: 'utinput-a' }, listen: true });
  b = await startGateway({ tenants, env: { ...shared, GATEWAY_REPLICA_ID: 'utinput-b' }, listen: true });
}, 60_000);

afterAll(async () => {
  await gw?.close();
  await b?.close();
  await upstream?.close();
});

let nextId = 1;
/** The client declares form elicitation and the tasks extension on each request. */
const declared = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} }, extensions: { [TASKS]: {} } } };

function modern(method: string, params: Json, on: TestGateway = gw) {
  const name = typeof params.taskId === 'string' ? params.taskId : (params.name as string | undefined);
  return httpPost(on.mcpUrl('lab'), modernRequest(nextId++, method, { ...params, _meta: declared }), modernHeaders(method, name));
}

function isDetailedTask(value: unknown): boolean {
  const script = `import * as v2 from '@modelcontextprotocol/ext-tasks/core/v2';
let input = '';
for await (const chunk of process.stdin) input += chunk;
process.stdout.write(JSON.stringify(v2.isDetailedTaskV2(JSON.parse(input))));`;
  return JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      input: JSON.stringify(value),
      cwd: __dirname,
      encoding: 'utf8',
    }),
  ) as boolean;
}

async function untilStatus(taskId: string, status: string, on: TestGateway = gw): Promise<Json> {
  return waitFor(`task status ${status}`, async () => {
    const got = rpcResult(await modern('tasks/get', { taskId }, on));
    return got.status === status ? got : undefined;
  });
}

test("the upstream's question reaches the client as inputRequests, and its tasks/update answer completes the task", async () => {
  const created = rpcResult(await modern('tools/call', { name: 'interview', arguments: { topic: 'voles' } }));
  expect(created).toMatchObject({ resultType: 'task', status: 'working' });
  const taskId = created.taskId as string;

  const asking = await untilStatus(taskId, 'input_required');
  expect(isDetailedTask(asking)).toBe(true);
  const requests = asking.inputRequests as Record<string, { method: string; params: Json }>;
  const keys = Object.keys(requests);
  expect(keys).toHaveLength(1);
  const key = keys[0]!;
  expect(requests[key]).toMatchObject({ method: 'elicitation/create', params: { mode: 'form', message: 'Who is asking about voles?' } });

  // A malformed answer is refused naming the field, and the question stays open.
  const bad = rpcError(await modern('tasks/update', { taskId, inputResponses: { [key]: 'Ada' } }));
  expect(bad.code).toBe(-32602);
  expect(bad.message).toContain(`params.inputResponses.${key} must be an object`);
  expect(rpcError(await modern('tasks/update', { taskId, inputResponses: [1] })).message).toContain(
    'params.inputResponses must be an object',
  );
  expect(rpcResult(await modern('tasks/get', { taskId }))).toMatchObject({
    status: 'input_required',
    inputRequests: { [key]: { method: 'elicitation/create' } },
  });

  // Keys that are not outstanding are ignored; the outstanding one goes to the upstream.
  expect(
    rpcResult(
      await modern('tasks/update', {
        taskId,
        inputResponses: { [key]: { action: 'accept', content: { name: 'Ada' } }, other: { action: 'decline' } },
      }),
    ),
  ).toMatchObject({ resultType: 'complete' });
  const done = await untilStatus(taskId, 'completed');
  expect(done.inputRequests).toBeUndefined();
  expect(done.result).toMatchObject({ content: [{ type: 'text', text: 'Hello, Ada' }] });
});

test('a declined question ends the task as the upstream decides', async () => {
  const created = rpcResult(await modern('tools/call', { name: 'interview', arguments: { topic: 'shrews' } }));
  const taskId = created.taskId as string;
  const asking = await untilStatus(taskId, 'input_required');
  const [key] = Object.keys(asking.inputRequests as Json);
  rpcResult(await modern('tasks/update', { taskId, inputResponses: { [key!]: { action: 'decline' } } }));
  const done = await untilStatus(taskId, 'completed');
  expect(done.result).toMatchObject({ content: [{ type: 'text', text: 'The client chose decline' }] });
});

test('replica B lists the question replica A holds, and relays its answer there', async () => {
  const created = rpcResult(await modern('tools/call', { name: 'interview', arguments: { topic: 'moles' } }));
  const taskId = created.taskId as string;
  const onA = await untilStatus(taskId, 'input_required');
  const onB = await untilStatus(taskId, 'input_required', b);
  expect(onB.inputRequests).toEqual(onA.inputRequests);
  const [key] = Object.keys(onB.inputRequests as Json);
  // Checked where it arrives, before it travels.
  expect(rpcError(await modern('tasks/update', { taskId, inputResponses: { [key!]: 7 } }, b)).message).toContain(
    `params.inputResponses.${key} must be an object`,
  );
  rpcResult(await modern('tasks/update', { taskId, inputResponses: { [key!]: { action: 'accept', content: { name: 'Grace' } } } }, b));
  const done = await untilStatus(taskId, 'completed', b);
  expect(done.result).toMatchObject({ content: [{ type: 'text', text: 'Hello, Grace' }] });
  expect(rpcResult(await modern('tasks/get', { taskId }, b)).inputRequests).toBeUndefined();
});

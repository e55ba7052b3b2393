/**
 * Issue 42 item 4 for a 2026-07-28 upstream: its own tasks (the tasks extension, SEP-2663)
 * proxied. The upstream is an SDK v2 server that makes a task only when the request declares the
 * extension. Registered through the registry, discovered as 2026-07-28, published, and driven
 * through two built gateways: a 2026-07-28 client declaring the extension gets a `ut2.` handle
 * whose tasks/get and tasks/cancel either replica forwards; a 2025-11-25 client's task-augmented
 * call (SDK 1.x) gets the same as a 2025-11-25 task with tasks/get, tasks/result, tasks/cancel;
 * a client that takes no task, and the v2 client's plain call, get the synchronous answer and the
 * upstream never sees the extension declared; another tenant's caller finds nothing.
 */
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import {
  api,
  cleanRedis,
  createDatabase,
  createTenant,
  registerAndDiscover,
  startGateway,
  startRegistry,
  testEnv,
  until,
  type Proc,
} from './support/harness';
import { startTasksUpstream, type TasksUpstream } from './support/tasks-upstream';

jest.setTimeout(90_000);

const TASKS = 'io.modelcontextprotocol/tasks';
/** A Standard Schema taking any result as is (the v2 client has no schema of the extension's methods). */
const ANY_RESULT = { '~standard': { version: 1, vendor: 'e2e', validate: (value: unknown) => ({ value }) } } as const;

describe("a 2026-07-28 upstream's own tasks through the registry and two gateways", () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let gateways: Proc[] = [];
  let upstream: TasksUpstream;
  const clients: Array<{ close(): Promise<void> }> = [];

  beforeAll(async () => {
    upstream = await startTasksUpstream();
    db = await createDatabase();
    registry = await startRegistry(env, db.url);
    for (const tenant of ['acme', 'other']) {
      const key = await createTenant(registry.url, env.operatorKey, tenant);
      const server = await registerAndDiscover(registry.url, key, { id: 'lab', name: 'Lab', url: upstream.url });
      expect(server.health).toBe('ok');
      expect((await api(registry.url, key, 'POST', '/v1/publications', { serverId: 'lab', items: [{ name: 'research' }] })).status).toBe(
        200,
      );
    }
    gateways = [
      await startGateway(env, registry.url, { UPSTREAM_TIMEOUT_MS: '10000' }),
      await startGateway(env, registry.url, { UPSTREAM_TIMEOUT_MS: '10000' }),
    ];
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await Promise.all(gateways.map((g) => g.stop()));
    await registry?.stop();
    await upstream?.close();
    await db?.drop();
    await cleanRedis(env);
  });

  let nextId = 1;
  /** One 2026-07-28 request (raw: the v2 client refuses a `resultType: "task"` answer), declaring the tasks extension unless told not to. */
  async function modern(
    gateway: Proc,
    method: string,
    params: Record<string, unknown>,
    o: { declare?: boolean; tenant?: string } = {},
  ): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string } }> {
    const name = (params.taskId ?? params.name) as string | undefined;
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'e2e-modern-tasks', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': o.declare === false ? {} : { extensions: { [TASKS]: {} } },
    };
    const res = await fetch(`${gateway.url}/t/${o.tenant ?? 'acme'}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        ...(name === undefined ? {} : { 'mcp-name': name }),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: meta } }),
    });
    return (await res.json()) as { result?: Record<string, unknown>; error?: { code: number; message: string } };
  }

  async function result(gateway: Proc, method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const answer = await modern(gateway, method, params);
    if (!answer.result) throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
    return answer.result;
  }

  async function legacyClient(gateway: Proc, tenant = 'acme'): Promise<Client> {
    const c = new Client({ name: 'e2e-legacy-tasks', version: '1.0.0' });
    await c.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/t/${tenant}/mcp`)));
    clients.push(c);
    return c;
  }

  it('a 2026-07-28 client declaring the extension gets a handle either replica polls to completed, result inlined', async () => {
    const [a, b] = gateways as [Proc, Proc];
    const created = await until(
      'the published tool on gateway A',
      async () => (await modern(a, 'tools/call', { name: 'research', arguments: { topic: 'owls' } })).result,
    );
    expect(created).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 120_000, pollIntervalMs: 100 });
    const taskId = created.taskId as string;
    expect(taskId.startsWith('ut2.')).toBe(true);
    // The upstream's own id is sealed, not shown.
    const upstreamTask = upstream.tasks.at(-1)!;
    expect(taskId).not.toContain(upstreamTask.taskId);
    expect(upstream.seen.filter((s) => s.method === 'tools/call').at(-1)).toEqual({ method: 'tools/call', declaredTasks: true });

    expect(await result(b, 'tasks/get', { taskId })).toMatchObject({ resultType: 'complete', taskId, status: 'working' });
    // The v2 client declaring the extension reads it too.
    const v2 = new ModernClient({ name: 'e2e-v2-tasks', version: '1.0.0' }, { capabilities: { extensions: { [TASKS]: {} } } });
    await v2.connect(new ModernTransport(new URL(`${b.url}/t/acme/mcp`)));
    clients.push(v2);
    const discovered = await result(b, 'server/discover', {});
    expect((discovered.capabilities as { extensions?: unknown }).extensions).toEqual({ [TASKS]: {} });
    expect(await v2.request({ method: 'tasks/get', params: { taskId } }, ANY_RESULT)).toMatchObject({ taskId, status: 'working' });
    upstream.finish('owls');
    const done = await until('the task to complete', async () => {
      const got = await result(b, 'tasks/get', { taskId });
      return got.status === 'completed' ? got : undefined;
    });
    expect(done.result).toEqual({ content: [{ type: 'text', text: 'report on owls' }] });
    expect(done.taskId).toBe(taskId);
  });

  it('tasks/cancel through the other replica reaches the upstream', async () => {
    const [a, b] = gateways as [Proc, Proc];
    const created = await result(a, 'tools/call', { name: 'research', arguments: { topic: 'bats' } });
    const upstreamId = upstream.tasks.at(-1)!.taskId;
    expect(await result(b, 'tasks/cancel', { taskId: created.taskId as string })).toMatchObject({ resultType: 'complete' });
    expect(upstream.cancels).toContain(upstreamId);
    expect(await result(a, 'tasks/get', { taskId: created.taskId as string })).toMatchObject({ status: 'cancelled' });
  });

  it("another tenant's caller, an altered handle and a request without the extension are refused", async () => {
    const [a, b] = gateways as [Proc, Proc];
    const created = await result(a, 'tools/call', { name: 'research', arguments: { topic: 'newts' } });
    const taskId = created.taskId as string;
    const foreign = await modern(b, 'tasks/get', { taskId }, { tenant: 'other' });
    expect(foreign.error).toMatchObject({ code: -32602, message: expect.stringContaining('Task not found') });
    const altered = `${taskId.slice(0, -2)}${taskId.endsWith('A') ? 'B' : 'A'}A`;
    expect((await modern(b, 'tasks/get', { taskId: altered })).error).toMatchObject({ code: -32602 });
    const undeclared = await modern(b, 'tasks/get', { taskId }, { declare: false });
    expect(undeclared.error).toMatchObject({ code: -32021, message: expect.stringContaining(TASKS) });
    expect(upstream.cancels).not.toContain(upstream.tasks.at(-1)!.taskId);
    upstream.finish('newts');
  });

  it('a call that cannot take a task is answered at once, and the upstream never sees the extension', async () => {
    const a = gateways[0]!;
    const before = upstream.tasks.length;
    const plain = await modern(a, 'tools/call', { name: 'research', arguments: { topic: 'moles' } }, { declare: false });
    expect(plain.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'quick note on moles' }] });
    expect(upstream.seen.at(-1)).toEqual({ method: 'tools/call', declaredTasks: false });
    // The v2 client (2026-07-28, no extension declared) and a 2025-11-25 call without params.task.
    const v2 = new ModernClient({ name: 'e2e-v2', version: '1.0.0' });
    await v2.connect(new ModernTransport(new URL(`${a.url}/t/acme/mcp`)));
    clients.push(v2);
    expect((await v2.callTool({ name: 'research', arguments: { topic: 'voles' } })).content).toEqual([
      { type: 'text', text: 'quick note on voles' },
    ]);
    expect(upstream.seen.at(-1)).toEqual({ method: 'tools/call', declaredTasks: false });
    const legacy = await legacyClient(a);
    expect((await legacy.callTool({ name: 'research', arguments: { topic: 'mice' } })).content).toEqual([
      { type: 'text', text: 'quick note on mice' },
    ]);
    expect(upstream.seen.at(-1)).toEqual({ method: 'tools/call', declaredTasks: false });
    expect(upstream.tasks.length).toBe(before);
  });

  it("a 2025-11-25 client's task-augmented call becomes the upstream's task: tasks/get, tasks/result and tasks/cancel on either replica", async () => {
    const [onA, onB] = [await legacyClient(gateways[0]!), await legacyClient(gateways[1]!)];
    const created = await onA.request(
      { method: 'tools/call', params: { name: 'research', arguments: { topic: 'larks' }, task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
    );
    const taskId = created.task.taskId;
    expect(taskId.startsWith('ut2.')).toBe(true);
    expect(created.task).toMatchObject({ status: 'working', ttl: 120_000, pollInterval: 100 });
    expect(await onB.experimental.tasks.getTask(taskId)).toMatchObject({ taskId, status: 'working' });
    // tasks/result waits for the end (polling the upstream), then answers the result: the task
    // ends only once that wait has polled the upstream at least once.
    const polls = upstream.seen.filter((s) => s.method === 'tasks/get').length;
    const waiting = onB.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    await until('tasks/result polling the upstream', () => upstream.seen.filter((s) => s.method === 'tasks/get').length > polls);
    upstream.finish('larks');
    const done = await waiting;
    expect(done.content).toEqual([{ type: 'text', text: 'report on larks' }]);
    expect(done._meta?.['io.modelcontextprotocol/related-task']).toEqual({ taskId });
    expect((await onA.experimental.tasks.getTask(taskId)).status).toBe('completed');

    const second = await onA.request(
      { method: 'tools/call', params: { name: 'research', arguments: { topic: 'wrens' }, task: {} } },
      CreateTaskResultSchema,
    );
    const upstreamId = upstream.tasks.at(-1)!.taskId;
    expect(await onB.experimental.tasks.cancelTask(second.task.taskId)).toMatchObject({ taskId: second.task.taskId, status: 'cancelled' });
    expect(upstream.cancels).toContain(upstreamId);

    const foreign = await (await legacyClient(gateways[1]!, 'other')).experimental.tasks.getTask(taskId).catch((err: unknown) => err);
    expect(foreign).toBeInstanceOf(McpError);
    expect(foreign).toMatchObject({ code: -32602, message: expect.stringContaining('Task not found') });
  });
});

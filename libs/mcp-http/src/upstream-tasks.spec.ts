import type { CompiledCatalog, Route } from '@switchboard/catalog';
import { McpError } from '@switchboard/protocol';
import type { InvokeContext } from './invoke-context';
import type { UpstreamInvoker, UpstreamTaskRequest } from './upstream-invoker';
import { StateSealer } from './state-sealer';
import { UpstreamTasks, taskParams } from './upstream-tasks';

type UpstreamRoute = Extract<Route, { kind: 'upstream' }>;

const route: UpstreamRoute = {
  kind: 'upstream',
  serverId: 'lab',
  url: 'http://upstream.test/mcp',
  upstreamName: 'research',
  protocol: 'legacy',
};
/** Only `tool()` is read by the proxy: which route a published tool name has now. */
const catalogWith = (routes: Record<string, Route>): CompiledCatalog =>
  ({ tool: (name: string) => (routes[name] ? { entry: { route: routes[name] } } : undefined) }) as unknown as CompiledCatalog;
const catalog = catalogWith({ research: route });
const ctx = { tenantId: 't1', signal: new AbortController().signal } as InvokeContext;
const scope = { tenantId: 't1', subject: 'alice' };

/** An upstream that answers every task request with `answer(request)`; records what it got. */
function upstreamAnswering(answer: (r: UpstreamTaskRequest) => Record<string, unknown>, session = 'sess-1') {
  const seen: UpstreamTaskRequest[] = [];
  const invoker: UpstreamInvoker = {
    callTool: () => Promise.reject(new Error('unused')),
    readResource: () => Promise.reject(new Error('unused')),
    getPrompt: () => Promise.reject(new Error('unused')),
    upstreamTask: async (_route, request) => {
      seen.push(request);
      return { result: answer(request), session: request.session ?? session };
    },
  };
  return { invoker, seen };
}

const task = (over: Record<string, unknown> = {}) => ({
  taskId: 'up-1',
  status: 'working',
  createdAt: '2026-01-01T00:00:00Z',
  lastUpdatedAt: '2026-01-01T00:00:00Z',
  ttl: 120_000,
  pollInterval: 100,
  ...over,
});

afterEach(() => jest.useRealTimers());

describe('UpstreamTasks', () => {
  it('forwards tasks/get to the upstream session that created the task, under the handle', async () => {
    const { invoker, seen } = upstreamAnswering((r) => (r.method === 'tools/call' ? { task: task() } : task({ status: 'completed' })));
    const proxy = UpstreamTasks.of(StateSealer.ephemeral(), invoker)!;
    const created = (await proxy.create({ ...scope, tool: 'research', route, args: { topic: 'owls' } }, {}, ctx)) as {
      task: { taskId: string };
    };
    const handle = created.task.taskId;
    expect(handle.startsWith('ut1.')).toBe(true);
    expect(await proxy.legacy({ ...scope, method: 'tasks/get', params: { taskId: handle }, catalog }, ctx)).toMatchObject({
      taskId: handle,
      status: 'completed',
    });
    expect(seen[1]).toEqual({ method: 'tasks/get', params: { taskId: 'up-1' }, session: 'sess-1' });
  });

  it('finds nothing for another subject, another tenant, or a tool now routed to another server', async () => {
    const { invoker } = upstreamAnswering(() => ({ task: task() }));
    const proxy = UpstreamTasks.of(StateSealer.ephemeral(), invoker)!;
    const handle = ((await proxy.create({ ...scope, tool: 'research', route, args: {} }, {}, ctx)) as { task: { taskId: string } }).task
      .taskId;
    const moved = catalogWith({ research: { ...route, serverId: 'elsewhere' } });
    for (const [s, c] of [
      [{ tenantId: 't1', subject: 'bob' }, catalog],
      [{ tenantId: 't2', subject: 'alice' }, catalog],
      [scope, moved],
      [scope, catalogWith({})],
    ] as const) {
      await expect(proxy.legacy({ ...s, method: 'tasks/get', params: { taskId: handle }, catalog: c }, ctx)).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('Task not found'),
      });
    }
  });

  it('bounds what the upstream chooses: its task id, its session id, and how long a handle lives', async () => {
    const long = UpstreamTasks.of(StateSealer.ephemeral(), upstreamAnswering(() => ({ task: task({ taskId: 'x'.repeat(257) }) })).invoker)!;
    await expect(long.create({ ...scope, tool: 'research', route, args: {} }, {}, ctx)).rejects.toThrow(
      /taskId is not a string of 1 to 256 characters/,
    );
    const session = UpstreamTasks.of(StateSealer.ephemeral(), upstreamAnswering(() => ({ task: task() }), 's'.repeat(513)).invoker)!;
    await expect(session.create({ ...scope, tool: 'research', route, args: {} }, {}, ctx)).rejects.toThrow(/session id is longer than 512/);
    const status = UpstreamTasks.of(StateSealer.ephemeral(), upstreamAnswering(() => ({ task: task({ status: 'done' }) })).invoker)!;
    await expect(status.create({ ...scope, tool: 'research', route, args: {} }, {}, ctx)).rejects.toBeInstanceOf(McpError);

    // An upstream that claims to keep its task for a year: the handle still dies within a day.
    jest.useFakeTimers({ now: Date.parse('2026-01-01T00:00:00Z') });
    const forever = UpstreamTasks.of(
      StateSealer.ephemeral(),
      upstreamAnswering((r) => (r.method === 'tools/call' ? { task: task({ ttl: 365 * 24 * 3600_000 }) } : task())).invoker,
    )!;
    const handle = ((await forever.create({ ...scope, tool: 'research', route, args: {} }, {}, ctx)) as { task: { taskId: string } }).task
      .taskId;
    jest.setSystemTime(Date.parse('2026-01-01T23:59:00Z'));
    await expect(forever.legacy({ ...scope, method: 'tasks/get', params: { taskId: handle }, catalog }, ctx)).resolves.toMatchObject({
      status: 'working',
    });
    jest.setSystemTime(Date.parse('2026-01-02T00:01:00Z'));
    await expect(forever.legacy({ ...scope, method: 'tasks/get', params: { taskId: handle }, catalog }, ctx)).rejects.toMatchObject({
      code: -32602,
    });
  });

  it('checks params.task and caps its ttl', () => {
    expect(taskParams({})).toEqual({});
    expect(taskParams({ ttl: 5_000, extra: 1 })).toEqual({ ttl: 5_000 });
    expect(taskParams({ ttl: 10 ** 12 })).toEqual({ ttl: 24 * 3600_000 });
    expect(() => taskParams('soon')).toThrow('params.task must be an object');
    expect(() => taskParams({ ttl: 1.5 })).toThrow('params.task.ttl must be a positive integer');
  });

  it('answers a 2026-07-28 tasks/get with the result inlined once the upstream task completed', async () => {
    const { invoker } = upstreamAnswering((r) =>
      r.method === 'tools/call'
        ? { task: task() }
        : r.method === 'tasks/get'
          ? task({ status: 'completed' })
          : { content: [{ type: 'text', text: 'done' }], _meta: { 'io.modelcontextprotocol/related-task': { taskId: 'up-1' } } },
    );
    const proxy = UpstreamTasks.of(StateSealer.ephemeral(), invoker)!;
    const created = (await proxy.create({ ...scope, tool: 'research', route, args: {} }, {}, ctx)) as {
      task: Parameters<typeof UpstreamTasks.modernCreated>[0];
    };
    expect(UpstreamTasks.modernCreated(created.task)).toMatchObject({
      resultType: 'task',
      status: 'working',
      ttlMs: 120_000,
      pollIntervalMs: 100,
    });
    const got = await proxy.modern({ ...scope, method: 'tasks/get', params: { taskId: created.task.taskId }, catalog }, ctx);
    expect(got).toMatchObject({ taskId: created.task.taskId, status: 'completed', result: { content: [{ type: 'text', text: 'done' }] } });
    expect((got.result as { _meta: Record<string, unknown> })._meta['io.modelcontextprotocol/related-task']).toEqual({
      taskId: created.task.taskId,
    });
    await expect(
      proxy.modern({ ...scope, method: 'tasks/update', params: { taskId: created.task.taskId, inputResponses: {} }, catalog }, ctx),
    ).rejects.toMatchObject({ code: -32602 });
  });
});

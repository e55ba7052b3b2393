import type { CompiledCatalog, Route } from '@switchboard/catalog';
import type { InvokeContext } from './invoke-context';
import type { UpstreamInvoker, UpstreamTaskRequest } from './upstream-invoker';
import { ModernUpstreamTasks, UNANSWERABLE_INPUT, takesModernUpstreamTask } from './modern-upstream-tasks';
import { StateSealer } from './state-sealer';

type UpstreamRoute = Extract<Route, { kind: 'upstream' }>;

const route: UpstreamRoute = {
  kind: 'upstream',
  serverId: 'lab',
  url: 'http://upstream.test/mcp',
  upstreamName: 'research',
  protocol: 'modern',
};
/** Only `tool()` is read by the proxy: which route a published tool name has now. */
const catalogWith = (routes: Record<string, Route>): CompiledCatalog =>
  ({ tool: (name: string) => (routes[name] ? { entry: { route: routes[name] } } : undefined) }) as unknown as CompiledCatalog;
const catalog = catalogWith({ research: route });
const ctx = { tenantId: 't1', signal: new AbortController().signal } as InvokeContext;
const scope = { tenantId: 't1', subject: 'alice' };

/** An upstream answering every task request with `answer(request)`; records what it got. */
function upstreamAnswering(answer: (r: UpstreamTaskRequest) => Record<string, unknown>) {
  const seen: UpstreamTaskRequest[] = [];
  const invoker: UpstreamInvoker = {
    callTool: () => Promise.reject(new Error('unused')),
    readResource: () => Promise.reject(new Error('unused')),
    getPrompt: () => Promise.reject(new Error('unused')),
    upstreamTask: async (_route, request) => {
      seen.push(request);
      return { result: answer(request), session: undefined };
    },
  };
  return { invoker, seen };
}

const task = (over: Record<string, unknown> = {}) => ({
  taskId: 'up-1',
  status: 'working',
  createdAt: '2026-01-01T00:00:00Z',
  lastUpdatedAt: '2026-01-01T00:00:00Z',
  ttlMs: 120_000,
  pollIntervalMs: 100,
  ...over,
});
const created = (over: Record<string, unknown> = {}) => ({ resultType: 'task', ...task(over) });

async function handleOf(proxy: ModernUpstreamTasks): Promise<string> {
  return (await proxy.call({ ...scope, tool: 'research', route, args: { topic: 'owls' } }, ctx, 'modern')).taskId as string;
}

describe('ModernUpstreamTasks', () => {
  it('seals the upstream task id into a ut2. handle and forwards tasks/get with the upstream id', async () => {
    const { invoker, seen } = upstreamAnswering((r) =>
      r.method === 'tools/call'
        ? created()
        : { ...task({ status: 'completed' }), result: { content: [], resultType: 'complete' }, resultType: 'complete' },
    );
    const proxy = ModernUpstreamTasks.of(StateSealer.ephemeral(), invoker)!;
    const handle = await handleOf(proxy);
    expect(handle.startsWith('ut2.')).toBe(true);
    expect(handle).not.toContain('up-1');
    expect(await proxy.modern({ ...scope, method: 'tasks/get', params: { taskId: handle }, catalog }, ctx)).toEqual({
      ...task({ status: 'completed', taskId: handle }),
      result: { content: [] },
    });
    expect(seen[1]).toEqual({ method: 'tasks/get', params: { taskId: 'up-1' } });
  });

  it('answers a call the upstream did not make a task of as the upstream did', async () => {
    const { invoker } = upstreamAnswering(() => ({ content: [{ type: 'text', text: 'now' }], resultType: 'complete' }));
    const proxy = ModernUpstreamTasks.of(StateSealer.ephemeral(), invoker)!;
    expect(await proxy.call({ ...scope, tool: 'research', route, args: {} }, ctx, 'legacy')).toEqual({
      content: [{ type: 'text', text: 'now' }],
    });
  });

  it('finds nothing for another subject, another tenant, or a tool now routed elsewhere', async () => {
    const { invoker } = upstreamAnswering(() => created());
    const proxy = ModernUpstreamTasks.of(StateSealer.ephemeral(), invoker)!;
    const handle = await handleOf(proxy);
    for (const [s, c] of [
      [{ tenantId: 't1', subject: 'bob' }, catalog],
      [{ tenantId: 't2', subject: 'alice' }, catalog],
      [scope, catalogWith({ research: { ...route, serverId: 'elsewhere' } })],
      [scope, catalogWith({ research: { ...route, protocol: 'legacy' } })],
      [scope, catalogWith({})],
    ] as const) {
      await expect(proxy.modern({ ...s, method: 'tasks/get', params: { taskId: handle }, catalog: c }, ctx)).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('Task not found'),
      });
    }
    // A handle of another gateway key is not ours either.
    const foreign = ModernUpstreamTasks.of(StateSealer.ephemeral(), invoker)!;
    await expect(foreign.legacy({ ...scope, method: 'tasks/get', params: { taskId: handle }, catalog }, ctx)).rejects.toMatchObject({
      code: -32602,
    });
  });

  it('refuses an upstream task id longer than 256 characters and a status outside the extension', async () => {
    for (const bad of [created({ taskId: 'x'.repeat(257) }), created({ status: 'paused' })]) {
      const proxy = ModernUpstreamTasks.of(StateSealer.ephemeral(), upstreamAnswering(() => bad).invoker)!;
      await expect(proxy.call({ ...scope, tool: 'research', route, args: {} }, ctx, 'modern')).rejects.toMatchObject({
        code: -32603,
        message: expect.stringContaining('Upstream server lab answered a task request wrongly'),
      });
    }
    const fits = ModernUpstreamTasks.of(StateSealer.ephemeral(), upstreamAnswering(() => created({ taskId: 'x'.repeat(256) })).invoker)!;
    expect((await fits.call({ ...scope, tool: 'research', route, args: {} }, ctx, 'modern')).resultType).toBe('task');
  });
});

describe('ModernUpstreamTasks for each era', () => {
  it('shows a 2025-11-25 client a task waiting for input it cannot give as working, and why', async () => {
    const { invoker } = upstreamAnswering((r) => (r.method === 'tools/call' ? created() : task({ status: 'input_required' })));
    const proxy = ModernUpstreamTasks.of(StateSealer.ephemeral(), invoker)!;
    const made = await proxy.call({ ...scope, tool: 'research', route, args: {} }, ctx, 'legacy');
    const handle = (made.task as { taskId: string }).taskId;
    expect(made.task).toMatchObject({ status: 'working', ttl: 120_000, pollInterval: 100 });
    expect(await proxy.legacy({ ...scope, method: 'tasks/get', params: { taskId: handle }, catalog }, ctx)).toMatchObject({
      taskId: handle,
      status: 'working',
      statusMessage: UNANSWERABLE_INPUT,
    });
  });

  it("bounds a 2025-11-25 tasks/result's wait, and answers a failed task's error", async () => {
    let status = 'working';
    const { invoker } = upstreamAnswering((r) =>
      r.method === 'tools/call'
        ? created()
        : { ...task({ status }), ...(status === 'failed' ? { error: { code: -32000, message: 'lab on fire' } } : {}) },
    );
    const proxy = ModernUpstreamTasks.of(StateSealer.ephemeral(), invoker, 250)!;
    const handle = ((await proxy.call({ ...scope, tool: 'research', route, args: {} }, ctx, 'legacy')).task as { taskId: string }).taskId;
    await expect(proxy.legacy({ ...scope, method: 'tasks/result', params: { taskId: handle }, catalog }, ctx)).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining('is still working after 250 ms'),
    });
    status = 'failed';
    await expect(proxy.legacy({ ...scope, method: 'tasks/result', params: { taskId: handle }, catalog }, ctx)).rejects.toMatchObject({
      code: -32000,
      message: 'The upstream task failed: lab on fire',
    });
  });

  it("passes a waiting task's inputRequests to a 2026-07-28 client, at most 16 of them", async () => {
    let asks = 16;
    const inputRequests = () =>
      Object.fromEntries(
        Array.from({ length: asks }, (_, i) => [
          `q${i}`,
          { method: 'elicitation/create', params: { message: 'size?', requestedSchema: { type: 'object', properties: {} } } },
        ]),
      );
    const { invoker } = upstreamAnswering((r) =>
      r.method === 'tools/call' ? created() : { ...task({ status: 'input_required' }), inputRequests: inputRequests() },
    );
    const proxy = ModernUpstreamTasks.of(StateSealer.ephemeral(), invoker)!;
    const handle = await handleOf(proxy);
    expect(
      Object.keys(
        (await proxy.modern({ ...scope, method: 'tasks/get', params: { taskId: handle }, catalog }, ctx)).inputRequests as object,
      ),
    ).toHaveLength(16);
    asks = 17;
    await expect(proxy.modern({ ...scope, method: 'tasks/get', params: { taskId: handle }, catalog }, ctx)).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining('17 input requests at once (at most 16)'),
    });
  });

  it('forwards tasks/update with its inputResponses, and refuses one without', async () => {
    const { invoker, seen } = upstreamAnswering((r) => (r.method === 'tools/call' ? created() : {}));
    const proxy = ModernUpstreamTasks.of(StateSealer.ephemeral(), invoker)!;
    const handle = await handleOf(proxy);
    await expect(proxy.modern({ ...scope, method: 'tasks/update', params: { taskId: handle }, catalog }, ctx)).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('params.inputResponses'),
    });
    expect(
      await proxy.modern(
        { ...scope, method: 'tasks/update', params: { taskId: handle, inputResponses: { a: { action: 'accept' } } }, catalog },
        ctx,
      ),
    ).toEqual({});
    expect(seen.at(-1)).toEqual({ method: 'tasks/update', params: { taskId: 'up-1', inputResponses: { a: { action: 'accept' } } } });
  });

  it('takes a task only for a caller that can take one, of a 2026-07-28 upstream', () => {
    expect(takesModernUpstreamTask(route, 'modern', true, undefined)).toBe(true);
    expect(takesModernUpstreamTask(route, 'modern', false, undefined)).toBe(false);
    expect(takesModernUpstreamTask(route, 'legacy', false, {})).toBe(true);
    expect(takesModernUpstreamTask(route, 'legacy', false, undefined)).toBe(false);
    expect(takesModernUpstreamTask({ ...route, protocol: 'legacy' }, 'modern', true, undefined)).toBe(false);
  });
});

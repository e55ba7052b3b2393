import type { InputRequiredResult, ToolCallResult } from '@switchboard/catalog';
import { McpError } from '@switchboard/protocol';
import { MemoryTaskStore } from './memory-task-store';
import { TaskManager, taskKey, type TaskManagerOptions, type TaskWork } from './task-manager';
import type { StoredTask, TaskCaps, TaskCreateRefusal } from './task-store';

/** A memory store that reports each create's outcome (so a test acts once the manager decided). */
class WatchedStore extends MemoryTaskStore {
  onCreate: (refusal: TaskCreateRefusal | undefined) => void = () => undefined;
  override async create(key: string, task: StoredTask, caps: TaskCaps): Promise<TaskCreateRefusal | undefined> {
    const refusal = await super.create(key, task, caps);
    this.onCreate(refusal);
    return refusal;
  }
}

const scope = { tenantId: 't1', subject: 'alice' };
const text = (t: string): ToolCallResult => ({ content: [{ type: 'text', text: t }] });

function deferred<T>(): { promise: Promise<T>; resolve(v: T): void; reject(e: unknown): void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

function manager(options: TaskManagerOptions = {}): TaskManager {
  return new TaskManager({ taskAfterMs: 10, ...options });
}

async function until(tasks: TaskManager, taskId: string, status: string, s = scope): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const task = await tasks.handle('tasks/get', { taskId }, s, true);
    if (task.status === status) return task;
    if (Date.now() > deadline) throw new Error(`task stayed ${String(task.status)}, wanted ${status}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Work that waits until released (or aborted), then returns `result`. */
function gated(result: () => ToolCallResult | InputRequiredResult): { work: TaskWork; release(): void; signals: AbortSignal[] } {
  const gate = deferred<void>();
  const signals: AbortSignal[] = [];
  const work: TaskWork = async (_input, signal) => {
    signals.push(signal);
    await Promise.race([gate.promise, new Promise((r) => signal.addEventListener('abort', r, { once: true }))]);
    return result();
  };
  return { work, release: () => gate.resolve(), signals };
}

const never = new AbortController().signal;

test('a call that settles before the threshold is answered directly, not as a task', async () => {
  const tasks = manager({ taskAfterMs: 5_000 });
  await expect(tasks.run(scope, async () => text('quick'), { responses: {} }, never)).resolves.toEqual(text('quick'));
  await expect(tasks.run(scope, async () => Promise.reject(new McpError(-32603, 'boom')), { responses: {} }, never)).rejects.toThrow(
    'boom',
  );
});

test('a slow call becomes a task: working at once (durable), then completed with the result inlined', async () => {
  const tasks = manager();
  const g = gated(() => text('done'));
  const created = (await tasks.run(scope, g.work, { responses: {} }, never)) as unknown as Record<string, unknown>;
  expect(created).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 600_000, pollIntervalMs: 1_000 });
  expect(created).not.toHaveProperty('result');
  expect(String(created.taskId)).toMatch(/^[A-Za-z0-9_-]{22}$/);
  const working = await tasks.handle('tasks/get', { taskId: created.taskId }, scope, true);
  expect(working).toMatchObject({ taskId: created.taskId, status: 'working' });
  g.release();
  const done = await until(tasks, String(created.taskId), 'completed');
  expect(done.result).toEqual(text('done'));
  expect(done).not.toHaveProperty('error');
});

test('a tool error completes the task (isError), a protocol error fails it with the JSON-RPC error and no result', async () => {
  const tasks = manager();
  const toolError = gated(() => ({ isError: true, content: [{ type: 'text', text: 'nope' }] }));
  const a = (await tasks.run(scope, toolError.work, { responses: {} }, never)) as { taskId: string };
  toolError.release();
  expect((await until(tasks, a.taskId, 'completed')).result).toMatchObject({ isError: true });

  const gate = deferred<void>();
  const b = (await tasks.run(
    scope,
    async () => (await gate.promise, Promise.reject(new McpError(-32099, 'upstream broke', { why: 1 }))),
    { responses: {} },
    never,
  )) as { taskId: string };
  gate.resolve();
  const failed = await until(tasks, b.taskId, 'failed');
  expect(failed.error).toEqual({ code: -32099, message: 'upstream broke', data: { why: 1 } });
  expect(failed).not.toHaveProperty('result');

  const gate2 = deferred<void>();
  const c = (await tasks.run(
    scope,
    async () => (await gate2.promise, Promise.reject(new Error('secret stack'))),
    { responses: {} },
    never,
  )) as { taskId: string };
  gate2.resolve();
  expect((await until(tasks, c.taskId, 'failed')).error).toEqual({ code: -32603, message: 'Internal error' });
});

test('tasks/cancel aborts the work and settles it cancelled; a second cancel is the same empty ack', async () => {
  const tasks = manager();
  const g = gated(() => text('too late'));
  const created = (await tasks.run(scope, g.work, { responses: {} }, never)) as { taskId: string };
  await expect(tasks.handle('tasks/cancel', { taskId: created.taskId }, scope, true)).resolves.toEqual({});
  await until(tasks, created.taskId, 'cancelled');
  expect(g.signals[0]!.aborted).toBe(true);
  await expect(tasks.handle('tasks/cancel', { taskId: created.taskId }, scope, true)).resolves.toEqual({});
  expect(tasks.runningHere).toBe(0);
});

test('input inside a task: task-unique keys, partial answers keep it input_required, unknown keys are ignored, the work resumes with the answers', async () => {
  const tasks = manager();
  const seen: Array<Record<string, unknown>> = [];
  const start = deferred<void>();
  const work: TaskWork = async (input) => {
    seen.push(input.responses);
    if (Object.keys(input.responses).length === 0) {
      await start.promise;
      return {
        resultType: 'input_required',
        inputRequests: {
          a: { method: 'elicitation/create', params: { message: 'a?' } },
          b: { method: 'elicitation/create', params: { message: 'b?' } },
        },
        requestState: 's1',
      };
    }
    return text(`got ${JSON.stringify(input.responses)} ${input.requestState}`);
  };
  const created = (await tasks.run(scope, work, { responses: {} }, never)) as { taskId: string };
  start.resolve();
  const parked = await until(tasks, created.taskId, 'input_required');
  expect(Object.keys(parked.inputRequests as object)).toEqual(['1.a', '1.b']);

  await expect(
    tasks.handle('tasks/update', { taskId: created.taskId, inputResponses: { '1.a': { action: 'accept' }, nope: { x: 1 } } }, scope, true),
  ).resolves.toEqual({});
  const partial = await tasks.handle('tasks/get', { taskId: created.taskId }, scope, true);
  expect(partial.status).toBe('input_required');
  expect(Object.keys(partial.inputRequests as object)).toEqual(['1.b']);

  await tasks.handle('tasks/update', { taskId: created.taskId, inputResponses: { '1.b': { action: 'decline' } } }, scope, true);
  const done = await until(tasks, created.taskId, 'completed');
  expect(JSON.stringify(done.result)).toContain('{\\"a\\":{\\"action\\":\\"accept\\"},\\"b\\":{\\"action\\":\\"decline\\"}} s1');
  expect(seen[1]).toEqual({ a: { action: 'accept' }, b: { action: 'decline' } });
});

test('a task is bound to tenant + subject: any other caller, and an unknown id, get -32602; an undeclared client gets -32021', async () => {
  const tasks = manager();
  const g = gated(() => text('x'));
  const { taskId } = (await tasks.run(scope, g.work, { responses: {} }, never)) as { taskId: string };
  for (const other of [
    { tenantId: 't2', subject: 'alice' },
    { tenantId: 't1', subject: 'bob' },
  ]) {
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      await expect(tasks.handle(method, { taskId, inputResponses: {} }, other, true)).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('Task not found'),
      });
    }
  }
  expect((await tasks.handle('tasks/get', { taskId }, scope, true)).status).toBe('working');
  await expect(tasks.handle('tasks/get', { taskId: 'made-up' }, scope, true)).rejects.toMatchObject({ code: -32602 });
  await expect(tasks.handle('tasks/get', { taskId }, scope, false)).rejects.toMatchObject({
    code: -32021,
    httpStatus: 400,
    data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
  });
  await expect(tasks.handle('tasks/get', { taskId: 5 }, scope, true)).rejects.toMatchObject({
    code: -32602,
    message: expect.stringContaining('params.taskId'),
  });
  await expect(tasks.handle('tasks/get', { taskId: 'x'.repeat(300) }, scope, true)).rejects.toMatchObject({ code: -32602 });
  await expect(tasks.handle('tasks/update', { taskId, inputResponses: 'no' }, scope, true)).rejects.toMatchObject({
    code: -32602,
    message: expect.stringContaining('params.inputResponses'),
  });
  expect(taskKey(scope, taskId)).not.toBe(taskKey({ tenantId: 't1', subject: 'bob' }, taskId));
  g.release();
});

test('per-tenant live cap: past it a slow call is answered on its request (no task); other tenants are unaffected', async () => {
  const store = new WatchedStore();
  const tasks = manager({ maxLive: 1, store });
  const first = gated(() => text('first'));
  expect(await tasks.run(scope, first.work, { responses: {} }, never)).toMatchObject({ resultType: 'task' });
  const second = gated(() => text('second'));
  const refusals: unknown[] = [];
  // Released once the manager tried to store it: not a task, so the answer waits for the work itself.
  store.onCreate = (refusal) => (refusals.push(refusal), second.release());
  await expect(tasks.run(scope, second.work, { responses: {} }, never)).resolves.toEqual(text('second'));
  expect(refusals).toEqual(['live-cap']);
  store.onCreate = () => undefined;
  const otherTenant = gated(() => text('other'));
  expect(await tasks.run({ tenantId: 't2', subject: '' }, otherTenant.work, { responses: {} }, never)).toMatchObject({
    resultType: 'task',
  });
  first.release();
  otherTenant.release();
});

test('per-tenant retained cap counts finished tasks until their TTL', async () => {
  const store = new WatchedStore();
  const tasks = manager({ maxRetained: 1, store });
  const g = gated(() => text('kept'));
  const { taskId } = (await tasks.run(scope, g.work, { responses: {} }, never)) as { taskId: string };
  g.release();
  await until(tasks, taskId, 'completed');
  const next = gated(() => text('direct'));
  const refusals: unknown[] = [];
  store.onCreate = (refusal) => (refusals.push(refusal), next.release());
  await expect(tasks.run(scope, next.work, { responses: {} }, never)).resolves.toEqual(text('direct'));
  expect(refusals).toEqual(['retained-cap']);
});

test('a task expires with its TTL (then not found), an oversized result and an overlong run fail it', async () => {
  let now = 1_000_000;
  const tasks = manager({ store: new MemoryTaskStore(() => now), ttlMs: 60_000, maxResultBytes: 100 });
  const big = gated(() => text('x'.repeat(500)));
  const { taskId } = (await tasks.run(scope, big.work, { responses: {} }, never)) as { taskId: string };
  big.release();
  const failed = await until(tasks, taskId, 'failed');
  expect((failed.error as { message: string }).message).toContain('exceeds the stored-result limit of 100 bytes');
  now += 60_001;
  await expect(tasks.handle('tasks/get', { taskId }, scope, true)).rejects.toMatchObject({ code: -32602 });

  const slow = manager({ maxRunMs: 50 });
  const g = gated(() => text('never'));
  const t = (await slow.run(scope, g.work, { responses: {} }, never)) as { taskId: string };
  const stopped = await until(slow, t.taskId, 'failed');
  expect((stopped.error as { message: string }).message).toContain('ran longer than 50 ms');
});

test("the request's abort stops the work only until it became a task", async () => {
  const tasks = manager({ taskAfterMs: 5_000 });
  const request = new AbortController();
  const g = gated(() => text('aborted'));
  const answer = tasks.run(scope, g.work, { responses: {} }, request.signal);
  request.abort(new Error('client left'));
  await expect(answer).resolves.toEqual(text('aborted'));
  expect(g.signals[0]!.aborted).toBe(true);

  const fast = manager();
  const req2 = new AbortController();
  const h = gated(() => text('survives'));
  const { taskId } = (await fast.run(scope, h.work, { responses: {} }, req2.signal)) as { taskId: string };
  req2.abort();
  expect(h.signals[0]!.aborted).toBe(false);
  h.release();
  await until(fast, taskId, 'completed');
});

test('a tool that asks too often or too much at once fails its task', async () => {
  const tasks = manager({ maxInputRounds: 1, maxInputRequests: 1 });
  const gate = deferred<void>();
  const many: TaskWork = async () => {
    await gate.promise;
    return {
      resultType: 'input_required',
      inputRequests: { a: { method: 'roots/list', params: {} }, b: { method: 'roots/list', params: {} } },
    };
  };
  const { taskId } = (await tasks.run(scope, many, { responses: {} }, never)) as { taskId: string };
  gate.resolve();
  expect(((await until(tasks, taskId, 'failed')).error as { message: string }).message).toContain('2 input requests at once (at most 1)');
});

test('a task whose replica is gone (no heartbeat) is reported failed by the others, and frees its live slot', async () => {
  let now = 5_000_000;
  const store = new MemoryTaskStore(() => now);
  const owner = manager({ store, replicaId: 'owner', maxLive: 1 });
  const reader = manager({ store, replicaId: 'reader', maxLive: 1 });
  const g = gated(() => text('never'));
  const { taskId } = (await owner.run(scope, g.work, { responses: {} }, never)) as { taskId: string };
  // Alive: the other replica reads it as running.
  expect((await reader.handle('tasks/get', { taskId }, scope, true)).status).toBe('working');
  now += 16_000;
  const failed = await reader.handle('tasks/get', { taskId }, scope, true);
  expect(failed).toMatchObject({ status: 'failed', error: { code: -32603 } });
  expect((failed.error as { message: string }).message).toContain('stopped before it finished');
  const next = gated(() => text('next'));
  expect(await reader.run(scope, next.work, { responses: {} }, never)).toMatchObject({ resultType: 'task' });
  next.release();
  // The owner finishing late does not turn the reported failure into a success.
  g.release();
  await new Promise((r) => setImmediate(r));
  const deadline = Date.now() + 2_000;
  while (owner.runningHere > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  expect((await reader.handle('tasks/get', { taskId }, scope, true)).status).toBe('failed');
});

test('close records how running tasks ended before the store closes', async () => {
  const store = new MemoryTaskStore();
  const tasks = manager({ store });
  const g = gated(() => text('cut'));
  const { taskId } = (await tasks.run(scope, g.work, { responses: {} }, never)) as { taskId: string };
  const key = taskKey(scope, taskId);
  const original = store.close.bind(store);
  let atClose: unknown;
  store.close = async () => {
    atClose = (await store.read(key))?.task.status;
    return original();
  };
  await tasks.close();
  expect(atClose).toBe('failed');
});

test('a task whose stored state passes its byte budget fails with an error naming the budget; oversized inputRequests stop the work', async () => {
  const tasks = manager({ maxTaskBytes: 8_000 });
  const big = gated(() => text('r'.repeat(10_000)));
  const a = (await tasks.run(scope, big.work, { responses: {} }, never)) as { taskId: string };
  big.release();
  const failed = await until(tasks, a.taskId, 'failed');
  expect(failed.error).toMatchObject({
    message: expect.stringContaining('TASKS_MAX_TASK_BYTES'),
    data: { budget: 'TASKS_MAX_TASK_BYTES', limitBytes: 8_000 },
  });
  expect(failed).not.toHaveProperty('result');

  const asks = gated(
    () =>
      ({
        resultType: 'input_required',
        inputRequests: { q: { method: 'elicitation/create', params: { message: 'm'.repeat(10_000) } } },
      }) as unknown as InputRequiredResult,
  );
  const b = (await tasks.run(scope, asks.work, { responses: {} }, never)) as { taskId: string };
  asks.release();
  const stopped = await until(tasks, b.taskId, 'failed');
  expect(stopped).not.toHaveProperty('inputRequests');
  expect((stopped.error as { data: { budget: string } }).data.budget).toBe('TASKS_MAX_TASK_BYTES');
});

test('an anonymous caller gets a task id with a secret: the id without it, or with another, finds nothing', async () => {
  const tasks = manager();
  const g = gated(() => text('done'));
  const anonymous = { tenantId: 't1', subject: '' };
  const created = (await tasks.run(anonymous, g.work, { responses: {} }, never)) as { taskId: string };
  const [publicId, secret] = created.taskId.split('.');
  expect(secret).toMatch(/^[A-Za-z0-9_-]{22}$/);
  await expect(tasks.handle('tasks/get', { taskId: publicId }, anonymous, true)).rejects.toThrow(/Task not found/);
  await expect(tasks.handle('tasks/cancel', { taskId: `${publicId}.x` }, anonymous, true)).rejects.toThrow(/Task not found/);
  g.release();
  expect((await until(tasks, created.taskId, 'completed', anonymous)).taskId).toBe(created.taskId);
});

import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pino from 'pino';
import { TASK_RESERVE_BYTES, TaskManager, type StoredTask, type TaskWork } from '@switchboard/mcp-http';
import { RedisTaskStore } from './redis-task-store';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const NS = `unit-tasks-${randomBytes(4).toString('hex')}:`;
const caps = { maxLive: 2, maxRetained: 3 };
let store: RedisTaskStore;
let redis: Redis;
const signals: string[] = [];

function task(id: string, tenantId = 'ten', ttlMs = 60_000): StoredTask {
  const now = new Date().toISOString();
  return { taskId: id, tenantId, owner: 'r1', status: 'working', createdAt: now, lastUpdatedAt: now, ttlMs, pollIntervalMs: 1_000 };
}

beforeAll(async () => {
  store = new RedisTaskStore(REDIS_URL, NS, pino({ level: 'silent' }));
  await store.listen('r1', (key) => signals.push(key));
  redis = new Redis(REDIS_URL);
});

afterAll(async () => {
  await store.close();
  const keys = await redis.keys(`${NS}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

test('create is durable at once and expires with the TTL; writes keep that TTL and never revive an expired record', async () => {
  const first = task('id1', 'ten', 5_000);
  expect(await store.create('k1', first, caps)).toBeUndefined();
  const view = await store.read('k1');
  expect(view).toEqual({ task: first, answered: [], cancelRequested: false });
  const ttl = await redis.pttl(`${NS}sb:task:k1`);
  expect(ttl).toBeGreaterThan(0);
  expect(ttl).toBeLessThanOrEqual(5_000);
  await store.write('k1', { ...task('id1', 'ten', 5_000), status: 'completed', result: { content: [] } }, true);
  expect((await store.read('k1'))!.task.status).toBe('completed');
  expect(await redis.pttl(`${NS}sb:task:k1`)).toBeLessThanOrEqual(ttl);
  // Terminal stays terminal.
  await store.write('k1', { ...task('id1', 'ten', 5_000), status: 'working' }, false);
  expect((await store.read('k1'))!.task.status).toBe('completed');
  await store.write('gone', task('x'), false);
  expect(await redis.exists(`${NS}sb:task:gone`)).toBe(0);
  expect(await store.read('nope')).toBeUndefined();
});

test('per-tenant caps: live tasks, then retained ones; a terminal write frees the live slot; other tenants are counted apart', async () => {
  expect(await store.create('c1', task('c1', 'capped'), caps)).toBeUndefined();
  expect(await store.create('c2', task('c2', 'capped'), caps)).toBeUndefined();
  expect(await store.create('c3', task('c3', 'capped'), caps)).toBe('live-cap');
  expect(await store.create('o1', task('o1', 'another'), caps)).toBeUndefined();
  await store.write('c1', { ...task('c1', 'capped'), status: 'cancelled' }, true);
  expect(await store.create('c3', task('c3', 'capped'), caps)).toBeUndefined();
  await store.write('c2', { ...task('c2', 'capped'), status: 'cancelled' }, true);
  expect(await store.create('c4', task('c4', 'capped'), caps)).toBe('retained-cap');
  expect(await store.read('c4')).toBeUndefined();
});

test('answers are kept once per key until the owner takes them; a cancel request and a signal reach the owner', async () => {
  await store.create('q1', task('q1', 'ans'), caps);
  await store.answer('q1', { '1.a': { action: 'accept' }, '1.b': { action: 'decline' } });
  await store.answer('q1', { '1.a': { action: 'cancel' } });
  expect([...(await store.read('q1'))!.answered].sort()).toEqual(['1.a', '1.b']);
  expect(await store.take('q1', ['1.a', '1.z'])).toEqual({ '1.a': { action: 'accept' } });
  expect((await store.read('q1'))!.answered).toEqual(['1.b']);
  await store.requestCancel('q1');
  expect((await store.read('q1'))!.cancelRequested).toBe(true);
  await store.answer('missing', { a: {} });
  expect(await redis.exists(`${NS}sb:task:missing:in`)).toBe(0);

  await store.signal('r1', 'q1');
  const deadline = Date.now() + 5_000;
  while (!signals.includes('q1') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  expect(signals).toContain('q1');
});

test('a heartbeat makes a replica alive until it lapses', async () => {
  expect(await store.isAlive('hb')).toBe(false);
  await store.heartbeat('hb', 5_000);
  expect(await store.isAlive('hb')).toBe(true);
  expect(await redis.pttl(`${NS}sb:tasks-replica:hb`)).toBeLessThanOrEqual(5_000);
});

/** The tenant's byte ledger total (what the scripts counted) and the bytes Redis really holds for its tasks. */
async function bytesOf(tenant: string): Promise<{ ledger: number; held: number }> {
  const ledger = Number((await redis.hget(`${NS}sb:tasks:{${tenant}}:bytes`, '#')) ?? 0);
  let held = 0;
  for (const key of await redis.keys(`${NS}sb:task:{${tenant}}:*`)) {
    if (key.endsWith(':in')) {
      const all = await redis.hgetall(key);
      for (const [k, v] of Object.entries(all)) held += Buffer.byteLength(k) + Buffer.byteLength(v);
    } else if (!key.endsWith(':cancel')) held += Math.max(Buffer.byteLength((await redis.get(key)) ?? ''), TASK_RESERVE_BYTES);
  }
  return { ledger, held };
}

const budget = { maxLive: 100, maxRetained: 100, maxTaskBytes: 20_000, maxTenantBytes: 5 * TASK_RESERVE_BYTES };

test('one task record is bounded in bytes, every field counted: a result, inputRequests or error.data past it is refused and nothing grows', async () => {
  const k = '{big}:t1';
  expect(await store.create(k, task('t1', 'big'), budget)).toBeUndefined();
  const huge = 'x'.repeat(30_000);
  expect(
    await store.write(k, { ...task('t1', 'big'), status: 'completed', result: { content: [{ type: 'text', text: huge }] } }, true, budget),
  ).toBe('task-bytes');
  expect(
    await store.write(
      k,
      { ...task('t1', 'big'), status: 'input_required', inputRequests: { a: { method: 'elicitation/create', params: { message: huge } } } },
      false,
      budget,
    ),
  ).toBe('task-bytes');
  expect(
    await store.write(k, { ...task('t1', 'big'), status: 'failed', error: { code: -32603, message: 'm', data: huge } }, true, budget),
  ).toBe('task-bytes');
  expect((await store.read(k))!.task.status).toBe('working');
  expect(await redis.strlen(`${NS}sb:task:${k}`)).toBeLessThan(1_000);
  expect(
    await store.write(
      k,
      { ...task('t1', 'big'), status: 'completed', result: { content: [{ type: 'text', text: 'x'.repeat(10_000) }] } },
      true,
      budget,
    ),
  ).toBe('written');
  const { ledger, held } = await bytesOf('big');
  expect(ledger).toBe(held);
});

test("a tenant's tasks together are bounded in bytes: creates are refused, a growing write is refused, answers count; other tenants are apart", async () => {
  for (let i = 0; i < 5; i++) expect(await store.create(`{full}:f${i}`, task(`f${i}`, 'full'), budget)).toBeUndefined();
  expect(await store.create('{full}:f5', task('f5', 'full'), budget)).toBe('bytes-cap');
  expect(await store.create('{spare}:s0', task('s0', 'spare'), budget)).toBeUndefined();
  // Within its reservation a record may change; growing past the tenant's bytes is refused.
  expect(await store.write('{full}:f0', { ...task('f0', 'full'), statusMessage: 'y'.repeat(3_000) }, false, budget)).toBe('written');
  expect(await store.write('{full}:f0', { ...task('f0', 'full'), statusMessage: 'y'.repeat(9_000) }, false, budget)).toBe('tenant-bytes');
  expect(await store.answer('{full}:f1', { '1.a': { action: 'accept', content: { v: 'z'.repeat(2_000) } } }, budget)).toBe('tenant-bytes');
  expect(await redis.exists(`${NS}sb:task:{full}:f1:in`)).toBe(0);
  let { ledger, held } = await bytesOf('full');
  expect(ledger).toBe(5 * TASK_RESERVE_BYTES);
  expect(held).toBe(ledger);
  // A terminal write drops the pending answers and gives their bytes back.
  const roomy = { ...budget, maxTenantBytes: 6 * TASK_RESERVE_BYTES };
  expect(await store.answer('{full}:f1', { '1.a': { action: 'accept', content: { v: 'z'.repeat(2_000) } } }, roomy)).toBe('written');
  ({ ledger, held } = await bytesOf('full'));
  expect(ledger).toBe(held);
  expect(await store.take('{full}:f1', ['1.a'])).toMatchObject({ '1.a': { action: 'accept' } });
  ({ ledger, held } = await bytesOf('full'));
  expect(ledger).toBe(5 * TASK_RESERVE_BYTES);
  expect(held).toBe(ledger);
});

test('expired tasks give their bytes back: the ledger holds only what Redis still holds', async () => {
  for (let i = 0; i < 5; i++) expect(await store.create(`{brief}:b${i}`, task(`b${i}`, 'brief', 300), budget)).toBeUndefined();
  expect(await store.create('{brief}:b5', task('b5', 'brief', 300), budget)).toBe('bytes-cap');
  const deadline = Date.now() + 5_000;
  while ((await redis.keys(`${NS}sb:task:{brief}:*`)).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  expect(await store.create('{brief}:b6', task('b6', 'brief'), budget)).toBeUndefined();
  const { ledger, held } = await bytesOf('brief');
  expect(ledger).toBe(TASK_RESERVE_BYTES);
  expect(held).toBe(ledger);
});

test("an anonymous caller's task is bound to a secret only its creator got: the stored id reads and cancels nothing", async () => {
  const tasks = new TaskManager({
    store: new RedisTaskStore(REDIS_URL, NS, pino({ level: 'silent' })),
    taskAfterMs: 5,
    replicaId: 'anon-r',
  });
  await tasks.ready;
  try {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const work: TaskWork = async (_input, signal) => {
      await Promise.race([gate, new Promise((r) => signal.addEventListener('abort', r, { once: true }))]);
      return { content: [{ type: 'text', text: 'done' }] };
    };
    const anonymous = { tenantId: 'open', subject: '' };
    const created = (await tasks.run(anonymous, work, { responses: {} }, new AbortController().signal)) as { taskId: string };
    // What another anonymous caller of the tenant might learn: the id stored in Redis (and logged).
    const [recordKey] = await redis.keys(`${NS}sb:task:{open}:*`);
    const stored = JSON.parse((await redis.get(recordKey!))!) as StoredTask;
    expect(created.taskId).not.toBe(stored.taskId);
    expect(JSON.stringify(await redis.hgetall(`${NS}sb:tasks:{open}:bytes`))).not.toContain(created.taskId.split('.')[1]);
    for (const guess of [stored.taskId, `${stored.taskId}.${'A'.repeat(22)}`]) {
      await expect(tasks.handle('tasks/get', { taskId: guess }, anonymous, true)).rejects.toThrow(/Task not found/);
      await expect(tasks.handle('tasks/cancel', { taskId: guess }, anonymous, true)).rejects.toThrow(/Task not found/);
    }
    // The creator, with the id it was given, reads it (under that id).
    expect(await tasks.handle('tasks/get', { taskId: created.taskId }, anonymous, true)).toMatchObject({
      taskId: created.taskId,
      status: 'working',
    });
    release();
  } finally {
    await tasks.close();
  }
});

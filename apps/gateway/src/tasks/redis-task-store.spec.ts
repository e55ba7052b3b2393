import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pino from 'pino';
import type { StoredTask } from '@switchboard/mcp-http';
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

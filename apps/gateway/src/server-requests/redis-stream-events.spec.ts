import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pino from 'pino';
import { RedisStreamEvents } from './redis-stream-events';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const namespace = `spec-sse-${randomBytes(4).toString('hex')}:`;
const admin = new Redis(REDIS_URL, { lazyConnect: true });
let store: RedisStreamEvents;

beforeAll(async () => {
  await admin.connect();
  store = new RedisStreamEvents(REDIS_URL, namespace, pino({ level: 'silent' }), { maxEvents: 3, ttlMs: 60_000, maxStreamsPerTenant: 2, maxEventBytes: 64 });
  await store.connect();
});

afterAll(async () => {
  const keys = await admin.keys(`${namespace}*`);
  if (keys.length > 0) await admin.del(...keys);
  await store.close();
  await admin.quit();
});

/** Polls until `read` sees what `check` wants (appends are fire and forget). */
async function eventually<T>(read: () => Promise<T>, check: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const v = await read();
    if (check(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('keeps the newest maxEvents of a stream, marks the final one, and expires streams', async () => {
  store.append('acme', 's1', 0, '', false);
  for (let seq = 1; seq <= 5; seq++) store.append('acme', 's1', seq, `e${seq}`, seq === 5);
  const read = await eventually(() => store.read('acme', 's1', 0), (v) => v?.final === true);
  expect(read).toEqual({ events: [{ seq: 3, data: 'e3' }, { seq: 4, data: 'e4' }, { seq: 5, data: 'e5' }], final: true });
  expect(await store.read('acme', 's1', 4)).toEqual({ events: [{ seq: 5, data: 'e5' }], final: true });
  const ttl = (await admin.pttl((await admin.keys(`${namespace}sb:sse:*`))[0]!));
  expect(ttl).toBeGreaterThan(0);
  expect(ttl).toBeLessThanOrEqual(60_000);
});

test('bounds the streams one tenant retains; other tenants are not affected; oversized events are not stored', async () => {
  store.append('globex', 'g1', 0, '', false);
  store.append('globex', 'g2', 0, '', false);
  store.append('globex', 'g3', 0, '', false);
  store.append('globex', 'g3', 1, 'lost', true);
  store.append('initech', 'i1', 0, '', false);
  store.append('initech', 'i1', 1, 'x'.repeat(65), false);
  store.append('initech', 'i1', 2, 'small', true);
  await eventually(() => store.read('initech', 'i1', 0), (v) => v?.final === true);
  expect(await store.read('globex', 'g1', 0)).toEqual({ events: [], final: false });
  expect(await store.read('globex', 'g3', 0)).toBeUndefined();
  expect(await store.read('initech', 'i1', 0)).toEqual({ events: [{ seq: 2, data: 'small' }], final: true });
  // A stream id of another tenant is another key: nothing is read across tenants.
  expect(await store.read('initech', 'g1', 0)).toBeUndefined();
});

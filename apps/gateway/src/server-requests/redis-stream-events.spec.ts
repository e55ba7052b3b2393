import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pino from 'pino';
import { EVENT_OVERHEAD_BYTES, RedisStreamEvents } from './redis-stream-events';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const namespace = `spec-sse-${randomBytes(4).toString('hex')}:`;
const admin = new Redis(REDIS_URL, { lazyConnect: true });
let store: RedisStreamEvents;
/** A store with byte budgets small enough to cross: 4 events of 1000 bytes per stream, 10 per tenant. */
const EVENT = 1000 + EVENT_OVERHEAD_BYTES;
let budgeted: RedisStreamEvents;

beforeAll(async () => {
  await admin.connect();
  store = new RedisStreamEvents(REDIS_URL, namespace, pino({ level: 'silent' }), {
    maxEvents: 3,
    ttlMs: 60_000,
    maxStreamsPerTenant: 2,
    maxEventBytes: 64,
    maxStreamBytes: 1 << 20,
    maxTenantBytes: 1 << 20,
  });
  await store.connect();
  budgeted = new RedisStreamEvents(REDIS_URL, `${namespace}b:`, pino({ level: 'silent' }), {
    maxEvents: 1_000,
    ttlMs: 60_000,
    maxStreamsPerTenant: 100,
    maxEventBytes: 4 * EVENT,
    maxStreamBytes: 4 * EVENT,
    maxTenantBytes: 10 * EVENT,
  });
  await budgeted.connect();
});

afterAll(async () => {
  const keys = await admin.keys(`${namespace}*`);
  if (keys.length > 0) await admin.del(...keys);
  await store.close();
  await budgeted.close();
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
  const read = await eventually(
    () => store.read('acme', 's1', 0),
    (v) => v?.final === true,
  );
  expect(read).toEqual({
    events: [
      { seq: 3, data: 'e3' },
      { seq: 4, data: 'e4' },
      { seq: 5, data: 'e5' },
    ],
    final: true,
  });
  expect(await store.read('acme', 's1', 4)).toEqual({ events: [{ seq: 5, data: 'e5' }], final: true });
  const ttl = await admin.pttl((await admin.keys(`${namespace}sb:sse:*`))[0]!);
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
  await eventually(
    () => store.read('initech', 'i1', 0),
    (v) => v?.final === true,
  );
  expect(await store.read('globex', 'g1', 0)).toEqual({ events: [], final: false });
  expect(await store.read('globex', 'g3', 0)).toBeUndefined();
  expect(await store.read('initech', 'i1', 0)).toEqual({ events: [{ seq: 2, data: 'small' }], final: true });
  // A stream id of another tenant is another key: nothing is read across tenants.
  expect(await store.read('initech', 'g1', 0)).toBeUndefined();
});

/** Bytes of event data Redis holds for a tenant's streams under `ns` (what a flood would grow). */
async function storedBytes(ns: string): Promise<number> {
  let total = 0;
  for (const key of await admin.keys(`${ns}sb:sse:*`)) {
    for (const [, fields] of await admin.xrange(key, '-', '+')) total += Buffer.byteLength(fields[1] ?? '') + EVENT_OVERHEAD_BYTES;
  }
  return total;
}

test('a stream keeps at most its byte budget: the oldest events go, the response stays', async () => {
  budgeted.append('flood', 'f1', 0, '', false);
  for (let seq = 1; seq <= 20; seq++) budgeted.append('flood', 'f1', seq, String(seq % 10).repeat(1000), seq === 20);
  const read = await eventually(
    () => budgeted.read('flood', 'f1', 0),
    (v) => v?.final === true,
  );
  expect(read?.final).toBe(true);
  expect(read?.events.at(-1)?.seq).toBe(20);
  expect(read?.events.map((e) => e.seq)).toEqual([17, 18, 19, 20]);
  expect(await storedBytes(`${namespace}b:`)).toBeLessThanOrEqual(4 * EVENT);
});

test('a tenant keeps at most its byte budget over all its streams; the least recently written go first; others are untouched', async () => {
  budgeted.append('other', 'o1', 0, '', false);
  budgeted.append('other', 'o1', 1, 'y'.repeat(1000), true);
  for (let s = 1; s <= 8; s++) {
    budgeted.append('hog', `h${s}`, 0, '', false);
    for (let seq = 1; seq <= 3; seq++) budgeted.append('hog', `h${s}`, seq, 'z'.repeat(1000), seq === 3);
  }
  await eventually(
    () => budgeted.read('hog', 'h8', 0),
    (v) => v?.final === true,
  );
  // The ledger the script keeps agrees with what Redis holds.
  expect(await ledgerTotal(`${namespace}b:`)).toBe(await storedBytes(`${namespace}b:`));
  let hogBytes = 0;
  for (let s = 1; s <= 8; s++) {
    const read = await budgeted.read('hog', `h${s}`, -1);
    hogBytes += (read?.events ?? []).reduce((n, e) => n + Buffer.byteLength(e.data) + EVENT_OVERHEAD_BYTES, 0);
  }
  expect(hogBytes).toBeLessThanOrEqual(10 * EVENT);
  expect(await budgeted.read('hog', 'h1', -1)).toBeUndefined();
  expect((await budgeted.read('hog', 'h8', -1))?.events).toHaveLength(4);
  // The other tenant's stream is its own budget's business.
  expect((await budgeted.read('other', 'o1', 0))?.events).toEqual([{ seq: 1, data: 'y'.repeat(1000) }]);
});

/** The byte ledgers' totals under `ns`. */
async function ledgerTotal(ns: string): Promise<number> {
  let total = 0;
  for (const key of await admin.keys(`${ns}sb:sse-bytes:*`)) total += Number((await admin.hget(key, '#')) ?? 0);
  return total;
}

test('expired streams give their bytes back: the ledger never keeps bytes of a stream Redis dropped', async () => {
  const ns = `${namespace}x:`;
  const short = new RedisStreamEvents(REDIS_URL, ns, pino({ level: 'silent' }), {
    maxEvents: 100,
    ttlMs: 300,
    maxStreamsPerTenant: 10,
    maxEventBytes: 4 * EVENT,
    maxStreamBytes: 4 * EVENT,
    maxTenantBytes: 4 * EVENT,
  });
  await short.connect();
  try {
    short.append('t', 'old', 0, '', false);
    for (let seq = 1; seq <= 3; seq++) short.append('t', 'old', seq, 'o'.repeat(1000), false);
    await eventually(
      () => short.read('t', 'old', 0),
      (v) => v?.events.length === 3,
    );
    // Wait for Redis to expire the stream (no fixed sleep: poll its key).
    await eventually(
      async () => (await admin.keys(`${ns}sb:sse:*`)).length,
      (n) => n === 0,
    );
    short.append('t', 'new', 0, '', false);
    short.append('t', 'new', 1, 'n'.repeat(1000), true);
    await eventually(
      () => short.read('t', 'new', 0),
      (v) => v?.final === true,
    );
    // The old stream's 3 KB left the ledger, so the new one fits whole.
    expect(await ledgerTotal(ns)).toBe(await storedBytes(ns));
    expect(await ledgerTotal(ns)).toBe(2 * EVENT_OVERHEAD_BYTES + 1000);
  } finally {
    await short.close();
  }
});

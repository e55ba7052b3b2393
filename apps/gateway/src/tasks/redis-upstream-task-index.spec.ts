import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pino from 'pino';
import { RedisUpstreamTaskIndex } from './redis-upstream-task-index';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const NS = `unit-utasks-${randomBytes(4).toString('hex')}:`;
let index: RedisUpstreamTaskIndex;
let redis: Redis;

beforeAll(() => {
  index = new RedisUpstreamTaskIndex(REDIS_URL, NS, pino({ level: 'silent' }), 5);
  redis = new Redis(REDIS_URL);
});

afterAll(async () => {
  await index.close();
  const keys = await redis.keys(`${NS}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

test("lists a caller's live handles, latest to expire first, and no other caller's or tenant's", async () => {
  const now = Date.now();
  await index.add('t1', 'alice', 'h1', now + 60_000);
  await index.add('t1', 'alice', 'h2', now + 120_000);
  await index.add('t1', 'bob', 'h3', now + 60_000);
  await index.add('t2', 'alice', 'h4', now + 60_000);
  expect(await index.list('t1', 'alice')).toEqual(['h2', 'h1']);
  expect(await index.list('t1', 'bob')).toEqual(['h3']);
  expect(await index.list('t2', 'alice')).toEqual(['h4']);
  expect(await index.list('t1', 'nobody')).toEqual([]);
});

test('keeps a tenant within its bound whatever its callers add, and the key expires with its last entry', async () => {
  const now = Date.now();
  for (let i = 0; i < 12; i++) await index.add('t3', `caller${i % 3}`, `h${i}`, now + 10_000 + i * 1_000);
  expect(await redis.zcard(`${NS}sb:utasks:{t3}`)).toBe(5);
  // The soonest to expire went first.
  expect(await index.list('t3', 'caller2')).toEqual(['h11', 'h8']);
  const ttl = await redis.pttl(`${NS}sb:utasks:{t3}`);
  expect(ttl).toBeGreaterThan(15_000);
  expect(ttl).toBeLessThanOrEqual(21_000);
});

test('an expired entry is not listed', async () => {
  await index.add('t4', 'alice', 'old', Date.now() - 1_000);
  await index.add('t4', 'alice', 'new', Date.now() + 60_000);
  expect(await index.list('t4', 'alice')).toEqual(['new']);
});

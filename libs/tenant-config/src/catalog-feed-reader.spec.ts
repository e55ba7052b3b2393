import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { catalogRedisKeys } from '@switchboard/catalog';
import { Redis } from 'ioredis';
import { CatalogFeedReader } from './catalog-feed-reader';

const REDIS_URL = 'redis://127.0.0.1:6379';

async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('CatalogFeedReader', () => {
  const namespace = `feed-reader-${randomUUID()}:`;
  const keys = catalogRedisKeys(namespace);
  let redis: Redis;
  let registry: Server;
  let registryUrl: string;
  const seenAuth: string[] = [];
  const readers: CatalogFeedReader[] = [];

  beforeAll(async () => {
    redis = new Redis(REDIS_URL);
    registry = createServer((req, res) => {
      seenAuth.push(req.headers.authorization ?? '');
      res.setHeader('content-type', 'application/json');
      if (req.url === '/internal/catalogs') return res.end(JSON.stringify({ catalogs: [{ id: 'b' }] }));
      if (req.url === '/internal/catalogs/a%2Fb') return res.end(JSON.stringify({ id: 'a/b' }));
      if (req.url === '/internal/catalog-versions') return res.end(JSON.stringify({ versions: { a: 'v1', bad: 7 } }));
      res.statusCode = 404;
      res.end('{}');
    });
    await new Promise<void>((r) => registry.listen(0, '127.0.0.1', r));
    registryUrl = `http://127.0.0.1:${(registry.address() as AddressInfo).port}/`;
  });

  afterAll(async () => {
    for (const r of readers) r.close();
    const found = await redis.keys(`${namespace}*`);
    if (found.length) await redis.del(...found);
    redis.disconnect();
    await new Promise((r) => registry.close(r));
  });

  const reader = (over: Partial<ConstructorParameters<typeof CatalogFeedReader>[0]> = {}, warnings: string[] = []) => {
    const r = new CatalogFeedReader({
      redisUrl: REDIS_URL,
      namespace,
      registryUrl,
      internalToken: 'tok',
      warn: (m) => warnings.push(m),
      ...over,
    });
    readers.push(r);
    return r;
  };

  it('reads the tenant set and documents from Redis, leaving out missing and non-JSON values', async () => {
    await redis.sadd(keys.tenants, 'a', 'b');
    await redis.set(keys.catalog('a'), JSON.stringify({ id: 'a' }));
    await redis.set(keys.catalog('b'), '{not json');
    const warnings: string[] = [];
    const r = reader({}, warnings);
    await r.start(
      () => undefined,
      () => undefined,
    );
    expect((await r.tenantIds())?.sort()).toEqual(['a', 'b']);
    expect(await r.fromRedis(['a', 'b', 'missing'])).toEqual([{ id: 'a' }]);
    expect(await r.fromRedis([])).toEqual([]);
    expect(warnings).toContain('tenant document in Redis is not JSON');
  });

  it('delivers the tenant id of each catalog:changed message and ignores malformed ones', async () => {
    const changed: string[] = [];
    let ready = 0;
    const r = reader();
    await r.start(
      (id) => changed.push(id),
      () => ready++,
    );
    await until(() => ready > 0, 'the subscriber to be ready');
    // Publish until the subscription is live (SUBSCRIBE is sent on ready, asynchronously).
    const deadline = Date.now() + 10_000;
    while (changed.length === 0 && Date.now() < deadline) {
      await redis.publish(keys.channel, 'not json');
      await redis.publish(keys.channel, JSON.stringify({ tenantId: 42 }));
      await redis.publish(keys.channel, JSON.stringify({ tenantId: 'acme' }));
      await new Promise((res) => setTimeout(res, 50));
    }
    expect(changed.length).toBeGreaterThan(0);
    expect(new Set(changed)).toEqual(new Set(['acme']));
  });

  it('falls back to the registry internal API with the bearer token, and answers an unconfigured or failing store with undefined rather than an empty list', async () => {
    const r = reader({ redisUrl: undefined });
    expect(await r.tenantIds()).toBeUndefined();
    expect(await r.fromRedis(['a'])).toBeUndefined();
    expect(await r.fromRegistry()).toEqual([{ id: 'b' }]);
    expect(await r.fromRegistry('a/b')).toEqual([{ id: 'a/b' }]);
    expect(await r.fromRegistry('nope')).toBeUndefined();
    expect(await r.registryVersions()).toEqual(new Map([['a', 'v1']]));
    expect(seenAuth.every((h) => h === 'Bearer tok')).toBe(true);
  });

  it('answers undefined (and warns) when the registry is unreachable or not configured', async () => {
    const warnings: string[] = [];
    const down = reader({ redisUrl: undefined, registryUrl: 'http://127.0.0.1:1' }, warnings);
    expect(await down.fromRegistry()).toBeUndefined();
    expect(await down.registryVersions()).toBeUndefined();
    expect(warnings).toEqual(['registry internal API unavailable', 'registry internal API unavailable (catalog versions)']);
    expect(await reader({ redisUrl: undefined, registryUrl: undefined }).fromRegistry()).toBeUndefined();
  });

  it('reads raw values in MGET batches (null where missing) and tells a 404 from an unreachable registry', async () => {
    await redis.set(keys.catalog('r1'), '{"id":"r1"}');
    await redis.set(keys.catalog('r3'), '{"id":"r3"}');
    const r = reader();
    await r.start(
      () => undefined,
      () => undefined,
    );
    expect(await r.rawDocuments(['r1', 'r2', 'r3'], 2)).toEqual(['{"id":"r1"}', null, '{"id":"r3"}']);
    expect(await reader({ redisUrl: undefined }).rawDocuments(['r1'])).toBeUndefined();
    // One batch handed on before the next is read: the visitor sees each batch as it arrives.
    const visits: [readonly string[], readonly (string | null)[]][] = [];
    expect(await r.eachRawBatch(['r1', 'r2', 'r3'], 2, (ids, values) => void visits.push([ids, values]))).toBe(true);
    expect(visits).toEqual([
      [
        ['r1', 'r2'],
        ['{"id":"r1"}', null],
      ],
      [['r3'], ['{"id":"r3"}']],
    ]);
    expect(await reader({ redisUrl: undefined }).eachRawBatch(['r1'], 2, () => undefined)).toBe(false);
    expect(await r.registryDocument('a/b')).toEqual({ body: { id: 'a/b' }, bytes: Buffer.byteLength('{"id":"a/b"}') });
    expect(await r.registryDocument('nope')).toBeNull();
    expect(await reader({ registryUrl: 'http://127.0.0.1:1' }).registryDocument('a')).toBeUndefined();
    expect(await reader({ registryUrl: undefined }).registryDocument('a')).toBeUndefined();
  });
});

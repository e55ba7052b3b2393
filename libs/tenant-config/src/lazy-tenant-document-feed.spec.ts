import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { buildTenantDocument, catalogRedisKeys, tenantSettingsSchema, type PublishedCatalog } from '@switchboard/catalog';
import { Redis } from 'ioredis';
import { LazyTenantDocumentFeed, type LazyTenantDocumentFeedOptions } from './lazy-tenant-document-feed';

const REDIS_URL = 'redis://127.0.0.1:6379';

async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A tenant document; its name carries `version` (the document's own version is a content hash). */
function doc(id: string, version: string): PublishedCatalog {
  return buildTenantDocument(tenantSettingsSchema.parse({ id, name: `${id} ${version}` }), {
    tenantId: id,
    version,
    server: { name: id, version: '1' },
    tools: [],
    resources: [],
    resourceTemplates: [],
    prompts: [],
  });
}

/** Real Redis (own namespace) and a loopback registry whose answers a test can hold. */
describe('LazyTenantDocumentFeed', () => {
  const namespace = `lazy-feed-${randomUUID()}:`;
  const keys = catalogRedisKeys(namespace);
  let redis: Redis;
  let registry: Server;
  const registryDocs = new Map<string, PublishedCatalog>();
  const held = new Map<string, () => void>();
  const feeds: LazyTenantDocumentFeed[] = [];

  beforeAll(async () => {
    redis = new Redis(REDIS_URL);
    registry = createServer((req, res) => {
      const id = decodeURIComponent(/^\/internal\/catalogs\/([^/?]+)$/.exec(req.url ?? '')?.[1] ?? '');
      const answer = () => {
        const d = registryDocs.get(id);
        res.statusCode = d ? 200 : 404;
        res.end(JSON.stringify(d ?? {}));
      };
      if (id.startsWith('held-')) held.set(id, answer);
      else answer();
    });
    await new Promise<void>((r) => registry.listen(0, '127.0.0.1', r));
  });

  afterAll(async () => {
    for (const f of feeds) await f.close();
    const found = await redis.keys(`${namespace}*`);
    if (found.length > 0) await redis.del(...found);
    redis.disconnect();
    await new Promise<void>((r) => registry.close(() => r()));
  });

  async function startFeed(resyncMs = 0, overrides: Partial<LazyTenantDocumentFeedOptions> = {}) {
    const applied: PublishedCatalog[] = [];
    const evicted: string[] = [];
    const warnings: string[] = [];
    const feed = new LazyTenantDocumentFeed({
      redisUrl: REDIS_URL,
      namespace,
      registryUrl: `http://127.0.0.1:${(registry.address() as AddressInfo).port}`,
      internalToken: 't',
      resyncMs,
      maxResident: 3,
      negativeMax: 10,
      negativeTtlMs: 60_000,
      fetchesPerSec: 1000,
      onEvict: (id) => evicted.push(id),
      warn: (message) => warnings.push(message),
      ...overrides,
    });
    feeds.push(feed);
    await feed.start((d) => applied.push(d));
    return { feed, applied, evicted, warnings };
  }
  const put = (d: PublishedCatalog | Record<string, unknown>, id = (d as { id: string }).id) =>
    redis.set(keys.catalog(id), JSON.stringify(d));
  const announce = (id: string) => redis.publish(keys.channel, JSON.stringify({ tenantId: id }));

  it('reads a tenant once for concurrent callers, then answers it synchronously; evicts past maxResident', async () => {
    const { feed, applied, evicted } = await startFeed();
    for (const id of ['a1', 'a2', 'a3', 'a4']) await put(doc(id, 'v1'));
    await Promise.all([feed.load('a1'), feed.load('a1'), feed.load('a1')]);
    expect(feed.stats).toMatchObject({ fetches: 1, joined: 2 });
    expect(feed.load('a1')).toBeUndefined();
    for (const id of ['a2', 'a3', 'a4']) await feed.load(id);
    expect(applied.map((d) => d.id)).toEqual(['a1', 'a2', 'a3', 'a4']);
    expect(evicted).toEqual(['a1']);
    expect(feed.stats).toMatchObject({ fetches: 4, evicted: 1 });
    expect(feed.residentCount).toBe(3);
    expect(feed.load('NOT-an-id')).toBeUndefined();
  });

  it('re-reads a cold read a catalog:changed overtook, so the older version is never applied', async () => {
    const { feed, applied } = await startFeed();
    registryDocs.set('held-b', doc('held-b', 'v1'));
    const loading = feed.load('held-b');
    await until(() => held.has('held-b'), 'the registry read');
    await put(doc('held-b', 'v2'));
    await announce('held-b');
    await until(() => feed.stats.changedInFlight === 1, 'the change heard mid-read');
    held.get('held-b')?.();
    await loading;
    expect(applied.map((d) => d.name)).toEqual(['held-b v2']);
  });

  it('keeps the previous document when a change is rejected, and stops holding a tenant no store has', async () => {
    const { feed, applied, evicted, warnings } = await startFeed();
    await put(doc('c1', 'v1'));
    await feed.load('c1');
    await put({ ...doc('other', 'v2') }, 'c1');
    await announce('c1');
    await until(() => warnings.includes('tenant document rejected; keeping the previous one'), 'the rejection');
    expect(applied.map((d) => d.name)).toEqual(['c1 v1']);
    expect(feed.load('c1')).toBeUndefined();
    await redis.del(keys.catalog('c1'));
    await announce('c1');
    await until(() => evicted.includes('c1'), 'the drop');
    expect(feed.residentCount).toBe(0);
  });

  it('re-syncs held tenants only, by hash', async () => {
    const { feed, applied } = await startFeed(100);
    await put(doc('d1', 'v1'));
    await put(doc('d2', 'v1'));
    await feed.load('d1');
    await put(doc('d1', 'v2'));
    await put(doc('d2', 'v2'));
    await until(() => applied.some((d) => d.name === 'd1 v2'), 'the re-sync');
    expect(applied.filter((d) => d.id === 'd2')).toEqual([]);
    const count = applied.length;
    await until(() => feed.stats.fetches === 1, 'no read');
    expect(applied.length).toBe(count);
  });

  it('counts what its metrics export: unknown ids remembered and answered from memory, look-ups shed past the rate', async () => {
    let now = 1_000_000;
    const { feed } = await startFeed(0, { fetchesPerSec: 1, negativeTtlMs: 5_000, now: () => now });
    // Burst of two: both unknown ids are looked up (Redis lacks them, the registry answers 404) and remembered.
    await feed.load('e1');
    await feed.load('e2');
    expect([feed.stats.fetches, feed.negativeCount]).toEqual([2, 2]);
    expect(feed.load('e1')).toBeUndefined();
    expect(feed.stats.negativeHits).toBe(1);
    // The rate is spent: a third cold id is refused without a look-up.
    expect(feed.load('e3')).toBeUndefined();
    expect([feed.stats.shed, feed.stats.fetches]).toEqual([1, 2]);
    // A second later one token is back; past the TTL a remembered id is looked up again.
    now += 1_000;
    await feed.load('e3');
    now += 5_000;
    await feed.load('e1');
    expect(feed.stats).toMatchObject({ fetches: 4, negativeHits: 1, shed: 1, evicted: 0 });
    expect(feed.negativeCount).toBe(3);
    expect(feed.residentCount).toBe(0);
  });
});

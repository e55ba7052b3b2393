// The boot / reconnect resync on real Postgres and Redis (own key namespace): tenants whose Redis
// document is at the version Postgres gives are left alone; missing, unlisted, stale and
// settings-only-stale ones are re-pushed through the publisher.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pino from 'pino';
import { catalogRedisKeys } from '@switchboard/catalog';
import { SecretBox } from '@switchboard/secret-box';
import { Credentials } from '../src/credentials/credentials';
import { Publisher } from '../src/publishing/publisher';
import { documentVersionOf, resyncAll } from '../src/publishing/redis-resync';
import { REDIS_URL, testEnv } from './support/harness';
import { migratedDatabase, seedPublishedTenants, type MigratedDatabase } from './support/migrated-database';

jest.setTimeout(60_000);

/** More than one page of the resync (250), so paging is covered too. */
const TENANTS = 260;
const id = (n: number) => `acme-${String(n).padStart(6, '0')}`;

describe('boot / reconnect resync of Redis', () => {
  const env = testEnv();
  const keys = catalogRedisKeys(env.namespace);
  const logger = pino({ level: 'silent' });
  let m: MigratedDatabase;
  let redis: Redis;
  let publisher: Publisher;
  const pushed: string[] = [];
  const pusher = { push: (tenant: string) => (pushed.push(tenant), publisher.push(tenant)) };

  beforeAll(async () => {
    m = await migratedDatabase();
    redis = new Redis(REDIS_URL, { lazyConnect: true });
    await redis.connect();
    const box = new SecretBox(randomBytes(32));
    publisher = new Publisher(m.db, redis, env.namespace, new Credentials(m.db, box, { allowHosts: [] }), box, 0, logger);
    await seedPublishedTenants(m.db, 'acme', 1, TENANTS);
  });

  afterAll(async () => {
    const stale = await redis.keys(`${env.namespace}*`);
    if (stale.length > 0) await redis.del(...stale);
    redis?.disconnect();
    await m?.drop();
  });

  it('pushes every tenant into an empty Redis, then nothing while Redis is current', async () => {
    const first = await resyncAll(m.db, redis, pusher, env.namespace);
    expect(first).toEqual({ tenants: TENANTS, current: 0, pushed: TENANTS, unavailable: 0 });
    expect(await redis.scard(keys.tenants)).toBe(TENANTS);
    pushed.length = 0;
    const again = await resyncAll(m.db, redis, pusher, env.namespace);
    expect(again).toEqual({ tenants: TENANTS, current: TENANTS, pushed: 0, unavailable: 0 });
    expect(pushed).toEqual([]);
  });

  it('repairs exactly the missing, unlisted, stale and settings-stale tenants', async () => {
    await redis.del(keys.catalog(id(3)));
    await redis.srem(keys.tenants, id(7));
    // A catalog version Postgres moved past (a publish whose push was lost)…
    await m.db.query(
      `INSERT INTO registry.snapshots (tenant_id, version, snapshot)
       SELECT tenant_id, 'v2', jsonb_set(snapshot, '{version}', '"v2"') FROM registry.snapshots WHERE tenant_id = $1`,
      [id(100)],
    );
    await m.db.query("UPDATE registry.tenants SET current_version = 'v2' WHERE id = $1", [id(100)]);
    // …a settings-only change whose push was lost (same catalog version, another document version)…
    await m.db.query("UPDATE registry.tenants SET name = 'Renamed' WHERE id = $1", [id(255)]);
    // …and a document that does not parse.
    await redis.set(keys.catalog(id(200)), 'not json');
    const before = documentVersionOf((await redis.get(keys.catalog(id(255)))) ?? '');
    pushed.length = 0;
    const r = await resyncAll(m.db, redis, pusher, env.namespace);
    expect(r).toEqual({ tenants: TENANTS, current: TENANTS - 5, pushed: 5, unavailable: 0 });
    expect(pushed.sort()).toEqual([id(3), id(7), id(100), id(200), id(255)]);
    expect(await redis.scard(keys.tenants)).toBe(TENANTS);
    const doc100 = JSON.parse((await redis.get(keys.catalog(id(100)))) ?? '{}') as { snapshot: { version: string } };
    expect(doc100.snapshot.version).toBe('v2');
    const raw255 = (await redis.get(keys.catalog(id(255)))) ?? '{}';
    const doc255 = JSON.parse(raw255) as { name: string; version: string };
    expect(doc255.name).toBe('Renamed');
    expect(doc255.version).not.toBe(before);
    // Read from the tail as from the parsed document, and with sealed credentials after it too.
    expect(documentVersionOf(raw255)).toBe(doc255.version);
    const sealed = JSON.stringify({ ...doc255, credentials: { version: 'c2VhbGVk', main: 'x' } });
    expect(documentVersionOf(sealed)).toBe(doc255.version);
    expect(documentVersionOf(JSON.stringify({ ...doc255, version: 'other' }))).toBe('other');
    // And converged: nothing left to push.
    pushed.length = 0;
    expect((await resyncAll(m.db, redis, pusher, env.namespace)).pushed).toBe(0);
  });
});

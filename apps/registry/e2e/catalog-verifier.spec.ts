// The incremental Redis verification on real Postgres and Redis (own key namespace): each tick
// checks a bounded number of tenants, tenants changed since the last tick come first, and the
// rolling window covers every published tenant within ceil(published / batch) ticks.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pino from 'pino';
import { catalogRedisKeys } from '@switchboard/catalog';
import { SecretBox } from '@switchboard/secret-box';
import { Credentials } from '../src/credentials/credentials';
import { CatalogVerifier, versionOf } from '../src/publishing/catalog-verifier';
import { Publisher } from '../src/publishing/publisher';
import { REDIS_URL, testEnv } from './support/harness';
import { migratedDatabase, seedPublishedTenants, type MigratedDatabase } from './support/migrated-database';

jest.setTimeout(60_000);

const BATCH = 10;
const TENANTS = 35;

describe('incremental catalog verification', () => {
  const env = testEnv();
  const keys = catalogRedisKeys(env.namespace);
  const logger = pino({ level: 'silent' });
  let m: MigratedDatabase;
  let redis: Redis;
  let publisher: Publisher;
  let verifier: CatalogVerifier;
  const pushed: string[] = [];

  beforeAll(async () => {
    m = await migratedDatabase();
    redis = new Redis(REDIS_URL, { lazyConnect: true });
    await redis.connect();
    const box = new SecretBox(randomBytes(32));
    publisher = new Publisher(m.db, redis, env.namespace, new Credentials(m.db, box, { allowHosts: [] }), box, 0, logger);
    // Records what the verifier repairs, then pushes for real.
    const pusher = { push: (id: string) => (pushed.push(id), publisher.push(id)) };
    verifier = new CatalogVerifier(m.db, redis, pusher, logger, { namespace: env.namespace, batch: BATCH });
    await seedPublishedTenants(m.db, 'acme', 1, TENANTS);
    await publisher.syncAll();
    verifier.followFrom(await verifier.feedPositionNow());
  });

  afterAll(async () => {
    const stale = await redis.keys(`${env.namespace}*`);
    if (stale.length > 0) await redis.del(...stale);
    redis?.disconnect();
    await m?.drop();
  });

  it('checks at most a batch of the window per tick and covers every tenant within ceil(n / batch) ticks', async () => {
    // Break every key behind the verifier's back: each must be found by the window alone.
    for (let n = 1; n <= TENANTS; n++)
      await redis.set(keys.catalog(`acme-${String(n).padStart(6, '0')}`), '{"snapshot":{"version":"old"}}');
    pushed.length = 0;
    const ticks = Math.ceil(TENANTS / BATCH);
    for (let i = 0; i < ticks; i++) {
      const before = pushed.length;
      const r = await verifier.tick();
      expect(verifier.progress.window).toBeLessThanOrEqual(BATCH);
      expect(pushed.length - before).toBeLessThanOrEqual(BATCH);
      expect(r.stale).toBe(pushed.length - before);
    }
    expect(new Set(pushed).size).toBe(TENANTS);
    expect(verifier.progress.passes).toBe(1);
    const docs = await redis.mget(...Array.from({ length: TENANTS }, (_, i) => keys.catalog(`acme-${String(i + 1).padStart(6, '0')}`)));
    expect(docs.map((d) => versionOf(d ?? ''))).toEqual(
      Array.from({ length: TENANTS }, (_, i) => `v1-acme-${String(i + 1).padStart(6, '0')}`),
    );
  });

  it('checks tenants changed since the last tick first, whatever the window position', async () => {
    // A publish committed in Postgres whose Redis push was lost (another replica died after its commit).
    await m.db.query(
      `INSERT INTO registry.snapshots (tenant_id, version, snapshot)
       SELECT id, 'v2', jsonb_set(snapshot, '{version}', '"v2"') FROM registry.tenants t JOIN registry.snapshots s ON s.tenant_id = t.id AND s.version = t.current_version
        WHERE t.id = 'acme-000033'`,
    );
    await m.db.query("UPDATE registry.tenants SET current_version = 'v2' WHERE id = 'acme-000033'");
    pushed.length = 0;
    await verifier.tick();
    // The window is at its start again (acme-000001…), yet the changed tenant was repaired in this tick, first.
    expect(pushed[0]).toBe('acme-000033');
    expect(verifier.progress.changed).toBe(1);
    expect(versionOf((await redis.get(keys.catalog('acme-000033'))) ?? '')).toBe('v2');
  });

  it('bounds the changed tenants per tick too and carries the rest to the next tick', async () => {
    await m.db.query(
      `INSERT INTO registry.snapshots (tenant_id, version, snapshot)
       SELECT t.id, 'v9', jsonb_set(s.snapshot, '{version}', '"v9"') FROM registry.tenants t
         JOIN registry.snapshots s ON s.tenant_id = t.id AND s.version = t.current_version WHERE t.id <= 'acme-000025' ON CONFLICT DO NOTHING`,
    );
    await m.db.query("UPDATE registry.tenants SET current_version = 'v9' WHERE id <= 'acme-000025'");
    const changed: number[] = [];
    for (let i = 0; i < 3; i++) {
      await verifier.tick();
      changed.push(verifier.progress.changed);
    }
    expect(changed).toEqual([10, 10, 5]);
    const docs = await redis.mget(...Array.from({ length: 25 }, (_, i) => keys.catalog(`acme-${String(i + 1).padStart(6, '0')}`)));
    expect(new Set(docs.map((d) => versionOf(d ?? '')))).toEqual(new Set(['v9']));
  });

  it('removes listed tenants Postgres no longer publishes, a slice per tick', async () => {
    await redis.sadd(keys.tenants, 'ghost');
    await redis.set(keys.catalog('ghost'), '{"snapshot":{"version":"x"}}');
    let removed = 0;
    for (let i = 0; i < 10 && (await redis.sismember(keys.tenants, 'ghost')) === 1; i++) removed += (await verifier.tick()).orphan;
    expect(removed).toBe(1);
    expect(await redis.get(keys.catalog('ghost'))).toBeNull();
  });
});

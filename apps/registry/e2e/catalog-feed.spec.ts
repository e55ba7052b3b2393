// The catalog version feed (`GET /internal/catalog-versions?since=&limit=`) on a real Postgres:
// pages in (transaction, tenant) order, ties (many tenants changed in one transaction) split
// across pages without loss, a publish whose transaction commits after a later one is not
// skipped, removals appear as null, and the parameterless form keeps its shape.
import { Client as PgClient } from 'pg';
import { FEED_START, parseCursor, readFeed, type FeedCursor } from '../src/model/catalog-feed';
import type { Database } from '../src/db/database';
import { api, startRegistry, testEnv, type Proc } from './support/harness';
import { migratedDatabase, seedPublishedTenants, type MigratedDatabase } from './support/migrated-database';

jest.setTimeout(60_000);

/** Reads every page from `since`; returns the changes in order and the final cursor. */
async function drain(
  db: Database,
  since: FeedCursor,
  limit: number,
): Promise<{ seen: Array<[string, string | null]>; cursor: FeedCursor }> {
  const seen: Array<[string, string | null]> = [];
  let cursor = since;
  for (let i = 0; i < 1000; i++) {
    const page = await readFeed(db, cursor, limit);
    expect(Object.keys(page.versions).length).toBeLessThanOrEqual(limit);
    seen.push(...Object.entries(page.versions));
    cursor = parseCursor(page.cursor) ?? FEED_START;
    if (!page.more) return { seen, cursor };
  }
  throw new Error('feed did not end');
}

describe('catalog version feed', () => {
  let m: MigratedDatabase;

  beforeAll(async () => {
    m = await migratedDatabase();
  });

  afterAll(async () => {
    await m?.drop();
  });

  it('pages through tenants written in one transaction (ties) in id order, each once', async () => {
    await seedPublishedTenants(m.db, 'tie', 1, 25);
    const { seen } = await drain(m.db, FEED_START, 7);
    const ids = seen.map(([id]) => id);
    expect(ids).toEqual([...ids].sort());
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.filter((id) => id.startsWith('tie-'))).toHaveLength(25);
    expect(Object.fromEntries(seen)['tie-000007']).toBe('v1-tie-000007');
  });

  it('orders later changes after earlier ones and shows a tenant again when it changes after being read', async () => {
    const { cursor } = await drain(m.db, FEED_START, 100);
    await m.db.query("UPDATE registry.tenants SET current_version = 'v2' WHERE id = 'tie-000020'");
    await m.db.query("UPDATE registry.tenants SET current_version = 'v2' WHERE id = 'tie-000003'");
    // A settings change that leaves the version alone is not a feed entry.
    await m.db.query("UPDATE registry.tenants SET name = 'renamed' WHERE id = 'tie-000004'");
    const { seen } = await drain(m.db, cursor, 1);
    expect(seen).toEqual([
      ['tie-000020', 'v2'],
      ['tie-000003', 'v2'],
    ]);
  });

  it('does not skip a publish whose transaction commits after a later one', async () => {
    const { cursor } = await drain(m.db, FEED_START, 100);
    const slow = new PgClient(m.url);
    await slow.connect();
    try {
      await slow.query('BEGIN');
      await slow.query("UPDATE registry.tenants SET current_version = 'v3' WHERE id = 'tie-000001'");
      await m.db.query("UPDATE registry.tenants SET current_version = 'v3' WHERE id = 'tie-000002'");
      // The open transaction holds the feed back: reading past it now would lose its change for good.
      const held = await drain(m.db, cursor, 10);
      expect(held.seen).toEqual([]);
      await slow.query('COMMIT');
      const { seen } = await drain(m.db, held.cursor, 10);
      expect(seen).toEqual([
        ['tie-000001', 'v3'],
        ['tie-000002', 'v3'],
      ]);
    } finally {
      await slow.end();
    }
  });

  it('lists a deleted tenant with version null, and drops the tombstone when the id comes back', async () => {
    const { cursor } = await drain(m.db, FEED_START, 100);
    await m.db.query("DELETE FROM registry.tenants WHERE id = 'tie-000005'");
    const after = await drain(m.db, cursor, 10);
    expect(after.seen).toEqual([['tie-000005', null]]);
    await m.db.query("INSERT INTO registry.tenants (id, name) VALUES ('tie-000005', 'again')");
    expect((await drain(m.db, after.cursor, 10)).seen).toEqual([['tie-000005', null]]);
    expect(await m.db.query("SELECT 1 FROM registry.catalog_removals WHERE tenant_id = 'tie-000005'")).toEqual([]);
  });

  describe('over HTTP', () => {
    const env = testEnv();
    let registry: Proc;

    beforeAll(async () => {
      registry = await startRegistry(env, m.url, { REGISTRY_REDIS_VERIFY_MS: '0' });
    });

    afterAll(async () => {
      await registry?.stop();
    });

    it('keeps the parameterless answer (every published tenant) and adds a cursor to follow from', async () => {
      const all = await api(registry.url, env.internalToken, 'GET', '/internal/catalog-versions');
      expect(all.status).toBe(200);
      const body = all.body as { versions: Record<string, string>; cursor: string };
      expect(body.versions['tie-000002']).toBe('v3');
      expect(body.versions['tie-000005']).toBeUndefined();
      expect(parseCursor(body.cursor)).toBeDefined();
      await m.db.query("UPDATE registry.tenants SET current_version = 'v4' WHERE id = 'tie-000009'");
      const next = await api(registry.url, env.internalToken, 'GET', `/internal/catalog-versions?since=${encodeURIComponent(body.cursor)}`);
      expect(next.body).toMatchObject({ versions: { 'tie-000009': 'v4' }, more: false });
    });

    it('pages with since and limit, and refuses a bad cursor or limit naming the field', async () => {
      const first = await api(registry.url, env.internalToken, 'GET', '/internal/catalog-versions?since=0&limit=3');
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ more: true });
      expect(Object.keys((first.body as { versions: object }).versions)).toHaveLength(3);
      const bad = await api(registry.url, env.internalToken, 'GET', '/internal/catalog-versions?since=abc');
      expect(bad.status).toBe(400);
      expect(JSON.stringify(bad.body)).toContain('query.since');
      const big = await api(registry.url, env.internalToken, 'GET', '/internal/catalog-versions?limit=10001');
      expect(big.status).toBe(400);
      expect(JSON.stringify(big.body)).toContain('query.limit');
      const unauth = await api(registry.url, undefined, 'GET', '/internal/catalog-versions?since=0');
      expect(unauth.status).toBe(401);
    });
  });
});

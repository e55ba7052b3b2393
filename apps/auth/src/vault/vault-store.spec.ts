import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { SecretBox } from '@switchboard/secret-box';
import { migrateAuthSchema } from '../db/migrate';
import { DEFAULT_REFRESH_OPTIONS, VaultStore, type RefreshOutcome, type VaultedTokens } from './vault-store';

const DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The vault against real Postgres: sealed rows, and refreshes that are single-flight across "replicas" (separate stores and pools). */
describe('VaultStore', () => {
  const schema = `auth_vault_${randomBytes(5).toString('hex')}`;
  const box = new SecretBox(randomBytes(32));
  let pools: Pool[];
  let stores: VaultStore[];
  /** Times a caller went back to waiting for another caller's refresh (both replicas). */
  let waits = 0;

  beforeAll(async () => {
    pools = [new Pool({ connectionString: DATABASE_URL, max: 8 }), new Pool({ connectionString: DATABASE_URL, max: 8 })];
    await migrateAuthSchema(pools[0]!, schema);
    stores = pools.map((p) => new VaultStore(p, schema, box, { ...DEFAULT_REFRESH_OPTIONS, onWait: () => void waits++ }));
  });
  /** Polls until `check` holds (or the deadline passes). */
  async function until(check: () => boolean | Promise<boolean>, withinMs: number): Promise<void> {
    const deadline = Date.now() + withinMs;
    while (Date.now() < deadline && !(await check())) await new Promise((r) => setTimeout(r, 10));
  }
  afterAll(async () => {
    await pools[0]?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await Promise.all(pools.map((p) => p.end()));
  });

  const now = () => Math.floor(Date.now() / 1000);
  const stale = (t: VaultedTokens) => t.expiresAt !== undefined && t.expiresAt <= now();

  it('refreshes once when many callers on two replicas find the same token stale; the others get the winner\u2019s tokens', async () => {
    await stores[0]!.put('acme', 'acme|carol', 'crm', { accessToken: 'old', refreshToken: 'r1', expiresAt: now() - 5 });
    let calls = 0;
    const refresh = async (t: VaultedTokens): Promise<RefreshOutcome> => {
      calls++;
      // Hold the refresh until the other callers have found the entry leased and wait, so the
      // test exercises the race; without the lease nobody waits and the deadline lets it go on.
      await until(() => waits >= 5, 5_000);
      return { kind: 'ok', tokens: { accessToken: `new-from-${t.refreshToken}`, refreshToken: 'r2', expiresAt: now() + 3600 } };
    };
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => stores[i % 2]!.refreshOnce('acme', 'acme|carol', 'crm', stale, refresh)),
    );
    expect(calls).toBe(1);
    expect(results.map((r) => r.tokens?.accessToken)).toEqual(Array(6).fill('new-from-r1'));
    expect(results.filter((r) => r.outcome === 'refreshed')).toHaveLength(1);
    expect(await stores[1]!.get('acme', 'acme|carol', 'crm')).toMatchObject({ accessToken: 'new-from-r1', refreshToken: 'r2' });
  });

  it('deletes the link only when the upstream refuses; a transient failure keeps it', async () => {
    await stores[0]!.put('acme', 'acme|dave', 'crm', { accessToken: 'a', refreshToken: 'r', expiresAt: now() - 1 });
    expect((await stores[0]!.refreshOnce('acme', 'acme|dave', 'crm', stale, async () => ({ kind: 'unavailable' }))).outcome).toBe(
      'unavailable',
    );
    expect(await stores[0]!.get('acme', 'acme|dave', 'crm')).toMatchObject({ accessToken: 'a' });
    expect((await stores[0]!.refreshOnce('acme', 'acme|dave', 'crm', stale, async () => ({ kind: 'refused' }))).outcome).toBe('refused');
    expect(await stores[0]!.get('acme', 'acme|dave', 'crm')).toBeUndefined();
    expect((await stores[0]!.refreshOnce('acme', 'acme|dave', 'crm', stale, async () => ({ kind: 'refused' }))).outcome).toBe('missing');
  });

  it('treats a stale token without a refresh token as refused (relink) and lists accounts without token material', async () => {
    await stores[0]!.put('acme', 'acme|erin', 'crm', { accessToken: 'secret-access', expiresAt: now() - 1 });
    await stores[0]!.put('acme', 'acme|erin', 'wiki', { accessToken: 'secret-wiki', refreshToken: 'rw' });
    const listed = await stores[0]!.list('acme', 'acme|erin');
    expect(listed.map((a) => [a.connector, a.refreshable])).toEqual([
      ['crm', false],
      ['wiki', true],
    ]);
    expect(JSON.stringify(listed)).not.toContain('secret-');
    expect((await stores[0]!.refreshOnce('acme', 'acme|erin', 'crm', stale, async () => ({ kind: 'unavailable' }))).outcome).toBe(
      'refused',
    );
    expect(await stores[0]!.list('acme', 'acme|erin')).toHaveLength(1);
    // Rows are sealed and bound to their (tenant, subject, connector).
    const { rows } = await pools[0]!.query<{ sealed: string }>(`SELECT sealed FROM "${schema}".vault_token`);
    expect(JSON.stringify(rows)).not.toContain('secret-wiki');
    await pools[0]!.query(`UPDATE "${schema}".vault_token SET subject = 'acme|mallory' WHERE subject = 'acme|erin'`);
    await expect(stores[0]!.get('acme', 'acme|mallory', 'wiki')).rejects.toThrow();
  });

  it('holds no pooled connection while the upstream is called, and caps a tenant\u2019s refreshes in flight', async () => {
    // One small pool, as if every connection of the service were at stake.
    const pool = new Pool({ connectionString: DATABASE_URL, max: 2 });
    const store = new VaultStore(pool, schema, box, { ...DEFAULT_REFRESH_OPTIONS, perTenant: 3, waitMs: 60_000 });
    try {
      const subjects = Array.from({ length: 6 }, (_, i) => `evil|u${i}`);
      for (const sub of subjects) await store.put('evil', sub, 'crm', { accessToken: 'a', refreshToken: 'r', expiresAt: now() - 1 });
      await store.put('good', 'good|zoe', 'crm', { accessToken: 'a', refreshToken: 'r', expiresAt: now() - 1 });
      // The hostile tenant's token endpoint hangs until the test lets it go.
      let release!: () => void;
      const hang = new Promise<void>((r) => (release = r));
      let started = 0;
      const hanging = async (): Promise<RefreshOutcome> => {
        started++;
        await hang;
        return { kind: 'unavailable' };
      };
      const evil = subjects.map((sub) => store.refreshOnce('evil', sub, 'crm', stale, hanging));
      await until(async () => started >= 3, 5_000);
      // Three leases, three callers queued for a slot: the cap holds.
      expect(started).toBe(3);
      const { rows } = await pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "${schema}".vault_token WHERE tenant_id = 'evil' AND refreshing_until > now()`,
      );
      expect(rows[0]?.n).toBe(3);
      // Another tenant's read and refresh go through at once on the same two-connection pool.
      const t0 = Date.now();
      expect(await store.get('good', 'good|zoe', 'crm')).toMatchObject({ accessToken: 'a' });
      const good = await store.refreshOnce('good', 'good|zoe', 'crm', stale, async () => ({
        kind: 'ok',
        tokens: { accessToken: 'fresh', expiresAt: now() + 3600 },
      }));
      expect(good).toMatchObject({ outcome: 'refreshed', tokens: { accessToken: 'fresh' } });
      expect(Date.now() - t0).toBeLessThan(2_000);
      release();
      const outcomes = await Promise.all(evil);
      expect(outcomes.every((o) => o.outcome === 'unavailable')).toBe(true);
      expect(await store.get('evil', 'evil|u0', 'crm')).toMatchObject({ accessToken: 'a' });
    } finally {
      await pool.end();
    }
  });

  it('stops waiting for another caller\u2019s refresh when its own caller hangs up', async () => {
    const store = new VaultStore(pools[0]!, schema, box, { ...DEFAULT_REFRESH_OPTIONS, waitMs: 60_000 });
    await store.put('acme', 'acme|hal', 'crm', { accessToken: 'a', refreshToken: 'r', expiresAt: now() - 1 });
    let release!: () => void;
    const hang = new Promise<void>((r) => (release = r));
    let started = false;
    const holder = store.refreshOnce('acme', 'acme|hal', 'crm', stale, async () => {
      started = true;
      await hang;
      return { kind: 'unavailable' };
    });
    await until(() => started, 5_000);
    const hangUp = new AbortController();
    const t0 = Date.now();
    const waiter = store.refreshOnce('acme', 'acme|hal', 'crm', stale, async () => ({ kind: 'refused' }), hangUp.signal);
    hangUp.abort();
    expect(await waiter).toEqual({ outcome: 'unavailable' });
    expect(Date.now() - t0).toBeLessThan(2_000);
    release();
    expect((await holder).outcome).toBe('unavailable');
  });
});

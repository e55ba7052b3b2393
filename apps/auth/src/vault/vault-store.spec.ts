import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { SecretBox } from '@switchboard/secret-box';
import { migrateAuthSchema } from '../db/migrate';
import { VaultStore, type RefreshOutcome, type VaultedTokens } from './vault-store';

const DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The vault against real Postgres: sealed rows, and refreshes that are single-flight across "replicas" (separate stores and pools). */
describe('VaultStore', () => {
  const schema = `auth_vault_${randomBytes(5).toString('hex')}`;
  const box = new SecretBox(randomBytes(32));
  let pools: Pool[];
  let stores: VaultStore[];

  beforeAll(async () => {
    pools = [new Pool({ connectionString: DATABASE_URL, max: 8 }), new Pool({ connectionString: DATABASE_URL, max: 8 })];
    await migrateAuthSchema(pools[0]!, schema);
    stores = pools.map((p) => new VaultStore(p, schema, box));
  });
  /** Polls pg_locks until `count` backends wait for a lock (or the deadline passes). */
  async function waitForLockWaiters(count: number, withinMs: number): Promise<void> {
    const deadline = Date.now() + withinMs;
    while (Date.now() < deadline) {
      const [row] = (await pools[0]!.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted')).rows;
      if ((row?.n ?? 0) >= count) return;
      await new Promise((r) => setTimeout(r, 10));
    }
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
      // Hold the refresh until the other callers are queued on the row lock (seen in pg_locks), so
      // the test exercises the race; without the lock nobody waits and the deadline lets it go on.
      await waitForLockWaiters(5, 5_000);
      return { kind: 'ok', tokens: { accessToken: `new-from-${t.refreshToken}`, refreshToken: 'r2', expiresAt: now() + 3600 } };
    };
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => stores[i % 2]!.refreshOnce('acme', 'acme|carol', 'crm', stale, refresh)));
    expect(calls).toBe(1);
    expect(results.map((r) => r.tokens?.accessToken)).toEqual(Array(6).fill('new-from-r1'));
    expect(results.filter((r) => r.outcome === 'refreshed')).toHaveLength(1);
    expect(await stores[1]!.get('acme', 'acme|carol', 'crm')).toMatchObject({ accessToken: 'new-from-r1', refreshToken: 'r2' });
  });

  it('deletes the link only when the upstream refuses; a transient failure keeps it', async () => {
    await stores[0]!.put('acme', 'acme|dave', 'crm', { accessToken: 'a', refreshToken: 'r', expiresAt: now() - 1 });
    expect((await stores[0]!.refreshOnce('acme', 'acme|dave', 'crm', stale, async () => ({ kind: 'unavailable' }))).outcome).toBe('unavailable');
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
    expect((await stores[0]!.refreshOnce('acme', 'acme|erin', 'crm', stale, async () => ({ kind: 'unavailable' }))).outcome).toBe('refused');
    expect(await stores[0]!.list('acme', 'acme|erin')).toHaveLength(1);
    // Rows are sealed and bound to their (tenant, subject, connector).
    const { rows } = await pools[0]!.query<{ sealed: string }>(`SELECT sealed FROM "${schema}".vault_token`);
    expect(JSON.stringify(rows)).not.toContain('secret-wiki');
    await pools[0]!.query(`UPDATE "${schema}".vault_token SET subject = 'acme|mallory' WHERE subject = 'acme|erin'`);
    await expect(stores[0]!.get('acme', 'acme|mallory', 'wiki')).rejects.toThrow();
  });
});

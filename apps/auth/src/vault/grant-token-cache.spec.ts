import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { SecretBox } from '@switchboard/secret-box';
import { migrateAuthSchema } from '../db/migrate';
import { GrantTokenCache } from './grant-token-cache';

const DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The enterprise-grant token cache against real Postgres: sealed rows, bound to the grant settings, capped per tenant. */
describe('GrantTokenCache', () => {
  const schema = `auth_grant_${randomBytes(5).toString('hex')}`;
  const box = new SecretBox(randomBytes(32));
  let pool: Pool;
  let cache: GrantTokenCache;
  const now = () => Math.floor(Date.now() / 1000);

  beforeAll(async () => {
    pool = new Pool({ connectionString: DATABASE_URL, max: 4 });
    await migrateAuthSchema(pool, schema);
    cache = new GrantTokenCache(pool, schema, box, 2);
  });
  afterAll(async () => {
    await pool?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool?.end();
  });

  it('keeps tokens sealed at rest and hands them back only for the same grant settings while valid', async () => {
    expect(await cache.put('acme', 'acme|local|carol', 'crm', 'k1', { accessToken: 'carol-upstream-token', expiresAt: now() + 600 })).toBe(
      true,
    );
    const { rows } = await pool.query<{ sealed: string }>(`SELECT sealed FROM "${schema}".grant_token`);
    expect(rows[0]?.sealed).not.toContain('carol-upstream-token');
    expect(await cache.get('acme', 'acme|local|carol', 'crm', 'k1', 30)).toEqual({
      accessToken: 'carol-upstream-token',
      expiresAt: expect.any(Number),
    });
    // Changed settings, another user, another tenant, or too close to expiry: a miss.
    expect(await cache.get('acme', 'acme|local|carol', 'crm', 'k2', 30)).toBeUndefined();
    expect(await cache.get('acme', 'acme|local|dave', 'crm', 'k1', 30)).toBeUndefined();
    expect(await cache.get('other', 'acme|local|carol', 'crm', 'k1', 30)).toBeUndefined();
    expect(await cache.get('acme', 'acme|local|carol', 'crm', 'k1', 900)).toBeUndefined();
    await cache.delete('acme', 'acme|local|carol', 'crm');
    expect(await cache.get('acme', 'acme|local|carol', 'crm', 'k1', 0)).toBeUndefined();
  });

  it('stores at most its cap per tenant (updates and expired rows make room), other tenants unaffected', async () => {
    expect(await cache.put('capped', 'u1', 'crm', 'k', { accessToken: 'a', expiresAt: now() + 600 })).toBe(true);
    expect(await cache.put('capped', 'u2', 'crm', 'k', { accessToken: 'b', expiresAt: now() - 1 })).toBe(true);
    // u2's row expired: dropped on the next write, so u3 fits.
    expect(await cache.put('capped', 'u3', 'crm', 'k', { accessToken: 'c', expiresAt: now() + 600 })).toBe(true);
    expect(await cache.put('capped', 'u4', 'crm', 'k', { accessToken: 'd', expiresAt: now() + 600 })).toBe(false);
    expect(await cache.get('capped', 'u4', 'crm', 'k', 0)).toBeUndefined();
    // An existing entry is still refreshed at the cap.
    expect(await cache.put('capped', 'u1', 'crm', 'k', { accessToken: 'a2', expiresAt: now() + 600 })).toBe(true);
    expect((await cache.get('capped', 'u1', 'crm', 'k', 0))?.accessToken).toBe('a2');
    expect(await cache.put('roomy', 'u1', 'crm', 'k', { accessToken: 'e', expiresAt: now() + 600 })).toBe(true);
    const { rows } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".grant_token WHERE tenant_id = 'capped'`);
    expect(rows[0]?.n).toBe(2);
  });
});

import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import {
  api,
  cleanRedis,
  createDatabase,
  createTenant,
  obtainTokens,
  REDIS_URL,
  registerAndDiscover,
  startRegistry,
  testEnv,
  token,
  TestUpstream,
  type Proc,
} from '@switchboard/testing';
import { IdpChangePurge } from '../src/users/idp-change-purge';
import { idpIdOf } from '../src/users/subject';
import { GrantTokenCache } from '../src/vault/grant-token-cache';
import { DATABASE_URL, freePort, startAuth, type TestAuth } from './support/auth-harness';
import { startTestIdp, type TestIdp } from './support/test-idp';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';

interface AuditEntry {
  action: string;
  actor: string;
  details: Record<string, unknown>;
}

/**
 * Issue 41: changing a tenant's IdP never lets a new identity reach what an old identity left.
 * Real registry (tenant settings changed through its admin API, documents pushed through Redis)
 * and auth on Postgres: vault rows, sessions, grants and refresh tokens of the tenant's former
 * identity sources are purged when the new settings arrive (or on the tenant's first request once
 * auth is back, if it was down), and the purge lands in the registry's audit log with counts; a
 * re-save without an IdP change purges nothing.
 */
describe('an IdP change purges what former identities left', () => {
  const env = { ...testEnv(), internalToken: `internal-${randomBytes(12).toString('hex')}` };
  const schema = `auth_t_${randomBytes(5).toString('hex')}`;
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let upstream: TestUpstream;
  let idpA: TestIdp;
  let idpB: TestIdp;
  let auth: TestAuth | undefined;
  let authPort: number;
  let key: string;
  let pg: Client;

  const issuer = () => `http://127.0.0.1:${authPort}/t/acme`;
  const bootAuth = (mode: 'development' | 'production' = 'development') =>
    startAuth({
      port: authPort,
      schema,
      tenants: [],
      env: {
        SWITCHBOARD_ENV: mode,
        INTERNAL_TOKEN: env.internalToken,
        REGISTRY_INTERNAL_URL: registry.url,
        REDIS_URL,
        REDIS_NAMESPACE: env.namespace,
        CATALOG_SECRETS_KEY: env.secretsKey,
        // The vault's rows are sealed with SECRETS_KEY: a restarted replica must open them too.
        SECRETS_KEY: secretsKey,
        LIMITS_KEY_PREFIX: `idp${randomBytes(4).toString('hex')}:`,
      },
    });
  const secretsKey = randomBytes(32).toString('base64');

  const subjects = async (tenant = 'acme') =>
    (
      await pg.query<{ subject: string; connector: string }>(
        `SELECT subject, connector FROM "${schema}".vault_token WHERE tenant_id = $1 ORDER BY subject, connector`,
        [tenant],
      )
    ).rows.map((r) => `${r.subject} ${r.connector}`);
  const purgeEntries = async () => {
    const log = await api(registry.url, key, 'GET', '/v1/audit');
    return (log.body.entries as AuditEntry[]).filter((e) => e.action === 'vault.purge-idp-change');
  };
  /** Saves auth settings at the registry and waits until auth serves them and has reconciled the tenant. */
  const saveAuth = async (body: Record<string, unknown>, arrived: (t: TestAuth) => boolean) => {
    const res = await api(registry.url, key, 'PATCH', '/v1/tenant/auth', body);
    expect([res.status, res.body.pushed]).toEqual([200, 'ok']);
    const a = auth as TestAuth;
    const deadline = Date.now() + 10_000;
    while (!arrived(a)) {
      if (Date.now() > deadline) throw new Error('the new settings did not reach auth');
      await new Promise((r) => setTimeout(r, 20));
    }
    await a.services.idpPurge.whenIdle();
  };
  const idpIs = (expected: string) => (t: TestAuth) => {
    const tenant = t.tenants.get('acme');
    return tenant !== undefined && idpIdOf(tenant.settings.idp) === expected;
  };
  const exchange = (accessToken: string) =>
    fetch(`${(auth as TestAuth).baseUrl}/internal/t/acme/token-exchange`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${env.internalToken}` },
      body: new URLSearchParams({ grant_type: TOKEN_EXCHANGE, subject_token: accessToken, audience: 'crm' }).toString(),
    });

  beforeAll(async () => {
    db = await createDatabase();
    pg = new Client({ connectionString: DATABASE_URL });
    await pg.connect();
    authPort = await freePort();
    const callback = [`http://127.0.0.1:${authPort}/t/acme/federation/callback`];
    idpA = await startTestIdp([{ client_id: 'switchboard-acme', redirect_uris: callback }]);
    idpB = await startTestIdp([{ client_id: 'switchboard-acme', redirect_uris: callback }]);
    upstream = await TestUpstream.start({ stateful: false, name: 'crm' });
    registry = await startRegistry(env, db.url, {
      AUTH_PUBLIC_URL: `http://127.0.0.1:${authPort}`,
      REGISTRY_ALLOW_HTTP_HOSTS: 'localhost,127.0.0.1',
    });
    key = await createTenant(registry.url, env.operatorKey, 'acme');
    expect(await registerAndDiscover(registry.url, key, { id: 'crm', name: 'CRM', url: upstream.url })).toMatchObject({ health: 'ok' });
    const published = await api(registry.url, key, 'POST', '/v1/publications', {
      serverId: 'crm',
      items: [
        { kind: 'tool', name: 'whoami', overrides: { annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false } } },
      ],
    });
    expect(published.status).toBe(200);
    // A connector, so a token exchange can ask the vault for a user's upstream token.
    expect(
      (await api(registry.url, key, 'PUT', '/v1/servers/crm/connector', { issuer: idpA.issuer, clientId: 'crm', scopes: ['openid'] }))
        .status,
    ).toBe(200);
    expect((await api(registry.url, key, 'PATCH', '/v1/tenant/auth', { protected: true, idp: { kind: 'local' } })).status).toBe(200);
    auth = await bootAuth();
  }, 120_000);

  afterAll(async () => {
    await auth?.close();
    await pg?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
    await pg?.end();
    await registry?.stop();
    await upstream?.stop();
    await idpA?.close();
    await idpB?.close();
    await cleanRedis(env);
    await db?.drop();
  });

  it('directory and any-name identities lose their vault rows, sessions and refresh tokens when the tenant moves to an enterprise IdP', async () => {
    const a = auth as TestAuth;
    // The tenant's first request reads it (lazy loading) and reconciles it against its sources.
    expect(await a.touch('acme')).toBe(200);
    await a.services.idpPurge.whenIdle();
    // alice signs in with the development any-name login (`acme|local|alice`) and keeps a refresh token.
    const alice = await obtainTokens(issuer(), { user: 'alice', resource: a.mcpUrl('acme') });
    expect(alice.status).toBe(200);
    expect(alice.body.refresh_token).toEqual(expect.any(String));
    // Linked upstream accounts of the directory and any-name identities, the admin's own link, and another tenant's row.
    await a.services.vault.put('acme', 'acme|local|alice', 'crm', { accessToken: 'upstream-token-of-local-alice' });
    await a.services.vault.put('acme', 'acme|dir|alice', 'crm', { accessToken: 'upstream-token-of-dir-alice' });
    await a.services.vault.put('acme', 'acme|dir|bob', 'docs', { accessToken: 'upstream-token-of-dir-bob' });
    await a.services.vault.put('acme', '_tenant_admin', 'crm', { accessToken: 'upstream-token-of-the-admin' });
    await a.services.vault.put('beta', 'beta|dir|alice', 'crm', { accessToken: 'upstream-token-of-beta-alice' });
    // Upstream tokens the enterprise grant cached for those identities (and another tenant's).
    const grantCache = new GrantTokenCache(a.services.pool, schema, a.services.box);
    const inAnHour = Math.floor(Date.now() / 1000) + 3600;
    for (const [tenant, subject] of [
      ['acme', 'acme|local|alice'],
      ['acme', 'acme|dir|bob'],
      ['beta', 'beta|dir|alice'],
    ] as const) {
      expect(await grantCache.put(tenant, subject, 'crm', 'k', { accessToken: `grant-token-of-${subject}`, expiresAt: inAnHour })).toBe(
        true,
      );
    }
    // While the tenant is still on the directory, its own identity can exchange its token.
    const before = await exchange(String(alice.body.access_token));
    expect(before.status).toBe(200);

    await saveAuth(
      { idp: { kind: 'oidc', issuer: idpA.issuer, clientId: 'switchboard-acme' } },
      idpIs(idpIdOf({ kind: 'oidc', issuer: idpA.issuer, clientId: 'x', scopes: [] })),
    );

    expect(await subjects()).toEqual(['_tenant_admin crm']);
    expect(await subjects('beta')).toEqual(['beta|dir|alice crm']);
    const cached = await pg.query<{ subject: string }>(`SELECT subject FROM "${schema}".grant_token ORDER BY subject`);
    expect(cached.rows.map((r) => r.subject)).toEqual(['beta|dir|alice']);
    const artefacts = await pg.query(
      `SELECT model FROM "${schema}".oidc_model WHERE tenant_id = 'acme' AND payload->>'accountId' LIKE 'acme|local|%'`,
    );
    expect(artefacts.rows).toEqual([]);
    const refreshed = await token(issuer(), {
      grant_type: 'refresh_token',
      refresh_token: String(alice.body.refresh_token),
      client_id: alice.clientId,
    });
    expect([refreshed.status, refreshed.body.error]).toEqual([400, 'invalid_grant']);
    const [entry, ...more] = await purgeEntries();
    expect(more).toEqual([]);
    expect(entry).toMatchObject({
      actor: 'auth-service',
      details: {
        rows: 3,
        connectors: ['crm', 'docs'],
        sources: ['dir', 'local'],
        kept: [idpIdOf({ kind: 'oidc', issuer: idpA.issuer, clientId: 'x', scopes: [] })],
      },
    });
    expect(Number(entry?.details.artefacts)).toBeGreaterThan(0);
    expect(JSON.stringify(entry)).not.toContain('upstream-token');
  });

  it('an identity of the new IdP with the same sub gets no upstream token; issuer A → B purges A', async () => {
    const a = auth as TestAuth;
    const idA = idpIdOf({ kind: 'oidc', issuer: idpA.issuer, clientId: 'x', scopes: [] });
    const idB = idpIdOf({ kind: 'oidc', issuer: idpB.issuer, clientId: 'x', scopes: [] });
    // alice at IdP A links her upstream account (stored through the vault, as the link callback does).
    const atA = await obtainTokens(issuer(), { resource: a.mcpUrl('acme') });
    expect(atA.status).toBe(200);
    expect(idpA.logins).toContain('alice');
    await a.services.vault.put('acme', `acme|${idA}|alice`, 'crm', { accessToken: 'upstream-token-of-idp-a-alice' });
    expect((await exchange(String(atA.body.access_token))).status).toBe(200);

    await saveAuth({ idp: { kind: 'oidc', issuer: idpB.issuer, clientId: 'switchboard-acme' } }, idpIs(idB));

    expect(await subjects()).toEqual(['_tenant_admin crm']);
    // alice at IdP B: same `sub`, another person as far as the tenant knows. Nothing is linked for her.
    const atB = await obtainTokens(issuer(), { resource: a.mcpUrl('acme') });
    expect(atB.status).toBe(200);
    expect(idpB.logins).toContain('alice');
    const res = await exchange(String(atB.body.access_token));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_grant', reason: 'not_linked' });
    const entries = await purgeEntries();
    expect(entries).toHaveLength(2);
    // Newest first.
    expect(entries[0]).toMatchObject({ details: { rows: 1, connectors: ['crm'], sources: [idA], kept: [idB] } });
  });

  it('re-saving the same IdP purges nothing', async () => {
    const a = auth as TestAuth;
    const idB = idpIdOf({ kind: 'oidc', issuer: idpB.issuer, clientId: 'x', scopes: [] });
    await a.services.vault.put('acme', `acme|${idB}|alice`, 'crm', { accessToken: 'upstream-token-of-idp-b-alice' });
    await saveAuth(
      { idp: { kind: 'oidc', issuer: idpB.issuer, clientId: 'switchboard-acme' }, scopes: ['mcp:tools', 'mcp:extra'] },
      (t) => t.tenants.get('acme')?.settings.scopes.includes('mcp:extra') === true,
    );
    expect(await subjects()).toEqual(['_tenant_admin crm', `acme|${idB}|alice crm`]);
    expect(await purgeEntries()).toHaveLength(2);
  });

  it('a change made while auth is down is applied, and audited, when auth comes back', async () => {
    const idB = idpIdOf({ kind: 'oidc', issuer: idpB.issuer, clientId: 'x', scopes: [] });
    await (auth as TestAuth).close();
    auth = undefined;
    const res = await api(registry.url, key, 'PATCH', '/v1/tenant/auth', { idp: { kind: 'local' } });
    expect(res.status).toBe(200);
    auth = await bootAuth();
    // Nothing is read at boot (lazy loading, the default), so what IdP B's alice left is still there…
    await auth.services.idpPurge.whenIdle();
    expect(auth.tenants.get('acme')).toBeUndefined();
    expect(await subjects()).toEqual(['_tenant_admin crm', `acme|${idB}|alice crm`]);
    // …until the tenant's first request reads the changed document, which purges it.
    expect(await auth.touch('acme')).toBe(200);
    await auth.services.idpPurge.whenIdle();
    expect(auth.tenants.get('acme')?.settings.idp.kind).toBe('local');
    expect(await subjects()).toEqual(['_tenant_admin crm']);
    const entries = await purgeEntries();
    expect(entries).toHaveLength(3);
    expect(entries[0]).toMatchObject({ details: { rows: 1, sources: [idB], kept: ['dir', 'local'] } });
  });

  it('identities of the any-name login go when the service leaves development; directory ones stay', async () => {
    const a = auth as TestAuth;
    await a.services.vault.put('acme', 'acme|local|carol', 'crm', { accessToken: 'upstream-token-of-local-carol' });
    await a.services.vault.put('acme', 'acme|dir|dave', 'crm', { accessToken: 'upstream-token-of-dir-dave' });
    await a.close();
    auth = undefined;
    auth = await bootAuth('production');
    expect(await auth.touch('acme')).toBe(200);
    await auth.services.idpPurge.whenIdle();
    expect(await subjects()).toEqual(['_tenant_admin crm', 'acme|dir|dave crm']);
    const entries = await purgeEntries();
    expect(entries).toHaveLength(4);
    expect(entries[0]).toMatchObject({ details: { rows: 1, connectors: ['crm'], sources: ['local'], kept: ['dir'] } });
  });

  it('a purge made while the registry is unreachable is audited once it answers again', async () => {
    const a = auth as TestAuth;
    const s = a.services;
    // A replica whose registry does not answer (nothing listens on the port), on the same database.
    const unreachable = new IdpChangePurge({
      pool: s.pool,
      schema,
      box: s.box,
      vault: s.vault,
      tenants: s.tenants,
      directory: { registryUrl: `http://127.0.0.1:${await freePort()}`, internalToken: env.internalToken, timeoutMs: 1000 },
      devLogin: false,
      logger: s.logger,
    });
    // As on a database that never reconciled this tenant: a row of the retired any-name login is still there.
    await pg.query(`DELETE FROM "${schema}".tenant_identity_sources WHERE tenant_id = 'acme'`);
    await s.vault.put('acme', 'acme|local|erin', 'docs', { accessToken: 'upstream-token-of-local-erin' });
    expect(await unreachable.reconcile('acme')).toMatchObject({ rows: 1, sources: ['local'] });
    expect(await unreachable.report()).toBe(0);
    expect(await subjects()).toEqual(['_tenant_admin crm', 'acme|dir|dave crm']);
    expect(await purgeEntries()).toHaveLength(4);
    const pending = await pg.query(`SELECT 1 FROM "${schema}".vault_idp_purge WHERE audited_at IS NULL AND report_until IS NULL`);
    expect(pending.rows).toHaveLength(1);
    // The next round of a replica that reaches the registry reports it, once.
    expect(await s.idpPurge.report()).toBe(1);
    expect(await s.idpPurge.report()).toBe(0);
    const entries = await purgeEntries();
    expect(entries).toHaveLength(5);
    expect(entries[0]).toMatchObject({ details: { rows: 1, connectors: ['docs'], sources: ['local'], kept: ['dir'] } });
  });

  it("a former identity's pending account link is purged too, so it cannot complete into the vault", async () => {
    const s = (auth as TestAuth).services;
    // What the confirmation page stores before sending the browser to the upstream (link-confirmation.ts).
    await s.federation.put(
      'state-of-a-local-identity',
      'acme',
      'link',
      { subject: 'acme|local|frank', connector: 'crm', verifier: 'v' },
      300,
    );
    await s.federation.put(
      'state-of-a-directory-identity',
      'acme',
      'link',
      { subject: 'acme|dir|dave', connector: 'docs', verifier: 'v' },
      300,
    );
    await pg.query(`DELETE FROM "${schema}".tenant_identity_sources WHERE tenant_id = 'acme'`);
    expect(await s.idpPurge.reconcile('acme')).toMatchObject({ rows: 0, linkStates: 1, sources: ['local'] });
    expect(await s.federation.take('state-of-a-local-identity', 'acme', 'link')).toBeUndefined();
    expect(await s.federation.take('state-of-a-directory-identity', 'acme', 'link')).toMatchObject({ subject: 'acme|dir|dave' });
    expect(await s.idpPurge.report()).toBe(1);
    expect((await purgeEntries())[0]).toMatchObject({ details: { rows: 0, linkStates: 1, sources: ['local'], kept: ['dir'] } });
  });
});

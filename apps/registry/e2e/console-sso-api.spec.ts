// Console SSO (issue 44 item 4) at the HTTP level: the setting's checks (SSRF guard on the issuer,
// bounds, owner-only, secret sealed at rest and never returned) and the sign-in's refusals
// (no SSO, state mismatch, tampered cookie), with a real oidc-provider as the tenant's IdP.
import { createServer, type Server } from 'node:http';
import { Client } from 'pg';
import { startTestIdp, type TestIdp } from '../../auth/e2e/support/test-idp';
import { api, cleanRedis, createDatabase, createTenant, startRegistry, testEnv, type Proc } from './support/harness';

jest.setTimeout(60_000);

describe('console SSO setting and sign-in refusals', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let idp: TestIdp;
  let key: string;
  let adminKey: string;
  const secret = 'a-very-distinctive-client-secret';

  /** A tenant-chosen "IdP" that answers discovery normally until told to send a huge document or nothing at all. */
  let rogue: Server;
  let rogueUrl: string;
  let rogueMode: 'ok' | 'huge' | 'hang' = 'ok';

  const get = (path: string, cookie?: string) => fetch(`${registry.url}${path}`, { redirect: 'manual', headers: cookie ? { cookie } : {} });

  beforeAll(async () => {
    db = await createDatabase();
    registry = await startRegistry(env, db.url, { REGISTRY_ALLOW_HTTP_HOSTS: 'localhost,127.0.0.1' });
    idp = await startTestIdp([{ client_id: 'console', client_secret: secret, redirect_uris: [`${registry.url}/console/sso/callback`] }], {
      groups: () => ['Admins'],
    });
    key = await createTenant(registry.url, env.operatorKey, 'acme');
    rogue = createServer((req, res) => {
      if (rogueMode === 'hang') return; // never answers: the registry's deadline must end the wait
      res.setHeader('content-type', 'application/json');
      const doc = {
        issuer: rogueUrl,
        authorization_endpoint: `${rogueUrl}/auth`,
        token_endpoint: `${rogueUrl}/token`,
        jwks_uri: `${rogueUrl}/jwks`,
        response_types_supported: ['code'],
      };
      res.end(JSON.stringify(rogueMode === 'huge' ? { ...doc, padding: 'x'.repeat(2 * 1024 * 1024) } : doc));
    });
    await new Promise<void>((r) => rogue.listen(0, '127.0.0.1', () => r()));
    rogueUrl = `http://127.0.0.1:${(rogue.address() as { port: number }).port}`;
    adminKey = String((await api(registry.url, key, 'POST', '/v1/keys', { name: 'admin', role: 'admin' })).body.apiKey);
  });

  afterAll(async () => {
    await registry?.stop();
    await idp?.close();
    rogue?.closeAllConnections();
    await new Promise((r) => rogue?.close(r));
    await db?.drop();
    await cleanRedis(env);
  });

  it('refuses an issuer the SSRF guard blocks, naming body.issuer', async () => {
    const r = await api(registry.url, key, 'PUT', '/v1/console-sso', { issuer: 'http://169.254.169.254/', clientId: 'console' });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'URL_REFUSED', field: 'body.issuer' });
  });

  it('bounds the role map and names the field', async () => {
    const roleMap = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`group-${i}`, 'viewer']));
    const r = await api(registry.url, key, 'PUT', '/v1/console-sso', { issuer: idp.issuer, clientId: 'console', roleMap });
    expect(r.status).toBe(400);
    expect(r.body.error?.field).toBe('body.roleMap');
    const badRole = await api(registry.url, key, 'PUT', '/v1/console-sso', {
      issuer: idp.issuer,
      clientId: 'console',
      roleMap: { Admins: 'root' },
    });
    expect(badRole.body.error?.field).toBe('body.roleMap.Admins');
  });

  it('lets only an owner change it; stores the secret sealed and never returns it', async () => {
    const denied = await api(registry.url, adminKey, 'PUT', '/v1/console-sso', { issuer: idp.issuer, clientId: 'console' });
    expect(denied.status).toBe(403);
    const saved = await api(registry.url, key, 'PUT', '/v1/console-sso', {
      issuer: idp.issuer,
      clientId: 'console',
      clientSecret: secret,
      roleMap: { Admins: 'admin' },
      jit: true,
    });
    expect(saved.status).toBe(200);
    expect(saved.body.sso).toMatchObject({ issuer: idp.issuer, hasClientSecret: true, roleMap: { Admins: 'admin' }, jit: true });
    expect(JSON.stringify(saved.body)).not.toContain(secret);
    // Omitting the secret keeps it.
    const again = await api(registry.url, key, 'PUT', '/v1/console-sso', {
      issuer: idp.issuer,
      clientId: 'console',
      roleMap: { Admins: 'admin' },
      jit: true,
    });
    expect((again.body.sso as { hasClientSecret: boolean }).hasClientSecret).toBe(true);
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    try {
      const row = (
        await pg.query<{ client_secret_sealed: string }>("SELECT client_secret_sealed FROM registry.console_sso WHERE tenant_id = 'acme'")
      ).rows[0];
      expect(row.client_secret_sealed).toEqual(expect.any(String));
      expect(row.client_secret_sealed).not.toContain(secret);
    } finally {
      await pg.end();
    }
    const audit = (await api(registry.url, key, 'GET', '/v1/audit')).body.entries as Array<{
      action: string;
      details: Record<string, unknown>;
    }>;
    // Newest first: the second save kept the secret, the first set it.
    expect(audit.filter((e) => e.action === 'sso.settings').map((e) => e.details.secretChanged)).toEqual([false, true]);
    expect(JSON.stringify(audit)).not.toContain(secret);
  });

  it('starts a sign-in with PKCE S256, state and nonce at the IdP', async () => {
    const r = await get('/console/sso/login?workspace=acme&returnTo=%23%2Fteam');
    expect(r.status).toBe(302);
    const to = new URL(String(r.headers.get('location')));
    expect(to.origin).toBe(idp.issuer);
    expect(Object.fromEntries(to.searchParams)).toMatchObject({
      client_id: 'console',
      code_challenge_method: 'S256',
      redirect_uri: `${registry.url}/console/sso/callback`,
      response_type: 'code',
    });
    expect(to.searchParams.get('state')).toEqual(expect.any(String));
    expect(to.searchParams.get('nonce')).toEqual(expect.any(String));
    expect(to.searchParams.get('scope')).toBe('openid email profile groups');
    expect(r.headers.get('set-cookie')).toMatch(/^sb_console_sso=[^;]+;.*Path=\/console\/sso;.*HttpOnly/i);
  });

  it('sends a workspace without SSO back to sign-in with sso_not_configured', async () => {
    await createTenant(registry.url, env.operatorKey, 'beta');
    for (const ws of ['beta', 'no-such-workspace', '../etc']) {
      const r = await get(`/console/sso/login?workspace=${encodeURIComponent(ws)}`);
      expect([r.status, r.headers.get('location')]).toEqual([302, '/console/?signin_error=sso_not_configured']);
    }
  });

  it('refuses a callback without its sign-in cookie, with another state, or with a tampered cookie', async () => {
    const start = await get('/console/sso/login?workspace=acme');
    const cookie = String(start.headers.get('set-cookie')).split(';')[0];
    const state = new URL(String(start.headers.get('location'))).searchParams.get('state');
    const cases: Array<[string, string | undefined]> = [
      [`/console/sso/callback?code=x&state=${state}`, undefined],
      ['/console/sso/callback?code=x&state=another-state', cookie],
      [`/console/sso/callback?code=x&state=${state}`, `${cookie.slice(0, -4)}AAAA`],
    ];
    for (const [path, c] of cases) {
      const r = await get(path, c);
      expect([r.status, r.headers.get('location')]).toEqual([302, '/console/?signin_error=state_mismatch']);
    }
    // The right state with a code the IdP never issued: the token exchange fails, no session.
    const bad = await get(`/console/sso/callback?code=forged-code&state=${state}`, cookie);
    expect(bad.headers.get('location')).toBe('/console/?signin_error=token_rejected');
    expect(String(bad.headers.get('set-cookie'))).not.toContain('sb_console=');
  });

  it('bounds what the IdP may send: an oversized or silent discovery ends as signin_error=unavailable, not a hang or a 500', async () => {
    const gammaKey = await createTenant(registry.url, env.operatorKey, 'gamma');
    expect(
      (await api(registry.url, gammaKey, 'PUT', '/v1/console-sso', { issuer: rogueUrl, clientId: 'console', roleMap: { Admins: 'admin' } }))
        .status,
    ).toBe(200);
    rogueMode = 'huge';
    const huge = await get('/console/sso/login?workspace=gamma');
    expect([huge.status, huge.headers.get('location')]).toEqual([302, '/console/?signin_error=unavailable']);
    rogueMode = 'hang';
    const started = Date.now();
    const silent = await get('/console/sso/login?workspace=gamma');
    expect([silent.status, silent.headers.get('location')]).toEqual([302, '/console/?signin_error=unavailable']);
    // SSO_TIMEOUT_S (10 s) bounds the wait.
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 40_000);
});

// Console admins and sign-in through the platform's OAuth issuer (BFF), against a real registry
// process (Postgres, Redis) and a small local authorization server implementing the platform
// issuer's contract (e2e/support/fake-platform-issuer.ts; the real one lives in apps/auth).
import { tamper } from '@switchboard/testing';
import { api, cleanRedis, createDatabase, createTenant, registerAndDiscover, startRegistry, startUpstream, testEnv, until, type Proc, type TestUpstream } from './support/harness';
import { startFakePlatformIssuer, type FakePlatformIssuer } from './support/fake-platform-issuer';

jest.setTimeout(90_000);

const ADA = { username: 'ada@acme.test', password: 'correct horse battery', name: 'Ada Lovelace' };
const BOB = { username: 'bob', password: 'globex-password-1', name: 'Bob' };

/** Set-Cookie headers of a response by cookie name (the whole header line). */
function setCookies(res: Response): Map<string, string> {
  return new Map(res.headers.getSetCookie().map((line) => [line.slice(0, line.indexOf('=')), line]));
}
const cookieValue = (line: string | undefined) => (line ? line.slice(line.indexOf('=') + 1).split(';')[0] : '');

describe('console admins and platform OAuth sign-in (BFF)', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let issuer: FakePlatformIssuer;
  let registry: Proc;
  let upstreamA: TestUpstream;
  let upstreamG: TestUpstream;
  let keyAcme: string;
  let keyGlobex: string;

  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${registry.url}${path}`, { redirect: 'manual', headers });

  /** The browser's part: /console/login → issuer → /console/callback; returns the callback's response and the login cookie. */
  async function signIn(login: FakePlatformIssuer['nextLogin'], query = 'workspace=acme&returnTo=%23%2Ftools') {
    const start = await get(`/console/login?${query}`);
    expect(start.status).toBe(302);
    const loginCookie = cookieValue(setCookies(start).get('sb_console_login'));
    issuer.nextLogin = login;
    const atIssuer = await fetch(start.headers.get('location') ?? '', { redirect: 'manual' });
    expect(atIssuer.status).toBe(302);
    const callback = new URL(atIssuer.headers.get('location') ?? '');
    expect(`${callback.origin}${callback.pathname}`).toBe(`${registry.url}/console/callback`);
    const done = await get(`${callback.pathname}${callback.search}`, { cookie: `sb_console_login=${loginCookie}` });
    return { start, callback, done, loginCookie };
  }

  const session = (cookie: string, extra: Record<string, string> = { 'x-switchboard-console': '1' }) => ({ cookie: `sb_console=${cookie}`, ...extra });
  const asSession = async (cookie: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${registry.url}${path}`, {
      method,
      headers: { ...session(cookie), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, unknown> & { error?: { code: string; message: string; field?: string } } };
  };

  async function signedIn(user: { username: string; password: string }, tenant = 'acme'): Promise<string> {
    const { done } = await signIn({ tenant, ...user });
    expect(done.headers.get('location')).toMatch(/^\/console\/(#\/.*)?$/);
    const cookie = cookieValue(setCookies(done).get('sb_console'));
    expect(cookie).toMatch(/^v2\.[A-Za-z0-9_-]{8}\./);
    return cookie;
  }

  beforeAll(async () => {
    db = await createDatabase();
    issuer = await startFakePlatformIssuer();
    upstreamA = await startUpstream('acme-up', [{ name: 'acme_tool' }]);
    upstreamG = await startUpstream('globex-up', [{ name: 'globex_tool' }]);
    // REGISTRY_PORT=0 and no REGISTRY_PUBLIC_URL: the redirect URI and audience follow the bound port.
    registry = await startRegistry(env, db.url, { CONSOLE_ISSUER: issuer.issuer });
    issuer.client.redirectUri = `${registry.url}/console/callback`;
    issuer.client.audience = `${registry.url}/v1`;
    issuer.verifyLogin = async (tenant, username, password) => {
      const res = await api(registry.url, env.internalToken, 'POST', '/internal/console/verify-login', { tenant, username, password });
      return { ok: res.status === 200 && res.body.ok === true, name: res.body.name as string | undefined };
    };
    keyAcme = await createTenant(registry.url, env.operatorKey, 'acme', ADA);
    keyGlobex = await createTenant(registry.url, env.operatorKey, 'globex', BOB);
    await registerAndDiscover(registry.url, keyAcme, { id: 'acme-srv', name: 'Acme server', url: upstreamA.url });
    await registerAndDiscover(registry.url, keyGlobex, { id: 'globex-srv', name: 'Globex server', url: upstreamG.url });
  });

  afterAll(async () => {
    await registry?.stop();
    await issuer?.close();
    await upstreamA?.close();
    await upstreamG?.close();
    await db?.drop();
    await cleanRedis(env);
  });

  describe('admin accounts', () => {
    it('the operator creates the first admin with the tenant; the API lists admins without any secret', async () => {
      const created = await api(registry.url, env.operatorKey, 'POST', '/v1/tenants', { id: 'initech', name: 'Initech', admin: { username: 'peter', password: 'tps-reports-2026', name: 'Peter' } });
      expect(created.status).toBe(201);
      expect(created.body.admin).toEqual({ username: 'peter', name: 'Peter', createdAt: expect.any(String), lastLoginAt: null, disabled: false, role: 'owner' });
      const list = await api(registry.url, keyAcme, 'GET', '/v1/admins');
      expect(list.status).toBe(200);
      expect(list.body.admins).toEqual([{ username: ADA.username, name: ADA.name, createdAt: expect.any(String), lastLoginAt: null, disabled: false, role: 'owner' }]);
      expect(JSON.stringify([created.body, list.body])).not.toMatch(/scrypt|correct horse|tps-reports|password/i);
      const audit = await api(registry.url, keyAcme, 'GET', '/v1/audit');
      expect(audit.body.entries).toEqual(expect.arrayContaining([expect.objectContaining({ actor: 'operator', action: 'admin.create', target: ADA.username })]));
    });

    it('a tenant adds admins (201), refuses a taken username (409 body.username) and bad input naming the field', async () => {
      const carol = await api(registry.url, keyAcme, 'POST', '/v1/admins', { username: 'carol', password: 'carol-password-1' });
      expect(carol.status).toBe(201);
      expect(carol.body).toEqual({ username: 'carol', name: null, createdAt: expect.any(String), lastLoginAt: null, disabled: false, role: 'owner' });
      const dup = await api(registry.url, keyAcme, 'POST', '/v1/admins', { username: 'carol', password: 'another-password' });
      expect(dup.status).toBe(409);
      expect(dup.body.error).toMatchObject({ code: 'CONFLICT', field: 'body.username' });
      // The same username in another tenant is another account.
      expect((await api(registry.url, keyGlobex, 'POST', '/v1/admins', { username: 'carol', password: 'globex-carol-pw' })).status).toBe(201);
      const cases: Array<[unknown, string]> = [
        [{ username: 'x', password: 'short' }, 'body.password'],
        [{ username: 'x', password: 'p'.repeat(1025) }, 'body.password'],
        [{ username: 'has space', password: 'long-enough-pass' }, 'body.username'],
        [{ username: 'u'.repeat(65), password: 'long-enough-pass' }, 'body.username'],
        [{ password: 'long-enough-pass' }, 'body.username'],
        [{ username: 'x', password: 'long-enough-pass', role: 'root' }, 'body.role'],
        [{ username: 'x', password: 'long-enough-pass', admin: true }, 'body'],
      ];
      for (const [body, field] of cases) {
        const res = await api(registry.url, keyAcme, 'POST', '/v1/admins', body);
        expect({ status: res.status, field: res.body.error?.field }).toEqual({ status: 400, field });
        expect(res.body.error?.message).toContain(field);
      }
      const bad = await api(registry.url, env.operatorKey, 'POST', '/v1/tenants', { id: 'hooli', name: 'Hooli', admin: { username: 'gavin', password: 'short' } });
      expect({ status: bad.status, field: bad.body.error?.field }).toEqual({ status: 400, field: 'body.admin.password' });
      expect((await api(registry.url, keyAcme, 'GET', '/v1/tenants')).status).toBe(403);
    });

    it("lists and disables only the caller's own admins (disable is audited; unknown is 404)", async () => {
      expect(((await api(registry.url, keyGlobex, 'GET', '/v1/admins')).body.admins as Array<{ username: string }>).map((a) => a.username)).toEqual(['bob', 'carol']);
      expect((await api(registry.url, keyGlobex, 'DELETE', `/v1/admins/${encodeURIComponent(ADA.username)}`)).status).toBe(404);
      expect((await api(registry.url, keyAcme, 'DELETE', '/v1/admins/nobody')).status).toBe(404);
      expect((await api(registry.url, keyAcme, 'DELETE', '/v1/admins/bad%20name')).body.error?.field).toBe('params.username');
      const disabled = await api(registry.url, keyAcme, 'DELETE', '/v1/admins/carol');
      expect(disabled.status).toBe(200);
      expect(disabled.body).toMatchObject({ username: 'carol', disabled: true });
      const audit = await api(registry.url, keyAcme, 'GET', '/v1/audit');
      expect(audit.body.entries).toEqual(expect.arrayContaining([expect.objectContaining({ action: 'admin.disable', target: 'carol', actor: expect.stringMatching(/^key:/) })]));
      // Globex's carol is untouched.
      expect((await api(registry.url, keyGlobex, 'GET', '/v1/admins')).body.admins).toEqual(expect.arrayContaining([expect.objectContaining({ username: 'carol', disabled: false })]));
    });
  });

  describe('POST /internal/console/verify-login', () => {
    const verify = (body: unknown, token: string | null = env.internalToken) => api(registry.url, token ?? undefined, 'POST', '/internal/console/verify-login', body);

    it('answers ok with the tenant, username and name, and stamps lastLoginAt', async () => {
      const res = await verify({ tenant: 'acme', username: ADA.username, password: ADA.password });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ok: true, tenant: 'acme', username: ADA.username, name: ADA.name });
      const admins = (await api(registry.url, keyAcme, 'GET', '/v1/admins')).body.admins as Array<{ username: string; lastLoginAt: string | null }>;
      expect(admins.find((a) => a.username === ADA.username)?.lastLoginAt).toEqual(expect.any(String));
    });

    it.each([
      ['a wrong password', { tenant: 'acme', username: ADA.username, password: 'wrong horse battery' }],
      ['an unknown user', { tenant: 'acme', username: 'mallory', password: ADA.password }],
      ['a disabled admin', { tenant: 'acme', username: 'carol', password: 'carol-password-1' }],
      ['an unknown tenant', { tenant: 'nowhere', username: ADA.username, password: ADA.password }],
      ["another tenant's admin", { tenant: 'globex', username: ADA.username, password: ADA.password }],
      ['a malformed tenant id', { tenant: 'NOT A TENANT', username: ADA.username, password: ADA.password }],
    ])('answers 401 {ok: false} for %s, exactly as for any other failure', async (_what, body) => {
      const res = await verify(body);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ ok: false });
    });

    it('needs the internal token (401) and a well-formed body (400 naming the field)', async () => {
      const good = { tenant: 'acme', username: ADA.username, password: ADA.password };
      expect((await verify(good, null)).status).toBe(401);
      expect((await verify(good, keyAcme)).status).toBe(401);
      for (const [body, field] of [
        [{ tenant: 'acme', username: ADA.username }, 'body.password'],
        [{ tenant: 42, username: ADA.username, password: 'x' }, 'body.tenant'],
        [{ tenant: 'acme', username: '', password: 'x' }, 'body.username'],
        [{ tenant: 'acme', username: 'a', password: 'p'.repeat(1025) }, 'body.password'],
        [{ ...good, extra: true }, 'body'],
      ] as const) {
        const res = await verify(body);
        expect({ status: res.status, field: res.body.error?.field }).toEqual({ status: 400, field });
      }
    });
  });

  describe('sign-in through the platform issuer', () => {
    it('says OAuth is configured', async () => {
      const res = await get('/console/auth.json');
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ oauth: true, loginUrl: '/console/login' });
    });

    it("redirects to the issuer's authorization endpoint with PKCE, scope, resource and login_hint, state in a sealed cookie", async () => {
      const res = await get('/console/login?workspace=acme&returnTo=%23%2Ftools');
      expect(res.status).toBe(302);
      const to = new URL(res.headers.get('location') ?? '');
      expect(`${to.origin}${to.pathname}`).toBe(`${issuer.issuer}/auth`);
      const p = Object.fromEntries(to.searchParams);
      expect(p).toEqual({
        response_type: 'code',
        client_id: 'switchboard-console',
        redirect_uri: `${registry.url}/console/callback`,
        scope: 'console',
        resource: `${registry.url}/v1`,
        state: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        code_challenge_method: 'S256',
        login_hint: 'acme',
      });
      const cookie = setCookies(res).get('sb_console_login') ?? '';
      expect(cookie).toMatch(/^sb_console_login=v2\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]+; /);
      expect(cookie).toContain('Path=/console');
      expect(cookie).toContain('Max-Age=600');
      expect(cookie).toContain('HttpOnly');
      expect(cookie).toContain('SameSite=Lax');
      expect(cookie).not.toContain('Secure');
      // The cookie holds neither the state nor the verifier in clear.
      expect(cookie).not.toContain(p.state);
      // A workspace that is not a tenant id is not passed on.
      const odd = new URL((await get('/console/login?workspace=Not%20A%20Tenant')).headers.get('location') ?? '');
      expect(odd.searchParams.has('login_hint')).toBe(false);
    });

    it('signs in: the code is redeemed with the verifier, a session cookie is set and /v1/session names the user', async () => {
      const before = issuer.tokenRequests.length;
      const { done, loginCookie } = await signIn({ tenant: 'acme', ...ADA });
      expect(done.status).toBe(302);
      expect(done.headers.get('location')).toBe('/console/#/tools');
      const cookies = setCookies(done);
      const sessionLine = cookies.get('sb_console') ?? '';
      expect(sessionLine).toMatch(/^sb_console=v2\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]+; Path=\/; Max-Age=28800; HttpOnly; SameSite=Strict$/);
      expect(cookies.get('sb_console_login')).toMatch(/^sb_console_login=; Path=\/console; Max-Age=0;/);
      // The token request: public client, PKCE verifier, same redirect URI, the audience as resource.
      const form = issuer.tokenRequests[before];
      expect(Object.fromEntries(form)).toEqual({
        grant_type: 'authorization_code',
        code: expect.any(String),
        redirect_uri: `${registry.url}/console/callback`,
        client_id: 'switchboard-console',
        code_verifier: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        resource: `${registry.url}/v1`,
      });
      expect(loginCookie).not.toContain(form.get('code_verifier'));
      // The browser holds no token: nothing JWT-shaped in any header it got.
      expect(JSON.stringify([...done.headers])).not.toMatch(/eyJ[A-Za-z0-9_-]+\.eyJ/);

      const cookie = cookieValue(sessionLine);
      const me = await asSession(cookie, 'GET', '/v1/session');
      expect(me).toEqual({ status: 200, body: { tenant: 'acme', user: { username: ADA.username, name: ADA.name }, via: 'session', role: 'owner' } });
      const servers = await asSession(cookie, 'GET', '/v1/servers');
      expect((servers.body.servers as Array<{ id: string }>).map((s) => s.id)).toEqual(['acme-srv']);
      // Writes are audited as the user.
      const key = await asSession(cookie, 'POST', '/v1/keys', { name: 'made in the console' });
      expect(key.status).toBe(201);
      const audit = (await api(registry.url, keyAcme, 'GET', '/v1/audit')).body.entries as Array<{ actor: string; action: string }>;
      expect(audit).toEqual(expect.arrayContaining([
        expect.objectContaining({ actor: `user:${ADA.username}`, action: 'console.sign_in' }),
        expect.objectContaining({ actor: `user:${ADA.username}`, action: 'key.create' }),
      ]));
    });

    it('refuses the session cookie without the x-switchboard-console header (403), and a tampered or foreign cookie (401)', async () => {
      const cookie = await signedIn(ADA);
      for (const headers of [session(cookie, {}), session(cookie, { 'x-switchboard-console': '0' })]) {
        const res = await fetch(`${registry.url}/v1/servers`, { headers });
        expect(res.status).toBe(403);
        expect(((await res.json()) as { error: unknown }).error).toMatchObject({ code: 'FORBIDDEN', message: 'x-switchboard-console header required for cookie sessions' });
      }
      const tampered = tamper(cookie, -8);
      expect((await asSession(tampered, 'GET', '/v1/session')).status).toBe(401);
      // The login cookie is sealed for another purpose and never opens as a session.
      const start = await get('/console/login');
      expect((await asSession(cookieValue(setCookies(start).get('sb_console_login')), 'GET', '/v1/session')).status).toBe(401);
    });

    it("a signed-in admin only ever sees their own tenant, and a disabled admin's session stops at once", async () => {
      const bob = await signedIn(BOB, 'globex');
      expect((await asSession(bob, 'GET', '/v1/session')).body).toMatchObject({ tenant: 'globex', user: { username: 'bob' } });
      const servers = await asSession(bob, 'GET', '/v1/servers');
      expect(JSON.stringify(servers.body)).not.toMatch(/acme/);
      expect((await asSession(bob, 'GET', '/v1/servers/acme-srv')).status).toBe(404);
      expect((await api(registry.url, keyGlobex, 'POST', '/v1/admins', { username: 'dave', password: 'dave-password-1' })).status).toBe(201);
      const dave = await signedIn({ username: 'dave', password: 'dave-password-1' }, 'globex');
      expect((await asSession(dave, 'GET', '/v1/session')).status).toBe(200);
      expect((await api(registry.url, keyGlobex, 'DELETE', '/v1/admins/dave')).status).toBe(200);
      expect((await asSession(dave, 'GET', '/v1/session')).status).toBe(401);
      expect((await asSession(bob, 'GET', '/v1/session')).status).toBe(200);
    });

    it('drops a return path that is not a console route', async () => {
      const { done } = await signIn({ tenant: 'acme', ...ADA }, 'workspace=acme&returnTo=https%3A%2F%2Fevil.example%2F');
      expect(done.headers.get('location')).toBe('/console/');
    });

    it.each([
      ['a wrong password at the issuer', 'access_denied', { tenant: 'acme', username: ADA.username, password: 'not the password' }],
      ['the person cancelling', 'access_denied', { deny: true as const }],
      ['a disabled admin', 'access_denied', { tenant: 'acme', username: 'carol', password: 'carol-password-1' }],
    ])('sends %s back to the console with signin_error=%s and no session', async (_what, code, login) => {
      const { done } = await signIn(login);
      expect(done.status).toBe(302);
      expect(done.headers.get('location')).toBe(`/console/?signin_error=${code}`);
      expect(setCookies(done).has('sb_console')).toBe(false);
      expect(setCookies(done).get('sb_console_login')).toContain('Max-Age=0');
    });

    it('refuses a state that does not match the cookie, or no cookie at all (state_mismatch)', async () => {
      const start = await get('/console/login?workspace=acme');
      const loginCookie = cookieValue(setCookies(start).get('sb_console_login'));
      issuer.nextLogin = { tenant: 'acme', ...ADA };
      const callback = new URL((await fetch(start.headers.get('location') ?? '', { redirect: 'manual' })).headers.get('location') ?? '');
      const forged = new URLSearchParams(callback.search);
      forged.set('state', 'A'.repeat(43));
      const before = issuer.tokenRequests.length;
      const wrong = await get(`/console/callback?${forged}`, { cookie: `sb_console_login=${loginCookie}` });
      expect(wrong.headers.get('location')).toBe('/console/?signin_error=state_mismatch');
      const noCookie = await get(`/console/callback${callback.search}`);
      expect(noCookie.headers.get('location')).toBe('/console/?signin_error=state_mismatch');
      const garbage = await get(`/console/callback${callback.search}`, { cookie: 'sb_console_login=v1.garbage' });
      expect(garbage.headers.get('location')).toBe('/console/?signin_error=state_mismatch');
      // The code was never redeemed.
      expect(issuer.tokenRequests.length).toBe(before);
    });

    it.each([
      ['an access token for another audience', { audience: 'http://127.0.0.1:1/v1' }],
      ['an access token signed with a key not in the JWKS', { foreignKey: true }],
      ['an access token of another type', { typ: 'JWT' }],
      ['an access token without the console scope', { scope: 'mcp:tools' }],
      ['an access token without tid', { tid: null }],
      ['an access token whose tid is not its subject tenant', { tid: 'globex' }],
      ['an expired access token', { expiresInSeconds: -120 }],
    ])('refuses %s (token_rejected)', async (_what, tweaks) => {
      issuer.tokenTweaks = tweaks;
      const { done } = await signIn({ tenant: 'acme', ...ADA });
      expect(done.headers.get('location')).toBe('/console/?signin_error=token_rejected');
      expect(setCookies(done).has('sb_console')).toBe(false);
    });

    it('refuses a redirect whose iss names another issuer (mix-up defence)', async () => {
      issuer.issOverride = 'http://127.0.0.1:1/platform';
      const { done } = await signIn({ tenant: 'acme', ...ADA });
      expect(done.headers.get('location')).toBe('/console/?signin_error=token_rejected');
    });

    it('never answers the callback with a 500 or a stack trace, whatever the query', async () => {
      for (const q of ['', '?code=x', '?state=&code=', '?error=server_error&state=x', '?code[]=1&state[]=2', `?code=${'x'.repeat(5000)}`]) {
        const res = await get(`/console/callback${q}`);
        expect(res.status).toBe(302);
        expect(res.headers.get('location')).toMatch(/^\/console\/\?signin_error=(state_mismatch|access_denied|token_rejected|unavailable)$/);
      }
    });

    it('logs out: the session cookie is cleared (204), every copy of it stops working, and the sign-out is audited', async () => {
      const cookie = await signedIn(ADA);
      const other = await signedIn(ADA);
      expect((await asSession(cookie, 'GET', '/v1/session')).status).toBe(200);
      const res = await fetch(`${registry.url}/console/logout`, { method: 'POST', headers: { cookie: `sb_console=${cookie}` } });
      expect(res.status).toBe(204);
      expect(setCookies(res).get('sb_console')).toMatch(/^sb_console=; Path=\/; Max-Age=0; HttpOnly; SameSite=Strict/);
      // Revoked server-side: a copy of the cookie kept elsewhere is refused; another session of the same admin is not.
      const copy = await asSession(cookie, 'GET', '/v1/session');
      expect(copy.status).toBe(401);
      expect(copy.body.error).toMatchObject({ code: 'UNAUTHENTICATED', field: 'session', message: expect.stringMatching(/signed out/) });
      expect((await asSession(other, 'GET', '/v1/session')).status).toBe(200);
      await until('sign-out audited', async () =>
        ((await api(registry.url, keyAcme, 'GET', '/v1/audit')).body.entries as Array<{ action: string }>).some((e) => e.action === 'console.sign_out'),
      );
    });
  });

  describe('platform access tokens as Bearer (CLIs)', () => {
    const bearer = (token: string, path: string) => api(registry.url, token, 'GET', path);

    it("accepts the issuer's token for an admin, and a token of another tenant only ever sees that tenant", async () => {
      const ada = await issuer.mint({ tenant: 'acme', username: ADA.username, name: ADA.name });
      expect((await bearer(ada, '/v1/session')).body).toEqual({ tenant: 'acme', user: { username: ADA.username, name: ADA.name }, via: 'token', role: 'owner' });
      const bob = await issuer.mint({ tenant: 'globex', username: 'bob' });
      expect((await bearer(bob, '/v1/session')).body).toMatchObject({ tenant: 'globex', via: 'token', role: 'owner' });
      const servers = await bearer(bob, '/v1/servers');
      expect((servers.body.servers as Array<{ id: string }>).map((s) => s.id)).toEqual(['globex-srv']);
      expect((await bearer(bob, '/v1/servers/acme-srv')).status).toBe(404);
      expect((await bearer(bob, '/v1/servers/acme-srv/items')).status).toBe(404);
      expect(JSON.stringify((await bearer(bob, '/v1/audit')).body)).not.toMatch(/acme-srv|ada@acme/);
      // An API key still says so.
      expect((await bearer(keyAcme, '/v1/session')).body).toEqual({ tenant: 'acme', user: null, via: 'api_key', role: 'owner' });
    });

    it.each([
      ['a tid that is not the subject tenant', { tenant: 'acme', username: ADA.username, tid: 'globex' }],
      ['a subject naming no admin of the tid tenant', { tenant: 'globex', username: ADA.username }],
      ['another audience', { tenant: 'acme', username: ADA.username, audience: 'http://127.0.0.1:1/v1' }],
      ['another issuer', { tenant: 'acme', username: ADA.username, issuer: 'http://127.0.0.1:1/platform' }],
      ['a key not in the JWKS', { tenant: 'acme', username: ADA.username, foreignKey: true }],
      ['typ JWT', { tenant: 'acme', username: ADA.username, typ: 'JWT' }],
      ['no console scope', { tenant: 'acme', username: ADA.username, scope: 'openid' }],
      ['an expired token', { tenant: 'acme', username: ADA.username, expiresInSeconds: -120 }],
      ['a disabled admin', { tenant: 'acme', username: 'carol' }],
    ])('refuses a token with %s (401)', async (_what, claims) => {
      const res = await bearer(await issuer.mint(claims), '/v1/servers');
      expect(res.status).toBe(401);
      expect(res.body.error?.code).toBe('UNAUTHENTICATED');
    });

    it('refuses garbage and non-JWT bearer tokens (401)', async () => {
      for (const token of ['not-a-token', 'a.b.c', 'eyJhbGciOiJub25lIn0.eyJ0aWQiOiJhY21lIn0.']) expect((await bearer(token, '/v1/servers')).status).toBe(401);
      expect((await api(registry.url, undefined, 'GET', '/v1/session')).status).toBe(401);
    });
  });
});

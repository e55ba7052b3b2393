// Console sign-in through the platform's OAuth issuer (BFF), against a real registry process and a
// local issuer implementing the platform issuer's contract. Shared setup: support/console-auth-stack.ts.
import { tamper } from '@switchboard/testing';
import { ADA, BOB, bffHelpers, cookieValue, setCookies, startAuthStack, type AuthStack } from './support/console-auth-stack';
import { api, until } from './support/harness';

jest.setTimeout(90_000);

describe('console sign-in through the platform issuer (BFF)', () => {
  let s: AuthStack;
  let h: ReturnType<typeof bffHelpers>;
  let issuer: AuthStack['issuer'];
  let registry: AuthStack['registry'];
  let keyAcme: string;
  let keyGlobex: string;

  beforeAll(async () => {
    s = await startAuthStack();
    ({ issuer, registry, keyAcme, keyGlobex } = s);
    h = bffHelpers(s);
    // A disabled admin of acme (the sign-in refuses them).
    if ((await api(registry.url, keyAcme, 'POST', '/v1/admins', { username: 'carol', password: 'carol-password-1' })).status !== 201)
      throw new Error('carol');
    if ((await api(registry.url, keyAcme, 'DELETE', '/v1/admins/carol')).status !== 200) throw new Error('disable carol');
  });

  afterAll(async () => {
    await s?.close();
  });

  const get = (...a: Parameters<typeof h.get>) => h.get(...a);
  const signIn = (...a: Parameters<typeof h.signIn>) => h.signIn(...a);
  const session = (...a: Parameters<typeof h.session>) => h.session(...a);
  const asSession = (...a: Parameters<typeof h.asSession>) => h.asSession(...a);
  const signedIn = (...a: Parameters<typeof h.signedIn>) => h.signedIn(...a);

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
      expect(me).toEqual({
        status: 200,
        body: { tenant: 'acme', user: { username: ADA.username, name: ADA.name }, via: 'session', role: 'owner' },
      });
      const servers = await asSession(cookie, 'GET', '/v1/servers');
      expect((servers.body.servers as Array<{ id: string }>).map((s) => s.id)).toEqual(['acme-srv']);
      // Writes are audited as the user.
      const key = await asSession(cookie, 'POST', '/v1/keys', { name: 'made in the console' });
      expect(key.status).toBe(201);
      const audit = (await api(registry.url, keyAcme, 'GET', '/v1/audit')).body.entries as Array<{ actor: string; action: string }>;
      expect(audit).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ actor: `user:${ADA.username}`, action: 'console.sign_in' }),
          expect.objectContaining({ actor: `user:${ADA.username}`, action: 'key.create' }),
        ]),
      );
    });

    it('refuses the session cookie without the x-switchboard-console header (403), and a tampered or foreign cookie (401)', async () => {
      const cookie = await signedIn(ADA);
      for (const headers of [session(cookie, {}), session(cookie, { 'x-switchboard-console': '0' })]) {
        const res = await fetch(`${registry.url}/v1/servers`, { headers });
        expect(res.status).toBe(403);
        expect(((await res.json()) as { error: unknown }).error).toMatchObject({
          code: 'FORBIDDEN',
          message: 'x-switchboard-console header required for cookie sessions',
        });
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
      expect((await api(registry.url, keyGlobex, 'POST', '/v1/admins', { username: 'dave', password: 'dave-password-1' })).status).toBe(
        201,
      );
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
        expect(res.headers.get('location')).toMatch(
          /^\/console\/\?signin_error=(state_mismatch|access_denied|token_rejected|unavailable)$/,
        );
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
        ((await api(registry.url, keyAcme, 'GET', '/v1/audit')).body.entries as Array<{ action: string }>).some(
          (e) => e.action === 'console.sign_out',
        ),
      );
    });
  });
});

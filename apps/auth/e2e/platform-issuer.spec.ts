import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { FastifyInstance } from 'fastify';
import { loadAuthConfig } from '../src/config';
import { DATABASE_URL, INTERNAL_TOKEN, startAuth, type TestAuth } from './support/auth-harness';
import { type AuthorizeParams, authorizeUrl, decodeJwt, obtainTokens, parseForm, pkcePair, TestBrowser, token } from '@switchboard/testing';
import { startRegistryStandIn, type StandInRegistry } from './support/registry-stand-in';

const CONSOLE = 'switchboard-console';
const AUDIENCE = 'http://127.0.0.1:3100/v1';
const CALLBACK = 'http://127.0.0.1:3100/console/callback';
const CALLBACK_2 = 'https://console.switchboard.example/console/callback';
const GENERIC = 'Unknown workspace, user name or password.';
const ALICE_PASSWORD = 'correct horse battery staple';

function consoleEnv(registry: StandInRegistry, extra: Record<string, string> = {}): Record<string, string> {
  return { CONSOLE_REDIRECT_URI: `${CALLBACK}, ${CALLBACK_2}`, CONSOLE_AUDIENCE: AUDIENCE, REGISTRY_INTERNAL_URL: registry.url, ...extra };
}

const isCallback = (u: URL) => u.href.startsWith(CALLBACK) || u.href.startsWith(CALLBACK_2);

interface LoginPage {
  res: Response;
  html: string;
  url: string;
}

/** Starts a console authorization in `browser` and returns the page it lands on (the sign-in form). */
async function openLogin(browser: TestBrowser, issuer: string, p: Partial<AuthorizeParams> = {}): Promise<LoginPage & { verifier: string }> {
  const { verifier, challenge } = pkcePair();
  const { res, url } = await browser.follow(authorizeUrl(issuer, { clientId: CONSOLE, redirectUri: CALLBACK, challenge, ...p }), isCallback);
  return { res, html: await res.text(), url, verifier };
}

/** Posts the sign-in form of `page` with the given fields (the CSRF field comes from the page). */
async function submit(browser: TestBrowser, page: LoginPage, fields: Record<string, string>): Promise<LoginPage> {
  const form = parseForm(page.html, /\/login$/);
  const url = new URL(form.action, page.url).href;
  const res = await browser.postForm(url, { ...form.fields, ...fields });
  return { res, html: res.status >= 300 && res.status < 400 ? '' : await res.text(), url };
}

/** The `value` attribute of an input, or undefined when it has none. */
function inputValue(html: string, name: string): string | undefined {
  const input = new RegExp(`<input[^>]*name="${name}"[^>]*>`).exec(html)?.[0];
  if (!input) throw new Error(`no input ${name}`);
  return /value="([^"]*)"/.exec(input)?.[1];
}

function inputTag(html: string, name: string): string {
  return new RegExp(`<input[^>]*name="${name}"[^>]*>`).exec(html)?.[0] ?? '';
}

describe('platform issuer (console sign-in)', () => {
  let registry: StandInRegistry;
  let auth: TestAuth;
  let issuer: string;

  beforeAll(async () => {
    registry = await startRegistryStandIn(INTERNAL_TOKEN);
    registry.accounts.set('acme|alice', { password: ALICE_PASSWORD, name: 'Alice Example' });
    registry.accounts.set('beta|bob', { password: 'bobs-password', name: 'Bob' });
    auth = await startAuth({
      tenants: [{ id: 'acme', name: 'Acme', auth: { scopes: ['mcp:tools'] } }],
      env: consoleEnv(registry, { CONSOLE_LOGIN_RATE_LIMIT_PER_MIN: '50', ACCESS_TOKEN_TTL_S: '120' }),
    });
    issuer = `${auth.baseUrl}/platform`;
  });
  afterAll(async () => {
    await auth?.close();
    await registry?.close();
  });
  beforeEach(() => {
    registry.calls.length = 0;
  });

  /** Signs in through the form and redeems the code; returns the token response. */
  async function signIn(o: { browser?: TestBrowser; workspace?: string; username?: string; password?: string; params?: Partial<AuthorizeParams> } = {}) {
    const browser = o.browser ?? new TestBrowser();
    const page = await openLogin(browser, issuer, o.params);
    expect(page.res.status).toBe(200);
    const posted = await submit(browser, page, { workspace: o.workspace ?? 'acme', username: o.username ?? 'alice', password: o.password ?? ALICE_PASSWORD });
    expect(posted.res.status).toBe(303);
    const { url: back } = await browser.follow(new URL(posted.res.headers.get('location') ?? '', posted.url).href, isCallback);
    const callback = new URL(back);
    const code = callback.searchParams.get('code');
    if (!code) throw new Error(`no code in ${back}`);
    const redirectUri = o.params?.redirectUri ?? CALLBACK;
    const t = await token(issuer, { grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: CONSOLE, code_verifier: page.verifier });
    return { ...t, callback, browser };
  }

  describe('discovery', () => {
    it.each([
      '/.well-known/oauth-authorization-server/platform',
      '/.well-known/openid-configuration/platform',
      '/platform/.well-known/openid-configuration',
      '/platform/.well-known/oauth-authorization-server',
    ])('serves %s with the platform issuer and no registration', async (path) => {
      const res = await fetch(`${auth.baseUrl}${path}`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body.issuer).toBe(issuer);
      expect(body).toMatchObject({
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        revocation_endpoint: `${issuer}/revoke`,
        code_challenge_methods_supported: ['S256'],
      });
      expect(body.scopes_supported).toEqual(expect.arrayContaining(['console', 'openid']));
      // SEP-2207: offline_access is accepted when asked but never advertised.
      expect(body.scopes_supported).not.toContain('offline_access');
      expect(body).not.toHaveProperty('registration_endpoint');
      expect(body).not.toHaveProperty('client_id_metadata_document_supported');
    });

    it('has no registration endpoint', async () => {
      const res = await fetch(`${issuer}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: [CALLBACK] }) });
      expect(res.status).toBe(404);
    });

    it('publishes its own keys, none of a tenant', async () => {
      await obtainTokens(auth.issuer('acme'));
      const kids = async (url: string) => ((await (await fetch(url)).json()) as { keys: Array<{ kid: string }> }).keys.map((k) => k.kid);
      const platformKids = await kids(`${issuer}/jwks`);
      const tenantKids = await kids(`${auth.issuer('acme')}/jwks`);
      expect(platformKids.length).toBeGreaterThan(0);
      expect(platformKids.filter((k) => tenantKids.includes(k))).toEqual([]);
    });
  });

  describe('sign-in and tokens', () => {
    it('signs an administrator in with code + PKCE and issues an at+jwt for the admin API', async () => {
      const t = await signIn();
      expect(t.status).toBe(200);
      expect(t.callback.searchParams.get('iss')).toBe(issuer);
      const jwks = createRemoteJWKSet(new URL(`${issuer}/jwks`));
      const { payload, protectedHeader } = await jwtVerify(String(t.body.access_token), jwks, { issuer, audience: AUDIENCE, typ: 'at+jwt', algorithms: ['ES256'] });
      expect(protectedHeader).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
      expect(payload).toMatchObject({ iss: issuer, aud: AUDIENCE, sub: 'acme|alice', tid: 'acme', name: 'Alice Example', client_id: CONSOLE });
      expect(String(payload.scope).split(' ')).toContain('console');
      expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(120);
      expect(t.body.refresh_token).toEqual(expect.any(String));
    });

    it('asks the registry with exactly the contract request', async () => {
      await signIn();
      expect(registry.calls).toHaveLength(1);
      const call = registry.calls[0];
      expect(call).toMatchObject({ method: 'POST', path: '/internal/console/verify-login', authorization: `Bearer ${INTERNAL_TOKEN}` });
      expect(call?.contentType).toMatch(/^application\/json/);
      expect(call?.body).toEqual({ tenant: 'acme', username: 'alice', password: ALICE_PASSWORD });
    });

    it('takes the tenant from the account, not from the platform', async () => {
      registry.calls.length = 0;
      const t = await signIn({ workspace: 'beta', username: 'bob', password: 'bobs-password' });
      const { payload } = decodeJwt(String(t.body.access_token));
      expect(payload).toMatchObject({ sub: 'beta|bob', tid: 'beta', name: 'Bob' });
    });

    it('grants openid and offline_access when asked, console by default', async () => {
      const t = await signIn({ params: { scope: 'openid offline_access' } });
      expect(t.status).toBe(200);
      // The token response's scope is the access token's (resource) scope; openid shows as the ID token.
      expect(String(t.body.scope).split(' ')).toContain('console');
      expect(t.body.id_token).toEqual(expect.any(String));
      expect(decodeJwt(String(t.body.id_token)).payload).toMatchObject({ iss: issuer, aud: CONSOLE, sub: 'acme|alice' });
    });

    it('accepts the audience as an explicit resource and every configured redirect URI', async () => {
      const t = await signIn({ params: { resource: AUDIENCE, redirectUri: CALLBACK_2 } });
      expect(t.status).toBe(200);
      expect(decodeJwt(String(t.body.access_token)).payload.aud).toBe(AUDIENCE);
    });

    it('refreshes: a rotated refresh token and an access token with the same claims', async () => {
      const t = await signIn();
      const r = await token(issuer, { grant_type: 'refresh_token', refresh_token: String(t.body.refresh_token), client_id: CONSOLE });
      expect(r.status).toBe(200);
      expect(r.body.refresh_token).not.toBe(t.body.refresh_token);
      const { payload } = await jwtVerify(String(r.body.access_token), createRemoteJWKSet(new URL(`${issuer}/jwks`)), { issuer, audience: AUDIENCE, typ: 'at+jwt' });
      expect(payload).toMatchObject({ sub: 'acme|alice', tid: 'acme', name: 'Alice Example' });
      const reuse = await token(issuer, { grant_type: 'refresh_token', refresh_token: String(t.body.refresh_token), client_id: CONSOLE });
      expect(reuse.status).toBe(400);
      expect(reuse.body.error).toBe('invalid_grant');
    });

    it('asks for the password again on the next authorization in the same browser', async () => {
      const t = await signIn();
      const again = await openLogin(t.browser, issuer);
      expect(again.res.status).toBe(200);
      expect(again.html).toContain('name="password"');
    });

    it('keeps its cookies apart from tenant issuers', async () => {
      const t = await signIn();
      const names = t.browser.cookieNames(new URL(issuer).host);
      expect(names.length).toBeGreaterThan(0);
      expect(names.every((n) => n.startsWith('sb__platform_'))).toBe(true);
    });
  });

  describe('the sign-in page', () => {
    it('is labelled, autofills and focuses the first empty field', async () => {
      const page = await openLogin(new TestBrowser(), issuer);
      expect(page.res.status).toBe(200);
      expect(page.res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(page.html).toContain('<html lang="en">');
      for (const f of ['workspace', 'username', 'password']) expect(page.html).toContain(`<label for="${f}">`);
      expect(inputTag(page.html, 'username')).toContain('autocomplete="username"');
      expect(inputTag(page.html, 'password')).toContain('autocomplete="current-password"');
      expect(inputTag(page.html, 'password')).toContain('type="password"');
      expect(inputTag(page.html, 'workspace')).toContain('autofocus');
      expect(page.html).not.toContain('role="alert"');
      expect(parseForm(page.html, /\/login$/).fields.csrf).toEqual(expect.any(String));
    });

    it('prefills the workspace from a valid login_hint and focuses the user name', async () => {
      const page = await openLogin(new TestBrowser(), issuer, { extra: { login_hint: 'acme' } });
      expect(inputValue(page.html, 'workspace')).toBe('acme');
      expect(inputTag(page.html, 'username')).toContain('autofocus');
      expect(inputTag(page.html, 'workspace')).not.toContain('autofocus');
    });

    it('ignores a login_hint that is not a tenant id', async () => {
      const page = await openLogin(new TestBrowser(), issuer, { extra: { login_hint: 'alice@acme.example' } });
      expect(inputValue(page.html, 'workspace')).toBeUndefined();
    });

    it('refuses a wrong password with 401 and the generic message, keeping workspace and user name', async () => {
      const browser = new TestBrowser();
      const page = await openLogin(browser, issuer);
      const res = await submit(browser, page, { workspace: 'acme', username: 'alice', password: 'wrong' });
      expect(res.res.status).toBe(401);
      expect(res.html).toContain(`role="alert">${GENERIC}</p>`);
      expect(inputValue(res.html, 'workspace')).toBe('acme');
      expect(inputValue(res.html, 'username')).toBe('alice');
      expect(inputValue(res.html, 'password')).toBeUndefined();
      expect(inputTag(res.html, 'password')).toContain('autofocus');
      expect(registry.calls.map((c) => c.body)).toEqual([{ tenant: 'acme', username: 'alice', password: 'wrong' }]);
      // A second try from the re-rendered form works.
      const ok = await submit(browser, res, { workspace: 'acme', username: 'alice', password: ALICE_PASSWORD });
      expect(ok.res.status).toBe(303);
    });

    it('answers an unknown workspace and an unknown user exactly like a wrong password', async () => {
      for (const [workspace, username] of [['nosuch', 'alice'], ['acme', 'mallory']] as const) {
        const browser = new TestBrowser();
        const res = await submit(browser, await openLogin(browser, issuer), { workspace, username, password: ALICE_PASSWORD });
        expect(res.res.status).toBe(401);
        expect(res.html).toContain(GENERIC);
      }
    });

    it.each([
      ['workspace', { workspace: 'Acme Corp', username: 'alice', password: 'x' }, 'Workspace must be'],
      ['workspace', { workspace: '', username: 'alice', password: 'x' }, 'Enter your workspace id.'],
      ['username', { workspace: 'acme', username: 'alice|admin', password: 'x' }, 'User name must be'],
      ['password', { workspace: 'acme', username: 'alice', password: '' }, 'Enter your password.'],
      ['password', { workspace: 'acme', username: 'alice', password: 'p'.repeat(1025) }, 'Password must be at most 1024 characters.'],
      ['password', { workspace: 'acme', username: 'alice', password: 'pass\u0000word' }, 'Password cannot contain a NUL character.'],
    ])('refuses an invalid %s with 400 and a field message, without asking the registry', async (field, fields, message) => {
      const browser = new TestBrowser();
      const res = await submit(browser, await openLogin(browser, issuer), fields);
      expect(res.res.status).toBe(400);
      expect(res.html).toContain(`<p class="field-error" id="${field}-error">${message}`);
      expect(inputTag(res.html, field)).toContain('aria-invalid="true"');
      expect(inputTag(res.html, field)).toContain(`${field}-error`);
      expect(inputTag(res.html, field)).toContain('autofocus');
      expect(res.html).toContain('role="alert"');
      expect(inputValue(res.html, 'password')).toBeUndefined();
      expect(registry.calls).toEqual([]);
    });

    it('refuses a form without its CSRF token', async () => {
      const browser = new TestBrowser();
      const page = await openLogin(browser, issuer);
      const res = await submit(browser, page, { csrf: 'forged', workspace: 'acme', username: 'alice', password: ALICE_PASSWORD });
      expect(res.res.status).toBe(400);
      expect(registry.calls).toEqual([]);
    });

    it('refuses a sign-in posted from another browser', async () => {
      const page = await openLogin(new TestBrowser(), issuer);
      const res = await submit(new TestBrowser(), page, { workspace: 'acme', username: 'alice', password: ALICE_PASSWORD });
      expect(res.res.status).toBe(400);
      expect(registry.calls).toEqual([]);
    });

    it('says sign-in is unavailable (503) when the registry fails', async () => {
      registry.mode = 'down';
      try {
        const browser = new TestBrowser();
        const res = await submit(browser, await openLogin(browser, issuer), { workspace: 'acme', username: 'alice', password: ALICE_PASSWORD });
        expect(res.res.status).toBe(503);
        expect(res.html).toContain('role="alert">Sign-in is temporarily unavailable; try again.');
        expect(inputValue(res.html, 'username')).toBe('alice');
      } finally {
        registry.mode = 'up';
      }
    });
  });

  describe('refusals at the authorization endpoint', () => {
    it('knows no client but switchboard-console', async () => {
      for (const clientId of ['other-client', 'https://claude.ai/oauth/client-metadata.json']) {
        const res = await new TestBrowser().get(authorizeUrl(issuer, { clientId, redirectUri: CALLBACK, challenge: pkcePair().challenge }));
        expect(res.status).toBe(400);
        expect(res.headers.get('location')).toBeNull();
        expect(await res.text()).toContain('invalid_client');
      }
    });

    it('refuses a redirect URI that is not configured', async () => {
      const res = await new TestBrowser().get(authorizeUrl(issuer, { clientId: CONSOLE, redirectUri: 'http://127.0.0.1:3100/console/other', challenge: pkcePair().challenge }));
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
    });

    it('refuses a resource other than the admin API with invalid_target', async () => {
      for (const resource of ['http://127.0.0.1:3999/t/acme/mcp', 'http://127.0.0.1:3100/v2']) {
        const res = await new TestBrowser().get(authorizeUrl(issuer, { clientId: CONSOLE, redirectUri: CALLBACK, challenge: pkcePair().challenge, resource }));
        const location = new URL(res.headers.get('location') ?? '', issuer);
        expect(location.href.startsWith(CALLBACK)).toBe(true);
        expect(location.searchParams.get('error')).toBe('invalid_target');
      }
    });

    it('requires PKCE', async () => {
      const res = await new TestBrowser().get(authorizeUrl(issuer, { clientId: CONSOLE, redirectUri: CALLBACK }));
      const location = new URL(res.headers.get('location') ?? '', issuer);
      expect(location.searchParams.get('error')).toBe('invalid_request');
    });

    it('refuses prompt=none instead of reusing a session', async () => {
      const t = await signIn();
      const res = await t.browser.get(authorizeUrl(issuer, { clientId: CONSOLE, redirectUri: CALLBACK, challenge: pkcePair().challenge, extra: { prompt: 'none' } }));
      const location = new URL(res.headers.get('location') ?? '', issuer);
      expect(location.searchParams.get('error')).toBe('login_required');
    });
  });

  describe('tenant and platform tokens are not interchangeable', () => {
    it('verifies neither token as the other', async () => {
      const platformToken = String((await signIn()).body.access_token);
      const tenant = await obtainTokens(auth.issuer('acme'));
      const tenantToken = String(tenant.body.access_token);
      const platformJwks = createRemoteJWKSet(new URL(`${issuer}/jwks`));
      const tenantJwks = createRemoteJWKSet(new URL(`${auth.issuer('acme')}/jwks`));
      await expect(jwtVerify(tenantToken, platformJwks, { issuer, audience: AUDIENCE, typ: 'at+jwt' })).rejects.toThrow();
      await expect(jwtVerify(platformToken, tenantJwks, { issuer: auth.issuer('acme'), audience: auth.mcpUrl('acme'), typ: 'at+jwt' })).rejects.toThrow();
      // Even with the right keys, issuer and audience differ.
      expect(decodeJwt(tenantToken).payload).toMatchObject({ iss: auth.issuer('acme'), aud: auth.mcpUrl('acme'), tid: 'acme' });
      expect(decodeJwt(platformToken).payload).toMatchObject({ iss: issuer, aud: AUDIENCE, tid: 'acme' });
    });

    it('does not let a tenant client or a tenant refresh token into the platform', async () => {
      const tenant = await obtainTokens(auth.issuer('acme'));
      const r = await token(issuer, { grant_type: 'refresh_token', refresh_token: String(tenant.body.refresh_token), client_id: CONSOLE });
      expect(r.status).toBe(400);
      const res = await new TestBrowser().get(authorizeUrl(issuer, { clientId: tenant.clientId, redirectUri: tenant.redirectUri, challenge: pkcePair().challenge }));
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('invalid_client');
    });

    it('rotates the platform signing key under its reserved id', async () => {
      const before = ((await (await fetch(`${issuer}/jwks`)).json()) as { keys: Array<{ kid: string }> }).keys.map((k) => k.kid);
      const res = await fetch(`${auth.baseUrl}/internal/tenants/_platform/keys/rotate`, { method: 'POST', headers: { authorization: `Bearer ${INTERNAL_TOKEN}` } });
      expect(res.status).toBe(201);
      const { kid } = (await res.json()) as { kid: string };
      const after = ((await (await fetch(`${issuer}/jwks`)).json()) as { keys: Array<{ kid: string }> }).keys.map((k) => k.kid);
      expect(after).toEqual(expect.arrayContaining([...before, kid]));
      const t = await signIn();
      expect(decodeJwt(String(t.body.access_token)).header.kid).toBe(kid);
    });
  });
});

describe('platform issuer: failed sign-ins are rate-limited per IP', () => {
  let registry: StandInRegistry;
  let auth: TestAuth;

  beforeAll(async () => {
    registry = await startRegistryStandIn(INTERNAL_TOKEN);
    registry.accounts.set('acme|alice', { password: ALICE_PASSWORD, name: 'Alice' });
    auth = await startAuth({ tenants: [], env: consoleEnv(registry, { CONSOLE_LOGIN_RATE_LIMIT_PER_MIN: '2' }) });
  });
  afterAll(async () => {
    await auth?.close();
    await registry?.close();
  });

  it('answers 429 with Retry-After after the limit, without asking the registry', async () => {
    const browser = new TestBrowser();
    let page: LoginPage = await openLogin(browser, `${auth.baseUrl}/platform`);
    for (let i = 0; i < 2; i++) {
      page = await submit(browser, page, { workspace: 'acme', username: 'alice', password: `wrong-${i}` });
      expect(page.res.status).toBe(401);
    }
    const limited = await submit(browser, page, { workspace: 'acme', username: 'alice', password: ALICE_PASSWORD });
    expect(limited.res.status).toBe(429);
    expect(Number(limited.res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.html).toContain('role="alert">Too many failed sign-in attempts');
    // Password checks only (auth also reads tenant documents from the registry's internal API).
    expect(registry.calls.filter((c) => c.path === '/internal/console/verify-login')).toHaveLength(2);
  });
});

describe('platform issuer: off unless fully configured', () => {
  let auth: TestAuth;

  beforeAll(async () => {
    // Two of the three console variables: still off.
    auth = await startAuth({
      tenants: [{ id: 'acme', auth: { scopes: ['mcp:tools'] } }],
      env: { CONSOLE_AUDIENCE: AUDIENCE, CONSOLE_REDIRECT_URI: CALLBACK },
    });
  });
  afterAll(async () => auth?.close());

  it.each([
    ['GET', '/.well-known/oauth-authorization-server/platform'],
    ['GET', '/.well-known/openid-configuration/platform'],
    ['GET', '/platform/.well-known/openid-configuration'],
    ['GET', `/platform/authorize?client_id=${CONSOLE}&response_type=code`],
    ['POST', '/platform/token'],
    ['GET', '/platform/jwks'],
    ['POST', '/platform/revoke'],
    ['GET', '/platform/interaction/abc'],
    ['POST', '/platform/interaction/abc/login'],
  ])('%s %s answers 404', async (method, path) => {
    const res = await fetch(`${auth.baseUrl}${path}`, { method, redirect: 'manual' });
    expect(res.status).toBe(404);
  });

  it('leaves tenant issuers as they are', async () => {
    const meta = await fetch(`${auth.baseUrl}/.well-known/oauth-authorization-server/t/acme`);
    expect(meta.status).toBe(200);
    const t = await obtainTokens(auth.issuer('acme'));
    expect(t.status).toBe(200);
    expect(decodeJwt(String(t.body.access_token)).payload).toMatchObject({ iss: auth.issuer('acme'), aud: auth.mcpUrl('acme'), tid: 'acme' });
  });
});

describe('platform issuer configuration', () => {
  const base = { DATABASE_URL, LOG_LEVEL: 'silent', INTERNAL_TOKEN, REGISTRY_INTERNAL_URL: 'http://127.0.0.1:3100', CONSOLE_AUDIENCE: AUDIENCE };

  it('is on with all four variables; redirect URIs are a comma-separated list', async () => {
    const c = loadAuthConfig({ ...base, CONSOLE_REDIRECT_URI: `${CALLBACK} , ${CALLBACK_2}`, REGISTRY_INTERNAL_URL: 'http://127.0.0.1:3100/' });
    expect(c.platform).toEqual({ redirectUris: [CALLBACK, CALLBACK_2], audience: AUDIENCE, registryUrl: 'http://127.0.0.1:3100', internalToken: INTERNAL_TOKEN });
  });

  it('is off when one is missing or empty', async () => {
    expect(loadAuthConfig({ ...base, CONSOLE_REDIRECT_URI: '' }).platform).toBeUndefined();
    expect(loadAuthConfig({ ...base, CONSOLE_REDIRECT_URI: CALLBACK, INTERNAL_TOKEN: undefined }).platform).toBeUndefined();
  });

  it.each([
    ['CONSOLE_REDIRECT_URI', 'not a url'],
    ['CONSOLE_REDIRECT_URI', `${CALLBACK}#frag`],
    ['CONSOLE_REDIRECT_URI', 'javascript:alert(1)'],
    ['CONSOLE_AUDIENCE', 'ftp://x.example/v1'],
    ['REGISTRY_INTERNAL_URL', 'registry:3100'],
  ])('names %s when it is invalid (%s)', async (key, value) => {
    expect(() => loadAuthConfig({ ...base, CONSOLE_REDIRECT_URI: CALLBACK, [key]: value })).toThrow(key);
  });

});

describe('platform issuer beside host-based tenants', () => {
  let registry: StandInRegistry;
  let auth: TestAuth;
  const inject = (url: string, host: string) => (auth.app.getHttpAdapter().getInstance() as FastifyInstance).inject({ url, headers: { host } });

  beforeAll(async () => {
    registry = await startRegistryStandIn(INTERNAL_TOKEN);
    auth = await startAuth({ tenants: [{ id: 'acme', auth: { scopes: ['mcp:tools'] } }], env: consoleEnv(registry, { GATEWAY_DOMAIN: 'mcp.test' }) });
  });
  afterAll(async () => {
    await auth?.close();
    await registry?.close();
  });

  it('stays path-based on the auth origin', async () => {
    const res = await fetch(`${auth.baseUrl}/.well-known/oauth-authorization-server/platform`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as Record<string, unknown>).issuer).toBe(`${auth.baseUrl}/platform`);
  });

  it('is not served on a tenant origin', async () => {
    const platform = await inject('/platform/.well-known/openid-configuration', 'acme.mcp.test');
    expect(platform.statusCode).toBe(404);
    const tenant = await inject('/.well-known/oauth-authorization-server', 'acme.mcp.test');
    expect(tenant.statusCode).toBe(200);
    expect((tenant.json() as Record<string, unknown>).issuer).toBe('https://acme.mcp.test');
  });
});

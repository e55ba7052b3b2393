import { createRemoteJWKSet, jwtVerify } from 'jose';
import { INTERNAL_TOKEN, type TestAuth } from './support/auth-harness';
import { authorizeUrl, decodeJwt, obtainTokens, pkcePair, TestBrowser, token } from '@switchboard/testing';
import { type StandInRegistry } from './support/registry-stand-in';

import {
  CALLBACK,
  CALLBACK_2,
  CONSOLE,
  AUDIENCE,
  ALICE_PASSWORD,
  openLogin,
  signInAt,
  startConsoleIssuer,
  type SignInOptions,
} from './support/console-sign-in';

describe('platform issuer (console sign-in)', () => {
  let registry: StandInRegistry;
  let auth: TestAuth;
  let issuer: string;

  beforeAll(async () => {
    ({ registry, auth, issuer } = await startConsoleIssuer());
  });
  afterAll(async () => {
    await auth?.close();
    await registry?.close();
  });
  beforeEach(() => {
    registry.calls.length = 0;
  });

  const signIn = (o: SignInOptions = {}) => signInAt(issuer, o);

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
      const res = await fetch(`${issuer}/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [CALLBACK] }),
      });
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
      const { payload, protectedHeader } = await jwtVerify(String(t.body.access_token), jwks, {
        issuer,
        audience: AUDIENCE,
        typ: 'at+jwt',
        algorithms: ['ES256'],
      });
      expect(protectedHeader).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
      expect(payload).toMatchObject({
        iss: issuer,
        aud: AUDIENCE,
        sub: 'acme|alice',
        tid: 'acme',
        name: 'Alice Example',
        client_id: CONSOLE,
      });
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
      const { payload } = await jwtVerify(String(r.body.access_token), createRemoteJWKSet(new URL(`${issuer}/jwks`)), {
        issuer,
        audience: AUDIENCE,
        typ: 'at+jwt',
      });
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
      const res = await new TestBrowser().get(
        authorizeUrl(issuer, { clientId: CONSOLE, redirectUri: 'http://127.0.0.1:3100/console/other', challenge: pkcePair().challenge }),
      );
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
    });

    it('refuses a resource other than the admin API with invalid_target', async () => {
      for (const resource of ['http://127.0.0.1:3999/t/acme/mcp', 'http://127.0.0.1:3100/v2']) {
        const res = await new TestBrowser().get(
          authorizeUrl(issuer, { clientId: CONSOLE, redirectUri: CALLBACK, challenge: pkcePair().challenge, resource }),
        );
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
      const res = await t.browser.get(
        authorizeUrl(issuer, { clientId: CONSOLE, redirectUri: CALLBACK, challenge: pkcePair().challenge, extra: { prompt: 'none' } }),
      );
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
      await expect(
        jwtVerify(platformToken, tenantJwks, { issuer: auth.issuer('acme'), audience: auth.mcpUrl('acme'), typ: 'at+jwt' }),
      ).rejects.toThrow();
      // Even with the right keys, issuer and audience differ.
      expect(decodeJwt(tenantToken).payload).toMatchObject({ iss: auth.issuer('acme'), aud: auth.mcpUrl('acme'), tid: 'acme' });
      expect(decodeJwt(platformToken).payload).toMatchObject({ iss: issuer, aud: AUDIENCE, tid: 'acme' });
    });

    it('does not let a tenant client or a tenant refresh token into the platform', async () => {
      const tenant = await obtainTokens(auth.issuer('acme'));
      const r = await token(issuer, { grant_type: 'refresh_token', refresh_token: String(tenant.body.refresh_token), client_id: CONSOLE });
      expect(r.status).toBe(400);
      const res = await new TestBrowser().get(
        authorizeUrl(issuer, { clientId: tenant.clientId, redirectUri: tenant.redirectUri, challenge: pkcePair().challenge }),
      );
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('invalid_client');
    });

    it('rotates the platform signing key under its reserved id', async () => {
      const before = ((await (await fetch(`${issuer}/jwks`)).json()) as { keys: Array<{ kid: string }> }).keys.map((k) => k.kid);
      const res = await fetch(`${auth.baseUrl}/internal/tenants/_platform/keys/rotate`, {
        method: 'POST',
        headers: { authorization: `Bearer ${INTERNAL_TOKEN}` },
      });
      expect(res.status).toBe(201);
      const { kid } = (await res.json()) as { kid: string };
      const after = ((await (await fetch(`${issuer}/jwks`)).json()) as { keys: Array<{ kid: string }> }).keys.map((k) => k.kid);
      expect(after).toEqual(expect.arrayContaining([...before, kid]));
      const t = await signIn();
      expect(decodeJwt(String(t.body.access_token)).header.kid).toBe(kid);
    });
  });
});

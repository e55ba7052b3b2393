import { approve, authorizeUrl, obtainTokens, pkcePair, register, registerPublicClient, TestBrowser, token } from '@switchboard/testing';
import { type Platform } from './support/platform';

import { CLAUDE, authorizeFirstHop as firstHop, startSecurityPlatform } from './support/security-platform';

// Client registration, redirects and consent, bad input and discovery.
describe('authorization server and resource server security (AUTH-NOTES §3): clients and endpoints', () => {
  let p: Platform;
  let acme: string;

  beforeAll(async () => {
    ({ p, acme } = await startSecurityPlatform());
  });
  afterAll(async () => p?.close());

  const authorizeFirstHop = (params: Parameters<typeof firstHop>[1], issuer = acme) => firstHop(issuer, params);

  describe('G. dynamic client registration hygiene', () => {
    it.each([
      ['non-loopback http', { redirect_uris: ['http://app.example.com/cb'] }],
      ['javascript:', { redirect_uris: ['javascript:alert(1)'] }],
      ['a fragment', { redirect_uris: ['https://app.example.com/cb#x'] }],
      ['more than 10 redirect URIs', { redirect_uris: Array.from({ length: 11 }, (_v, i) => `https://app.example.com/cb${i}`) }],
      ['implicit response types', { redirect_uris: [CLAUDE], response_types: ['id_token token'] }],
      ['an oversized client_name', { redirect_uris: [CLAUDE], client_name: 'x'.repeat(500) }],
      ['no redirect URIs', { redirect_uris: [] }],
    ])('refuses %s', async (_n, metadata) => {
      const r = await register(acme, { token_endpoint_auth_method: 'none', ...metadata });
      expect(r.status).toBe(400);
      expect(['invalid_redirect_uri', 'invalid_client_metadata']).toContain(r.body.error);
    });

    it('drops unknown scope metadata, infers native apps and returns registration_client_uri', async () => {
      const cursor = await register(acme, {
        client_name: 'Cursor',
        redirect_uris: [
          'cursor://anysphere.cursor-mcp/oauth/callback',
          'https://www.cursor.com/agents/mcp/oauth/callback',
          'http://localhost:8787/callback',
        ],
        token_endpoint_auth_method: 'none',
        scope: 'claudeai mcp:tools',
      });
      expect(cursor.status).toBe(201);
      expect(cursor.body.application_type).toBe('native');
      expect(cursor.body.scope).toBeUndefined();
      expect(cursor.body.client_secret).toBeUndefined();
      expect(cursor.body.registration_client_uri).toBe(`${acme}/register/${String(cursor.body.client_id)}`);
      const read = await fetch(String(cursor.body.registration_client_uri), {
        headers: { authorization: `Bearer ${String(cursor.body.registration_access_token)}` },
      });
      expect(read.status).toBe(200);
    });

    it('answers CORS preflight for browser clients', async () => {
      const res = await fetch(`${acme}/register`, {
        method: 'OPTIONS',
        headers: { origin: 'https://inspector.example', 'access-control-request-method': 'POST' },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
    });

    it("seals confidential clients' secrets at rest", async () => {
      const r = await register(acme, { redirect_uris: [CLAUDE] });
      expect(r.body.client_secret).toEqual(expect.any(String));
      const { rows } = await p.auth.services.pool.query(
        `SELECT payload::text AS p FROM "${p.auth.schema}".oidc_model WHERE model = 'Client'`,
      );
      expect(rows.map((x: { p: string }) => x.p).join()).not.toContain(String(r.body.client_secret));
      const t = await token(
        acme,
        { grant_type: 'authorization_code', code: 'nope' },
        { authorization: `Basic ${Buffer.from(`${String(r.body.client_id)}:${String(r.body.client_secret)}`).toString('base64')}` },
      );
      expect(t.body.error).toBe('invalid_grant'); // authenticated, the code is what is wrong
    });
  });

  describe('I. open redirect, state and iss', () => {
    it('never redirects for an unknown client', async () => {
      const res = await authorizeFirstHop({
        clientId: 'no-such-client',
        redirectUri: 'https://evil.test/cb',
        challenge: pkcePair().challenge,
      });
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
    });

    it('echoes state and iss on the success redirect', async () => {
      const clientId = await registerPublicClient(acme);
      const back = await approve(
        new TestBrowser(),
        authorizeUrl(acme, { clientId, redirectUri: CLAUDE, challenge: pkcePair().challenge, state: 'xyz-123' }),
        CLAUDE,
      );
      expect(back.searchParams.get('state')).toBe('xyz-123');
      expect(back.searchParams.get('iss')).toBe(acme);
    });
  });

  describe('K. consent', () => {
    it('asks for consent per client and refuses a forged consent form', async () => {
      const browser = new TestBrowser();
      await obtainTokens(acme, { browser });
      // Same browser (live session), new client: the consent page is shown again.
      const clientId = await registerPublicClient(acme);
      const { res, url } = await browser.follow(authorizeUrl(acme, { clientId, redirectUri: CLAUDE, challenge: pkcePair().challenge }));
      expect(res.status).toBe(200);
      const html = await res.text();
      expect(html).toContain('Authorize');
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      const uid = /interaction\/([^/"]+)/.exec(url)?.[1] ?? '';
      const forged = await browser.postForm(`${acme}/interaction/${uid}/confirm`, { csrf: 'forged', decision: 'approve' });
      expect(forged.status).toBe(400);
    });

    it('turns a denial into access_denied at the client', async () => {
      const clientId = await registerPublicClient(acme);
      const browser = new TestBrowser();
      const { res, url } = await browser.follow(authorizeUrl(acme, { clientId, redirectUri: CLAUDE, challenge: pkcePair().challenge }));
      const login = await res.text();
      const action = /action="([^"]+\/login)"/.exec(login)?.[1] ?? '';
      const afterLogin = await browser.postForm(new URL(action, url).href, { username: 'bob' });
      const consentPage = await browser.follow(new URL(afterLogin.headers.get('location')!, url).href);
      const html = await consentPage.res.text();
      const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
      const confirm = /action="([^"]+\/confirm)"/.exec(html)?.[1] ?? '';
      const denied = await browser.postForm(new URL(confirm, consentPage.url).href, { csrf, decision: 'deny' });
      const back = await browser.follow(new URL(denied.headers.get('location')!, consentPage.url).href, (u) => u.href.startsWith(CLAUDE));
      expect(new URL(back.url).searchParams.get('error')).toBe('access_denied');
    });
  });

  describe('bad input gets the RFC error, never a 500', () => {
    it.each([
      ['missing grant_type', {}, 'invalid_request'],
      [
        'unknown client',
        { grant_type: 'authorization_code', code: 'c', client_id: 'nobody', code_verifier: 'v'.repeat(43), redirect_uri: CLAUDE },
        'invalid_client',
      ],
    ])('token endpoint: %s', async (_n, form, error) => {
      const r = await token(acme, form as Record<string, string>);
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
      expect(r.body.error).toBe(error);
    });

    it('token endpoint: unknown grant_type ⇒ unsupported_grant_type', async () => {
      const clientId = await registerPublicClient(acme);
      const r = await token(acme, { grant_type: 'password', username: 'a', password: 'b', client_id: clientId });
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('unsupported_grant_type');
    });

    it('token endpoint: unknown code ⇒ invalid_grant; scope beyond the grant ⇒ invalid_scope', async () => {
      const t = await obtainTokens(acme, { scope: 'mcp:tools:read' });
      const bad = await token(acme, {
        grant_type: 'authorization_code',
        code: 'nope',
        client_id: t.clientId,
        code_verifier: t.verifier,
        redirect_uri: CLAUDE,
      });
      expect(bad.body.error).toBe('invalid_grant');
      const widen = await token(acme, {
        grant_type: 'refresh_token',
        refresh_token: String(t.body.refresh_token),
        client_id: t.clientId,
        scope: 'mcp:tools:write',
      });
      expect(widen.body.error).toBe('invalid_scope');
    });

    it('registration endpoint: malformed JSON and wrong types', async () => {
      const raw = await fetch(`${acme}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{not json' });
      expect(raw.status).toBe(400);
      expect(((await raw.json()) as Record<string, unknown>).error).toBe('invalid_request');
      const typed = await register(acme, { redirect_uris: 'https://x.example/cb' });
      expect(typed.status).toBe(400);
      expect(['invalid_client_metadata', 'invalid_redirect_uri']).toContain(typed.body.error);
    });

    it('authorization endpoint: missing client_id renders invalid_request without redirecting', async () => {
      const res = await new TestBrowser().get(`${acme}/authorize?response_type=code`);
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
    });

    it('revocation endpoint: missing token ⇒ invalid_request; discovery of unknown tenant ⇒ 404', async () => {
      const clientId = await registerPublicClient(acme);
      const res = await fetch(`${acme}/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `client_id=${clientId}`,
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as Record<string, unknown>).error).toBe('invalid_request');
      expect((await fetch(`${p.auth.baseUrl}/.well-known/oauth-authorization-server/t/nobody`)).status).toBe(404);
    });

    it('interaction pages: unknown interaction ⇒ 400 page', async () => {
      const res = await fetch(`${acme}/interaction/unknown-uid`);
      expect(res.status).toBe(400);
    });
  });

  describe('M. discovery at every path clients try', () => {
    it.each([
      ['RFC 8414 path insertion', '/.well-known/oauth-authorization-server/t/acme'],
      ['OIDC path insertion', '/.well-known/openid-configuration/t/acme'],
      ['OIDC path appending', '/t/acme/.well-known/openid-configuration'],
      ['RFC 8414 appended', '/t/acme/.well-known/oauth-authorization-server'],
    ])('%s returns the tenant issuer', async (_n, path) => {
      const res = await fetch(`${p.auth.baseUrl}${path}`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body).toMatchObject({
        issuer: acme,
        registration_endpoint: `${acme}/register`,
        client_id_metadata_document_supported: true,
        authorization_response_iss_parameter_supported: true,
      });
      expect(body.scopes_supported).toEqual(expect.arrayContaining(['mcp:tools']));
    });
  });
});

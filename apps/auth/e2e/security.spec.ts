import { approve, authorizeUrl, decodeJwt, obtainTokens, pkcePair, register, registerPublicClient, TestBrowser, token } from '@switchboard/testing';
import { startPlatform, type Platform } from './support/platform';

const CLAUDE = 'https://claude.ai/api/mcp/auth_callback';
const POST_MCP = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
const LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });

describe('authorization server and resource server security (AUTH-NOTES §3)', () => {
  let p: Platform;
  let acme: string;
  let beta: string;

  beforeAll(async () => {
    p = await startPlatform({
      env: { DCR_RATE_LIMIT_PER_MIN: '1000' },
      tenants: [
        { id: 'acme', name: 'Acme', auth: { scopes: ['mcp:tools', 'mcp:tools:read', 'mcp:tools:write'], defaultScopes: ['mcp:tools:read'], toolScopes: { add_numbers: ['mcp:tools:write'] } } },
        { id: 'beta', name: 'Beta', auth: { scopes: ['mcp:tools'] } },
        { id: 'open', name: 'Open' },
      ],
    });
    acme = p.auth.issuer('acme');
    beta = p.auth.issuer('beta');
  });
  afterAll(async () => p?.close());

  /** The first hop of an authorization request (no redirects followed). */
  async function authorizeFirstHop(params: Parameters<typeof authorizeUrl>[1], issuer = acme): Promise<Response> {
    return new TestBrowser().get(authorizeUrl(issuer, params));
  }

  describe('A. redirect URI matching', () => {
    let clientId: string;
    beforeAll(async () => {
      clientId = await registerPublicClient(acme, 'https://app.example.com/cb');
    });

    it.each([
      ['trailing slash', 'https://app.example.com/cb/'],
      ['extra query', 'https://app.example.com/cb?x=1'],
      ['look-alike host', 'https://app.example.com.evil.test/cb'],
      ['http instead of https', 'http://app.example.com/cb'],
      ['dot segments', 'https://app.example.com/x/../cb'],
      ['another path', 'https://app.example.com/cb2'],
      ['userinfo', 'https://evil@app.example.com/cb'],
      ['case variant of the path', 'https://app.example.com/CB'],
    ])('refuses a %s with an error page and no redirect', async (_n, redirectUri) => {
      const res = await authorizeFirstHop({ clientId, redirectUri, challenge: pkcePair().challenge });
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(await res.text()).toContain('redirect_uri');
    });

    it('lets a native loopback client change only the port', async () => {
      const native = await registerPublicClient(acme, 'http://127.0.0.1:33418/callback');
      const ok = await authorizeFirstHop({ clientId: native, redirectUri: 'http://127.0.0.1:50123/callback', challenge: pkcePair().challenge });
      expect(ok.status).toBe(303);
      expect(ok.headers.get('location')).toContain('/interaction/');
      for (const bad of ['http://localhost:50123/callback', 'http://127.0.0.1:50123/other']) {
        const res = await authorizeFirstHop({ clientId: native, redirectUri: bad, challenge: pkcePair().challenge });
        expect(res.status).toBe(400);
        expect(res.headers.get('location')).toBeNull();
      }
    });

    it('accepts both Claude callbacks', async () => {
      const r = await register(acme, { client_name: 'Claude', redirect_uris: [CLAUDE, 'https://claude.com/api/mcp/auth_callback'], token_endpoint_auth_method: 'none' });
      expect(r.status).toBe(201);
      for (const cb of [CLAUDE, 'https://claude.com/api/mcp/auth_callback']) {
        const t = await obtainTokens(acme, { clientId: String(r.body.client_id), redirectUri: cb });
        expect(t.status).toBe(200);
      }
    });
  });

  describe('B. PKCE', () => {
    let clientId: string;
    beforeAll(async () => {
      clientId = await registerPublicClient(acme);
    });

    it('refuses an authorization request without code_challenge (redirecting the error to the verified URI)', async () => {
      const res = await authorizeFirstHop({ clientId, redirectUri: CLAUDE });
      const loc = new URL(res.headers.get('location') ?? 'about:blank');
      expect(loc.origin + loc.pathname).toBe(CLAUDE);
      expect(loc.searchParams.get('error')).toBe('invalid_request');
      expect(loc.searchParams.get('iss')).toBe(acme);
    });

    it('refuses code_challenge_method=plain', async () => {
      const res = await authorizeFirstHop({ clientId, redirectUri: CLAUDE, challenge: 'a'.repeat(43), method: 'plain' });
      expect(new URL(res.headers.get('location') ?? 'about:blank').searchParams.get('error')).toBe('invalid_request');
    });

    it('advertises S256 only', async () => {
      const meta = (await (await fetch(`${p.auth.baseUrl}/.well-known/oauth-authorization-server/t/acme`)).json()) as Record<string, unknown>;
      expect(meta.code_challenge_methods_supported).toEqual(['S256']);
    });

    it('answers invalid_grant to a wrong or missing code_verifier', async () => {
      const { challenge } = pkcePair();
      for (const verifier of [pkcePair().verifier, undefined]) {
        const back = await approve(new TestBrowser(), authorizeUrl(acme, { clientId, redirectUri: CLAUDE, challenge }), CLAUDE);
        const form: Record<string, string> = { grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: CLAUDE, client_id: clientId };
        if (verifier) form.code_verifier = verifier;
        const t = await token(acme, form);
        expect(t.status).toBe(400);
        expect(t.body.error).toBe('invalid_grant');
      }
    });
  });

  describe('C. authorization code replay', () => {
    it('fails a second redemption and revokes what the first one issued', async () => {
      const first = await obtainTokens(acme);
      const again = await token(acme, { grant_type: 'authorization_code', code: first.code, redirect_uri: first.redirectUri, client_id: first.clientId, code_verifier: first.verifier });
      expect(again.status).toBe(400);
      expect(again.body.error).toBe('invalid_grant');
      const refresh = await token(acme, { grant_type: 'refresh_token', refresh_token: String(first.body.refresh_token), client_id: first.clientId });
      expect(refresh.body.error).toBe('invalid_grant');
    });

    it('lets exactly one of 8 parallel redemptions succeed', async () => {
      const clientId = await registerPublicClient(acme);
      const { verifier, challenge } = pkcePair();
      const back = await approve(new TestBrowser(), authorizeUrl(acme, { clientId, redirectUri: CLAUDE, challenge }), CLAUDE);
      const form = { grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: CLAUDE, client_id: clientId, code_verifier: verifier };
      const results = await Promise.all(Array.from({ length: 8 }, () => token(acme, form)));
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      expect(results.filter((r) => r.status === 400).every((r) => r.body.error === 'invalid_grant')).toBe(true);
    });

    it('stores codes and refresh tokens only as hashes', async () => {
      const t = await obtainTokens(acme);
      const { rows } = await p.auth.services.pool.query(`SELECT payload::text AS p, id_hash FROM "${p.auth.schema}".oidc_model WHERE model IN ('AuthorizationCode','RefreshToken')`);
      const all = rows.map((r: { p: string; id_hash: string }) => r.p + r.id_hash).join('\n');
      expect(all).not.toContain(t.code);
      expect(all).not.toContain(String(t.body.refresh_token));
    });
  });

  describe('D. audience confusion across tenants', () => {
    it('answers invalid_target for another tenant\'s MCP URL', async () => {
      const clientId = await registerPublicClient(acme);
      const res = await authorizeFirstHop({ clientId, redirectUri: CLAUDE, challenge: pkcePair().challenge, resource: p.auth.mcpUrl('beta') });
      expect(new URL(res.headers.get('location') ?? 'about:blank').searchParams.get('error')).toBe('invalid_target');
    });

    it('maps case and trailing-slash variants of the own resource to the canonical audience', async () => {
      const variant = p.auth.mcpUrl('acme').replace('http://127.0.0.1', 'HTTP://127.0.0.1') + '/';
      const t = await obtainTokens(acme, { resource: variant });
      expect(decodeJwt(String(t.body.access_token)).payload.aud).toBe(p.auth.mcpUrl('acme'));
    });

    it('does not know tenant A\'s client at tenant B', async () => {
      const clientId = await registerPublicClient(acme);
      const res = await authorizeFirstHop({ clientId, redirectUri: CLAUDE, challenge: pkcePair().challenge }, beta);
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
    });

    it('does not retarget a refresh token to another resource', async () => {
      const t = await obtainTokens(acme);
      const r = await token(acme, { grant_type: 'refresh_token', refresh_token: String(t.body.refresh_token), client_id: t.clientId, resource: p.auth.mcpUrl('beta') });
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('invalid_target');
    });

    it('refuses tenant A\'s token at tenant B\'s endpoint with 401 and B\'s challenge', async () => {
      const t = await obtainTokens(acme);
      const res = await fetch(p.gateway.mcpUrl('beta'), { method: 'POST', headers: { ...POST_MCP, authorization: `Bearer ${String(t.body.access_token)}` }, body: LIST });
      expect(res.status).toBe(401);
      const challenge = res.headers.get('www-authenticate') ?? '';
      expect(challenge).toContain('error="invalid_token"');
      expect(challenge).toContain(`resource_metadata="${p.gateway.baseUrl}/.well-known/oauth-protected-resource/t/beta/mcp"`);
      const ok = await fetch(p.gateway.mcpUrl('acme'), { method: 'POST', headers: { ...POST_MCP, authorization: `Bearer ${String(t.body.access_token)}` }, body: LIST });
      expect(ok.status).toBe(200);
    });
  });

  describe('E. resource server checks at the gateway', () => {
    it('answers 401 with resource_metadata and scope when no token is sent', async () => {
      const res = await fetch(p.gateway.mcpUrl('acme'), { method: 'POST', headers: POST_MCP, body: LIST });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${p.gateway.baseUrl}/.well-known/oauth-protected-resource/t/acme/mcp", scope="mcp:tools:read"`);
    });

    it('ignores tokens in the query string', async () => {
      const t = await obtainTokens(acme);
      const res = await fetch(`${p.gateway.mcpUrl('acme')}?access_token=${String(t.body.access_token)}`, { method: 'POST', headers: POST_MCP, body: LIST });
      expect(res.status).toBe(401);
    });

    it('answers 400 invalid_request to a malformed Authorization header', async () => {
      const res = await fetch(p.gateway.mcpUrl('acme'), { method: 'POST', headers: { ...POST_MCP, authorization: 'Basic abc' }, body: LIST });
      expect(res.status).toBe(400);
      expect(res.headers.get('www-authenticate')).toContain('error="invalid_request"');
    });

    it('refuses a forged token and an unsigned one', async () => {
      const t = await obtainTokens(acme);
      const [h, pl] = String(t.body.access_token).split('.');
      const forgedPayload = Buffer.from(JSON.stringify({ ...decodeJwt(String(t.body.access_token)).payload, scope: 'mcp:tools' })).toString('base64url');
      const none = Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url');
      for (const bad of [`${h}.${forgedPayload}.${String(t.body.access_token).split('.')[2]}`, `${none}.${pl}.`]) {
        const res = await fetch(p.gateway.mcpUrl('acme'), { method: 'POST', headers: { ...POST_MCP, authorization: `Bearer ${bad}` }, body: LIST });
        expect(res.status).toBe(401);
      }
    });

    it('serves PRM whose resource equals the MCP URL and 404 for unprotected tenants', async () => {
      const prm = (await (await fetch(`${p.gateway.baseUrl}/.well-known/oauth-protected-resource/t/acme/mcp`)).json()) as Record<string, unknown>;
      expect(prm).toMatchObject({ resource: p.gateway.mcpUrl('acme'), authorization_servers: [acme], scopes_supported: ['mcp:tools', 'mcp:tools:read', 'mcp:tools:write'] });
      expect((await fetch(`${p.gateway.baseUrl}/.well-known/oauth-protected-resource/t/open/mcp`)).status).toBe(404);
      const open = await fetch(p.gateway.mcpUrl('open'), { method: 'POST', headers: POST_MCP, body: LIST });
      expect(open.status).toBe(200);
    });

    it('answers 403 insufficient_scope naming the scopes a tool needs (scope hierarchy honoured)', async () => {
      const read = await obtainTokens(acme, { scope: 'mcp:tools:read' });
      const call = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'add_numbers', arguments: { a: 1, b: 2 } } });
      const denied = await fetch(p.gateway.mcpUrl('acme'), { method: 'POST', headers: { ...POST_MCP, authorization: `Bearer ${String(read.body.access_token)}` }, body: call });
      expect(denied.status).toBe(403);
      expect(denied.headers.get('www-authenticate')).toContain('error="insufficient_scope", scope="mcp:tools:read mcp:tools:write"');
      const broad = await obtainTokens(acme, { scope: 'mcp:tools' });
      const ok = await fetch(p.gateway.mcpUrl('acme'), { method: 'POST', headers: { ...POST_MCP, authorization: `Bearer ${String(broad.body.access_token)}` }, body: call });
      expect(ok.status).toBe(200);
    });

    it('counts a batch member refused for scope as a refusal (span and mcp_server_refusals_total), like a single 403', async () => {
      const refusals = async () => {
        const text = await (await fetch(`${p.gateway.baseUrl}/metrics`)).text();
        // Summed over tenant labels: the series budget may label a young tenant `other`.
        const lines = text.split('\n').filter((l) => /^mcp_server_refusals_total\{/.test(l) && l.includes('outcome="insufficient_scope"'));
        return lines.reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
      };
      const before = await refusals();
      const read = await obtainTokens(acme, { scope: 'mcp:tools:read' });
      const batch = JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'add_numbers', arguments: { a: 1, b: 2 } } },
      ]);
      const res = await fetch(p.gateway.mcpUrl('acme'), { method: 'POST', headers: { ...POST_MCP, 'mcp-protocol-version': '2025-03-26', authorization: `Bearer ${String(read.body.access_token)}` }, body: batch });
      expect(res.status).toBe(200);
      const answers = (await res.json()) as Array<{ id: number; error?: { message: string } }>;
      expect(answers.find((a) => a.id === 2)?.error?.message).toContain('insufficient_scope');
      expect(await refusals()).toBe(before + 1);
    });
  });

  describe('F. refresh token rotation and reuse detection', () => {
    it('rotates, and a reused token revokes the whole family', async () => {
      const t = await obtainTokens(acme);
      const r1 = await token(acme, { grant_type: 'refresh_token', refresh_token: String(t.body.refresh_token), client_id: t.clientId });
      expect(r1.status).toBe(200);
      expect(r1.body.refresh_token).not.toBe(t.body.refresh_token);
      const reuse = await token(acme, { grant_type: 'refresh_token', refresh_token: String(t.body.refresh_token), client_id: t.clientId });
      expect(reuse.body.error).toBe('invalid_grant');
      const newest = await token(acme, { grant_type: 'refresh_token', refresh_token: String(r1.body.refresh_token), client_id: t.clientId });
      expect(newest.body.error).toBe('invalid_grant');
    });

    it('lets at most one of 6 parallel refreshes succeed', async () => {
      const t = await obtainTokens(acme);
      const form = { grant_type: 'refresh_token', refresh_token: String(t.body.refresh_token), client_id: t.clientId };
      const results = await Promise.all(Array.from({ length: 6 }, () => token(acme, form)));
      expect(results.filter((r) => r.status === 200).length).toBeLessThanOrEqual(1);
      expect(results.filter((r) => r.status !== 200).every((r) => r.body.error === 'invalid_grant')).toBe(true);
    });

    it('refuses a refresh by another client', async () => {
      const t = await obtainTokens(acme);
      const other = await registerPublicClient(acme);
      const r = await token(acme, { grant_type: 'refresh_token', refresh_token: String(t.body.refresh_token), client_id: other });
      expect(r.body.error).toBe('invalid_grant');
    });
  });

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
        redirect_uris: ['cursor://anysphere.cursor-mcp/oauth/callback', 'https://www.cursor.com/agents/mcp/oauth/callback', 'http://localhost:8787/callback'],
        token_endpoint_auth_method: 'none',
        scope: 'claudeai mcp:tools',
      });
      expect(cursor.status).toBe(201);
      expect(cursor.body.application_type).toBe('native');
      expect(cursor.body.scope).toBeUndefined();
      expect(cursor.body.client_secret).toBeUndefined();
      expect(cursor.body.registration_client_uri).toBe(`${acme}/register/${String(cursor.body.client_id)}`);
      const read = await fetch(String(cursor.body.registration_client_uri), { headers: { authorization: `Bearer ${String(cursor.body.registration_access_token)}` } });
      expect(read.status).toBe(200);
    });

    it('answers CORS preflight for browser clients', async () => {
      const res = await fetch(`${acme}/register`, { method: 'OPTIONS', headers: { origin: 'https://inspector.example', 'access-control-request-method': 'POST' } });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
    });

    it('seals confidential clients\' secrets at rest', async () => {
      const r = await register(acme, { redirect_uris: [CLAUDE] });
      expect(r.body.client_secret).toEqual(expect.any(String));
      const { rows } = await p.auth.services.pool.query(`SELECT payload::text AS p FROM "${p.auth.schema}".oidc_model WHERE model = 'Client'`);
      expect(rows.map((x: { p: string }) => x.p).join()).not.toContain(String(r.body.client_secret));
      const t = await token(acme, { grant_type: 'authorization_code', code: 'nope' }, { authorization: `Basic ${Buffer.from(`${String(r.body.client_id)}:${String(r.body.client_secret)}`).toString('base64')}` });
      expect(t.body.error).toBe('invalid_grant'); // authenticated, the code is what is wrong
    });
  });

  describe('I. open redirect, state and iss', () => {
    it('never redirects for an unknown client', async () => {
      const res = await authorizeFirstHop({ clientId: 'no-such-client', redirectUri: 'https://evil.test/cb', challenge: pkcePair().challenge });
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
    });

    it('echoes state and iss on the success redirect', async () => {
      const clientId = await registerPublicClient(acme);
      const back = await approve(new TestBrowser(), authorizeUrl(acme, { clientId, redirectUri: CLAUDE, challenge: pkcePair().challenge, state: 'xyz-123' }), CLAUDE);
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

  describe('L. JWKS rotation', () => {
    it('keeps old tokens valid, picks up the new kid, and stops old tokens once the key is retired', async () => {
      const old = await obtainTokens(acme);
      const oldKid = String(decodeJwt(String(old.body.access_token)).header.kid);
      const call = (tok: unknown) => fetch(p.gateway.mcpUrl('acme'), { method: 'POST', headers: { ...POST_MCP, authorization: `Bearer ${String(tok)}` }, body: LIST });
      expect((await call(old.body.access_token)).status).toBe(200);
      const rotated = await fetch(`${p.auth.baseUrl}/internal/tenants/acme/keys/rotate`, { method: 'POST', headers: { authorization: 'Bearer internal-token-for-tests-0123456789' } });
      const { kid } = (await rotated.json()) as { kid: string };
      const fresh = await obtainTokens(acme);
      expect(decodeJwt(String(fresh.body.access_token)).header.kid).toBe(kid);
      expect((await call(fresh.body.access_token)).status).toBe(200);
      expect((await call(old.body.access_token)).status).toBe(200);
      const jwks = (await (await fetch(`${acme}/jwks`)).json()) as { keys: Array<{ kid: string; d?: string }> };
      expect(jwks.keys.map((k) => k.kid)).toEqual(expect.arrayContaining([kid, oldKid]));
      expect(jwks.keys.every((k) => k.d === undefined)).toBe(true);
      const retired = await fetch(`${p.auth.baseUrl}/internal/tenants/acme/keys/${oldKid}/retire`, { method: 'POST', headers: { authorization: 'Bearer internal-token-for-tests-0123456789' } });
      expect(retired.status).toBe(201);
      const after = (await (await fetch(`${acme}/jwks`)).json()) as { keys: Array<{ kid: string }> };
      expect(after.keys.map((k) => k.kid)).not.toContain(oldKid);
    });

    it('refuses key management without the internal token', async () => {
      const res = await fetch(`${p.auth.baseUrl}/internal/tenants/acme/keys/rotate`, { method: 'POST' });
      expect(res.status).toBe(401);
    });
  });

  describe('bad input gets the RFC error, never a 500', () => {
    it.each([
      ['missing grant_type', {}, 'invalid_request'],
      ['unknown client', { grant_type: 'authorization_code', code: 'c', client_id: 'nobody', code_verifier: 'v'.repeat(43), redirect_uri: CLAUDE }, 'invalid_client'],
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
      const bad = await token(acme, { grant_type: 'authorization_code', code: 'nope', client_id: t.clientId, code_verifier: t.verifier, redirect_uri: CLAUDE });
      expect(bad.body.error).toBe('invalid_grant');
      const widen = await token(acme, { grant_type: 'refresh_token', refresh_token: String(t.body.refresh_token), client_id: t.clientId, scope: 'mcp:tools:write' });
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
      const res = await fetch(`${acme}/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `client_id=${clientId}` });
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
      expect(body).toMatchObject({ issuer: acme, registration_endpoint: `${acme}/register`, client_id_metadata_document_supported: true, authorization_response_iss_parameter_supported: true });
      expect(body.scopes_supported).toEqual(expect.arrayContaining(['mcp:tools']));
    });
  });
});

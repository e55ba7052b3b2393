import {
  approve,
  authorizeUrl,
  decodeJwt,
  obtainTokens,
  pkcePair,
  register,
  registerPublicClient,
  TestBrowser,
  token,
} from '@switchboard/testing';
import { type Platform } from './support/platform';

import { CLAUDE, LIST, POST_MCP, authorizeFirstHop as firstHop, startSecurityPlatform } from './support/security-platform';

// Redirect URIs, PKCE, code replay and audience confusion across tenants.
describe('authorization server and resource server security (AUTH-NOTES §3): the authorization code flow', () => {
  let p: Platform;
  let acme: string;
  let beta: string;

  beforeAll(async () => {
    ({ p, acme, beta } = await startSecurityPlatform());
  });
  afterAll(async () => p?.close());

  const authorizeFirstHop = (params: Parameters<typeof firstHop>[1], issuer = acme) => firstHop(issuer, params);

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
      const ok = await authorizeFirstHop({
        clientId: native,
        redirectUri: 'http://127.0.0.1:50123/callback',
        challenge: pkcePair().challenge,
      });
      expect(ok.status).toBe(303);
      expect(ok.headers.get('location')).toContain('/interaction/');
      for (const bad of ['http://localhost:50123/callback', 'http://127.0.0.1:50123/other']) {
        const res = await authorizeFirstHop({ clientId: native, redirectUri: bad, challenge: pkcePair().challenge });
        expect(res.status).toBe(400);
        expect(res.headers.get('location')).toBeNull();
      }
    });

    it('accepts both Claude callbacks', async () => {
      const r = await register(acme, {
        client_name: 'Claude',
        redirect_uris: [CLAUDE, 'https://claude.com/api/mcp/auth_callback'],
        token_endpoint_auth_method: 'none',
      });
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
      const meta = (await (await fetch(`${p.auth.baseUrl}/.well-known/oauth-authorization-server/t/acme`)).json()) as Record<
        string,
        unknown
      >;
      expect(meta.code_challenge_methods_supported).toEqual(['S256']);
    });

    it('answers invalid_grant to a wrong or missing code_verifier', async () => {
      const { challenge } = pkcePair();
      for (const verifier of [pkcePair().verifier, undefined]) {
        const back = await approve(new TestBrowser(), authorizeUrl(acme, { clientId, redirectUri: CLAUDE, challenge }), CLAUDE);
        const form: Record<string, string> = {
          grant_type: 'authorization_code',
          code: back.searchParams.get('code')!,
          redirect_uri: CLAUDE,
          client_id: clientId,
        };
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
      const again = await token(acme, {
        grant_type: 'authorization_code',
        code: first.code,
        redirect_uri: first.redirectUri,
        client_id: first.clientId,
        code_verifier: first.verifier,
      });
      expect(again.status).toBe(400);
      expect(again.body.error).toBe('invalid_grant');
      const refresh = await token(acme, {
        grant_type: 'refresh_token',
        refresh_token: String(first.body.refresh_token),
        client_id: first.clientId,
      });
      expect(refresh.body.error).toBe('invalid_grant');
    });

    it('lets exactly one of 8 parallel redemptions succeed', async () => {
      const clientId = await registerPublicClient(acme);
      const { verifier, challenge } = pkcePair();
      const back = await approve(new TestBrowser(), authorizeUrl(acme, { clientId, redirectUri: CLAUDE, challenge }), CLAUDE);
      const form = {
        grant_type: 'authorization_code',
        code: back.searchParams.get('code')!,
        redirect_uri: CLAUDE,
        client_id: clientId,
        code_verifier: verifier,
      };
      const results = await Promise.all(Array.from({ length: 8 }, () => token(acme, form)));
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      expect(results.filter((r) => r.status === 400).every((r) => r.body.error === 'invalid_grant')).toBe(true);
    });

    it('stores codes and refresh tokens only as hashes', async () => {
      const t = await obtainTokens(acme);
      const { rows } = await p.auth.services.pool.query(
        `SELECT payload::text AS p, id_hash FROM "${p.auth.schema}".oidc_model WHERE model IN ('AuthorizationCode','RefreshToken')`,
      );
      const all = rows.map((r: { p: string; id_hash: string }) => r.p + r.id_hash).join('\n');
      expect(all).not.toContain(t.code);
      expect(all).not.toContain(String(t.body.refresh_token));
    });
  });

  describe('D. audience confusion across tenants', () => {
    it("answers invalid_target for another tenant's MCP URL", async () => {
      const clientId = await registerPublicClient(acme);
      const res = await authorizeFirstHop({
        clientId,
        redirectUri: CLAUDE,
        challenge: pkcePair().challenge,
        resource: p.auth.mcpUrl('beta'),
      });
      expect(new URL(res.headers.get('location') ?? 'about:blank').searchParams.get('error')).toBe('invalid_target');
    });

    it('maps case and trailing-slash variants of the own resource to the canonical audience', async () => {
      const variant = p.auth.mcpUrl('acme').replace('http://127.0.0.1', 'HTTP://127.0.0.1') + '/';
      const t = await obtainTokens(acme, { resource: variant });
      expect(decodeJwt(String(t.body.access_token)).payload.aud).toBe(p.auth.mcpUrl('acme'));
    });

    it("does not know tenant A's client at tenant B", async () => {
      const clientId = await registerPublicClient(acme);
      const res = await authorizeFirstHop({ clientId, redirectUri: CLAUDE, challenge: pkcePair().challenge }, beta);
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
    });

    it('does not retarget a refresh token to another resource', async () => {
      const t = await obtainTokens(acme);
      const r = await token(acme, {
        grant_type: 'refresh_token',
        refresh_token: String(t.body.refresh_token),
        client_id: t.clientId,
        resource: p.auth.mcpUrl('beta'),
      });
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('invalid_target');
    });

    it("refuses tenant A's token at tenant B's endpoint with 401 and B's challenge", async () => {
      const t = await obtainTokens(acme);
      const res = await fetch(p.gateway.mcpUrl('beta'), {
        method: 'POST',
        headers: { ...POST_MCP, authorization: `Bearer ${String(t.body.access_token)}` },
        body: LIST,
      });
      expect(res.status).toBe(401);
      const challenge = res.headers.get('www-authenticate') ?? '';
      expect(challenge).toContain('error="invalid_token"');
      expect(challenge).toContain(`resource_metadata="${p.gateway.baseUrl}/.well-known/oauth-protected-resource/t/beta/mcp"`);
      const ok = await fetch(p.gateway.mcpUrl('acme'), {
        method: 'POST',
        headers: { ...POST_MCP, authorization: `Bearer ${String(t.body.access_token)}` },
        body: LIST,
      });
      expect(ok.status).toBe(200);
    });
  });
});

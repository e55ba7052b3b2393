import { decodeJwt, obtainTokens, registerPublicClient, token } from '@switchboard/testing';
import { type Platform } from './support/platform';

import { LIST, POST_MCP, startSecurityPlatform } from './support/security-platform';

// What the gateway checks in a token, refresh token rotation and reuse, and signing key rotation.
describe('authorization server and resource server security (AUTH-NOTES §3): tokens', () => {
  let p: Platform;
  let acme: string;

  beforeAll(async () => {
    ({ p, acme } = await startSecurityPlatform());
  });
  afterAll(async () => p?.close());

  describe('E. resource server checks at the gateway', () => {
    it('answers 401 with resource_metadata and scope when no token is sent', async () => {
      const res = await fetch(p.gateway.mcpUrl('acme'), { method: 'POST', headers: POST_MCP, body: LIST });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe(
        `Bearer resource_metadata="${p.gateway.baseUrl}/.well-known/oauth-protected-resource/t/acme/mcp", scope="mcp:tools:read"`,
      );
    });

    it('ignores tokens in the query string', async () => {
      const t = await obtainTokens(acme);
      const res = await fetch(`${p.gateway.mcpUrl('acme')}?access_token=${String(t.body.access_token)}`, {
        method: 'POST',
        headers: POST_MCP,
        body: LIST,
      });
      expect(res.status).toBe(401);
    });

    it('answers 400 invalid_request to a malformed Authorization header', async () => {
      const res = await fetch(p.gateway.mcpUrl('acme'), {
        method: 'POST',
        headers: { ...POST_MCP, authorization: 'Basic abc' },
        body: LIST,
      });
      expect(res.status).toBe(400);
      expect(res.headers.get('www-authenticate')).toContain('error="invalid_request"');
    });

    it('refuses a forged token and an unsigned one', async () => {
      const t = await obtainTokens(acme);
      const [h, pl] = String(t.body.access_token).split('.');
      const forgedPayload = Buffer.from(JSON.stringify({ ...decodeJwt(String(t.body.access_token)).payload, scope: 'mcp:tools' })).toString(
        'base64url',
      );
      const none = Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url');
      for (const bad of [`${h}.${forgedPayload}.${String(t.body.access_token).split('.')[2]}`, `${none}.${pl}.`]) {
        const res = await fetch(p.gateway.mcpUrl('acme'), {
          method: 'POST',
          headers: { ...POST_MCP, authorization: `Bearer ${bad}` },
          body: LIST,
        });
        expect(res.status).toBe(401);
      }
    });

    it('serves PRM whose resource equals the MCP URL and 404 for unprotected tenants', async () => {
      const prm = (await (await fetch(`${p.gateway.baseUrl}/.well-known/oauth-protected-resource/t/acme/mcp`)).json()) as Record<
        string,
        unknown
      >;
      expect(prm).toMatchObject({
        resource: p.gateway.mcpUrl('acme'),
        authorization_servers: [acme],
        scopes_supported: ['mcp:tools', 'mcp:tools:read', 'mcp:tools:write'],
      });
      expect((await fetch(`${p.gateway.baseUrl}/.well-known/oauth-protected-resource/t/open/mcp`)).status).toBe(404);
      const open = await fetch(p.gateway.mcpUrl('open'), { method: 'POST', headers: POST_MCP, body: LIST });
      expect(open.status).toBe(200);
    });

    it('answers 403 insufficient_scope naming the scopes a tool needs (scope hierarchy honoured)', async () => {
      const read = await obtainTokens(acme, { scope: 'mcp:tools:read' });
      const call = JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'add_numbers', arguments: { a: 1, b: 2 } },
      });
      const denied = await fetch(p.gateway.mcpUrl('acme'), {
        method: 'POST',
        headers: { ...POST_MCP, authorization: `Bearer ${String(read.body.access_token)}` },
        body: call,
      });
      expect(denied.status).toBe(403);
      expect(denied.headers.get('www-authenticate')).toContain('error="insufficient_scope", scope="mcp:tools:read mcp:tools:write"');
      const broad = await obtainTokens(acme, { scope: 'mcp:tools' });
      const ok = await fetch(p.gateway.mcpUrl('acme'), {
        method: 'POST',
        headers: { ...POST_MCP, authorization: `Bearer ${String(broad.body.access_token)}` },
        body: call,
      });
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
      const res = await fetch(p.gateway.mcpUrl('acme'), {
        method: 'POST',
        headers: { ...POST_MCP, 'mcp-protocol-version': '2025-03-26', authorization: `Bearer ${String(read.body.access_token)}` },
        body: batch,
      });
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
      const newest = await token(acme, {
        grant_type: 'refresh_token',
        refresh_token: String(r1.body.refresh_token),
        client_id: t.clientId,
      });
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

  describe('L. JWKS rotation', () => {
    it('keeps old tokens valid, picks up the new kid, and stops old tokens once the key is retired', async () => {
      const old = await obtainTokens(acme);
      const oldKid = String(decodeJwt(String(old.body.access_token)).header.kid);
      const call = (tok: unknown) =>
        fetch(p.gateway.mcpUrl('acme'), { method: 'POST', headers: { ...POST_MCP, authorization: `Bearer ${String(tok)}` }, body: LIST });
      expect((await call(old.body.access_token)).status).toBe(200);
      const rotated = await fetch(`${p.auth.baseUrl}/internal/tenants/acme/keys/rotate`, {
        method: 'POST',
        headers: { authorization: 'Bearer internal-token-for-tests-0123456789' },
      });
      const { kid } = (await rotated.json()) as { kid: string };
      const fresh = await obtainTokens(acme);
      expect(decodeJwt(String(fresh.body.access_token)).header.kid).toBe(kid);
      expect((await call(fresh.body.access_token)).status).toBe(200);
      expect((await call(old.body.access_token)).status).toBe(200);
      const jwks = (await (await fetch(`${acme}/jwks`)).json()) as { keys: Array<{ kid: string; d?: string }> };
      expect(jwks.keys.map((k) => k.kid)).toEqual(expect.arrayContaining([kid, oldKid]));
      expect(jwks.keys.every((k) => k.d === undefined)).toBe(true);
      const retired = await fetch(`${p.auth.baseUrl}/internal/tenants/acme/keys/${oldKid}/retire`, {
        method: 'POST',
        headers: { authorization: 'Bearer internal-token-for-tests-0123456789' },
      });
      expect(retired.status).toBe(201);
      const after = (await (await fetch(`${acme}/jwks`)).json()) as { keys: Array<{ kid: string }> };
      expect(after.keys.map((k) => k.kid)).not.toContain(oldKid);
    });

    it('refuses key management without the internal token', async () => {
      const res = await fetch(`${p.auth.baseUrl}/internal/tenants/acme/keys/rotate`, { method: 'POST' });
      expect(res.status).toBe(401);
    });
  });
});

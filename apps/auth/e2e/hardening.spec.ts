/**
 * Issue 18 item 10, against the real auth service on Postgres: no fetch of a registrant's
 * `jwks_uri`, a refresh with a bad `resource` that leaves the refresh token usable, no session id
 * in clear in the database, and nosniff on every response.
 */
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { startAuth, type TestAuth } from './support/auth-harness';
import { obtainTokens, register, token } from '@switchboard/testing';

const CLAUDE = 'https://claude.ai/api/mcp/auth_callback';

describe('auth-service hardening', () => {
  let auth: TestAuth;
  let acme: string;
  let probe: Server;
  let probed = 0;

  beforeAll(async () => {
    // A local TCP listener standing in for an internal service: any connection to it is a probe.
    probe = createServer((socket) => {
      probed++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
    auth = await startAuth({
      env: { DCR_RATE_LIMIT_PER_MIN: '1000' },
      tenants: [
        { id: 'acme', auth: { scopes: ['mcp:tools'] } },
        { id: 'beta', auth: { scopes: ['mcp:tools'] } },
      ],
    });
    acme = auth.issuer('acme');
  });
  afterAll(async () => {
    await auth?.close();
    await new Promise<void>((resolve) => probe.close(() => resolve()));
  });

  it('refuses a DCR registration carrying jwks_uri (400 invalid_client_metadata) and never connects to it', async () => {
    const port = (probe.address() as AddressInfo).port;
    for (const jwksUri of [`http://127.0.0.1:${port}/jwks`, `https://127.0.0.1:${port}/jwks`, 'https://example.com/jwks']) {
      const r = await register(acme, { redirect_uris: [CLAUDE], token_endpoint_auth_method: 'private_key_jwt', jwks_uri: jwksUri });
      expect(r.status).toBe(400);
      expect(r.body).toEqual({
        error: 'invalid_client_metadata',
        error_description: 'jwks_uri is not accepted: send the public keys inline as jwks',
      });
    }
    expect(probed).toBe(0);
  });

  it('refuses a refresh with another resource (invalid_target) without consuming the refresh token', async () => {
    const t = await obtainTokens(acme);
    const bad = await token(acme, {
      grant_type: 'refresh_token',
      refresh_token: String(t.body.refresh_token),
      client_id: t.clientId,
      resource: auth.mcpUrl('beta'),
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: 'invalid_target', error_description: expect.stringContaining(auth.mcpUrl('acme')) });
    // The same refresh token still works (it was not counted as used, the family is not revoked).
    const good = await token(acme, { grant_type: 'refresh_token', refresh_token: String(t.body.refresh_token), client_id: t.clientId });
    expect(good.status).toBe(200);
    expect(typeof good.body.access_token).toBe('string');
  });

  it('stores no session id in clear: the session cookie value appears nowhere in the oidc_model table', async () => {
    const t = await obtainTokens(acme);
    const session = t.browser.cookieValue(new URL(acme), 'sb_acme_session');
    expect(session).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    const { rows } = await auth.services.pool.query<{ p: string; id_hash: string }>(
      `SELECT payload::text AS p, id_hash FROM "${auth.schema}".oidc_model WHERE model = 'Session'`,
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.p).not.toContain(session);
      expect(row.id_hash).not.toBe(session);
    }
    // The session still works: a second authorization in the same browser finds it.
    expect((await obtainTokens(acme, { browser: t.browser })).status).toBe(200);
  });

  it('sends X-Content-Type-Options: nosniff on JSON, HTML and error responses', async () => {
    const urls = [
      `${acme}/.well-known/oauth-authorization-server`,
      `${acme}/authorize?client_id=nope`,
      `${auth.baseUrl}/healthz`,
      `${auth.baseUrl}/no-such-page`,
    ];
    for (const url of urls) {
      const res = await fetch(url, { redirect: 'manual' });
      expect({ url, nosniff: res.headers.get('x-content-type-options') }).toEqual({ url, nosniff: 'nosniff' });
    }
  });
});

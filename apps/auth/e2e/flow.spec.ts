import { startAuth, type TestAuth } from './support/auth-harness';
import { decodeJwt, obtainTokens } from '@switchboard/testing';

describe('authorization code flow (local login)', () => {
  let auth: TestAuth;
  beforeAll(async () => {
    auth = await startAuth({ tenants: [{ id: 'acme', auth: { scopes: ['mcp:tools', 'mcp:tools:read'], defaultScopes: ['mcp:tools'] } }] });
  });
  afterAll(async () => auth?.close());

  it('serves discovery with the MCP scopes', async () => {
    const res = await fetch(`${auth.baseUrl}/.well-known/oauth-authorization-server/t/acme`);
    const body = (await res.json()) as Record<string, unknown>;
    expect(res.status).toBe(200);
    expect(body.issuer).toBe(auth.issuer('acme'));
    expect(body.token_endpoint).toBe(`${auth.issuer('acme')}/token`);
    expect(body.scopes_supported).toEqual(expect.arrayContaining(['mcp:tools', 'mcp:tools:read']));
  });

  it('issues an ES256 at+jwt bound to the tenant MCP URL without resource or scope', async () => {
    const t = await obtainTokens(auth.issuer('acme'));
    expect(t.status).toBe(200);
    expect(t.back.searchParams.get('iss')).toBe(auth.issuer('acme'));
    const { header, payload } = decodeJwt(String(t.body.access_token));
    expect(header).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    expect(payload).toMatchObject({
      aud: auth.mcpUrl('acme'),
      iss: auth.issuer('acme'),
      tid: 'acme',
      sub: 'acme|local|alice',
      client_id: t.clientId,
      scope: 'mcp:tools',
    });
    expect(t.body.refresh_token).toEqual(expect.any(String));
  });

  it('counts authorizations, registrations, sign-ins and token grants on /metrics', async () => {
    expect((await obtainTokens(auth.issuer('acme'))).status).toBe(200);
    const text = await (await fetch(`${auth.baseUrl}/metrics`)).text();
    expect(text).toMatch(/auth_authorizations_total\{[^}]*outcome="ok"[^}]*\} [1-9]/);
    expect(text).toMatch(/auth_client_registrations_total\{[^}]*outcome="ok"[^}]*\} [1-9]/);
    expect(text).toMatch(/auth_sign_ins_total\{[^}]*idp="local"[^}]*outcome="ok"[^}]*\} [1-9]/);
    expect(text).toMatch(/auth_token_grants_total\{[^}]*grant_type="authorization_code"[^}]*outcome="ok"[^}]*\} [1-9]/);
    expect(text).toMatch(/nodejs_eventloop_delay_p99_seconds/);
  });
});

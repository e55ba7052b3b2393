import { INTERNAL_TOKEN, freePort, sealTenantSecret, startAuth, type TestAuth } from './support/auth-harness';
import { obtainTokens } from '@switchboard/testing';
import { linkAccount } from './support/link-account';
import { startTestIdp, type TestIdp } from './support/test-idp';

const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';

describe('upstream credential vault (connector linking + token exchange)', () => {
  let connectorAs: TestIdp;
  let auth: TestAuth;

  beforeAll(async () => {
    const port = await freePort();
    connectorAs = await startTestIdp([
      { client_id: 'crm', client_secret: 'crm-client-secret', redirect_uris: [`http://127.0.0.1:${port}/t/acme/connectors/callback`] },
    ]);
    auth = await startAuth({
      port,
      tenants: [
        {
          id: 'acme',
          auth: {
            scopes: ['mcp:tools'],
            connectors: {
              crm: {
                issuer: connectorAs.issuer,
                clientId: 'crm',
                clientSecret: sealTenantSecret('acme', 'connector:crm', 'crm-client-secret'),
                scopes: ['openid'],
              },
            },
          },
        },
      ],
    });
  });
  afterAll(async () => {
    await auth?.close();
    await connectorAs?.close();
  });

  const exchange = (subjectToken: string, audience = 'crm', token = INTERNAL_TOKEN) =>
    fetch(`${auth.baseUrl}/internal/t/acme/token-exchange`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${token}` },
      body: new URLSearchParams({
        grant_type: EXCHANGE,
        subject_token: subjectToken,
        subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        audience,
      }).toString(),
    });

  it('asks for linking, links through the connector AS, then hands out a different, sealed credential', async () => {
    const user = await obtainTokens(auth.issuer('acme'), { user: 'carol' });
    const clientToken = String(user.body.access_token);
    const first = await exchange(clientToken);
    expect(first.status).toBe(400);
    const needLink = (await first.json()) as { error: string; link_url: string };
    expect(needLink.error).toBe('invalid_grant');
    expect(needLink.link_url).toContain('/t/acme/connectors/crm/link?ticket=');

    // Linked in the browser that signed in as carol (the link is honoured for her session only).
    const { res } = await linkAccount(user.browser, needLink.link_url);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Connected');

    const second = await exchange(clientToken);
    expect(second.status).toBe(200);
    const upstream = (await second.json()) as { access_token: string; issued_token_type: string };
    expect(upstream.issued_token_type).toBe('urn:ietf:params:oauth:token-type:access_token');
    expect(upstream.access_token).not.toBe(clientToken);
    const { rows } = await auth.services.pool.query(`SELECT sealed FROM "${auth.schema}".vault_token`);
    expect(JSON.stringify(rows)).not.toContain(upstream.access_token);

    // Another user of the same tenant is not linked.
    const other = await obtainTokens(auth.issuer('acme'), { user: 'dave' });
    expect((await exchange(String(other.body.access_token))).status).toBe(400);
  });

  it('refuses callers without the internal token, foreign tokens and unknown connectors', async () => {
    const user = await obtainTokens(auth.issuer('acme'));
    const t = String(user.body.access_token);
    expect((await exchange(t, 'crm', 'wrong-token-wrong-token-wrong')).status).toBe(401);
    const bad = await exchange(`${t.slice(0, -4)}AAAA`);
    expect(((await bad.json()) as { error: string }).error).toBe('invalid_grant');
    const unknown = await exchange(t, 'nope');
    expect(((await unknown.json()) as { error: string }).error).toBe('invalid_target');
  });

  it('refuses a tampered link ticket and a callback in another browser', async () => {
    const res = await fetch(`${auth.issuer('acme')}/connectors/crm/link?ticket=Y2Fyb2w.9999999999.forged`);
    expect(res.status).toBe(400);
    const cb = await fetch(`${auth.issuer('acme')}/connectors/callback?code=x&state=y`);
    expect(cb.status).toBe(400);
  });
});

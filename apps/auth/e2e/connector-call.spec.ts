// Test-only cross-app imports: an enterprise-connector call needs the real gateway and a real upstream.
import { obtainTokens, TestUpstream } from '@switchboard/testing';
import { INTERNAL_TOKEN, freePort, sealTenantSecret, startAuth, type TestAuth } from './support/auth-harness';
import { startGateway, type TestGateway } from './support/platform';
import { startTestIdp, type TestIdp } from './support/test-idp';
import { linkAccount } from './support/link-account';

/**
 * An upstream that needs its own OAuth (an "enterprise connector"): a call through the
 * gateway reaches it with the user's vaulted token, obtained by token exchange at the auth
 * service — never with the client's token, and never with the route's static credential.
 */
describe('enterprise connector call through the gateway', () => {
  let connectorAs: TestIdp;
  let auth: TestAuth;
  let gateway: TestGateway;
  let upstream: TestUpstream;

  beforeAll(async () => {
    const authPort = await freePort();
    const gwPort = await freePort();
    connectorAs = await startTestIdp([
      { client_id: 'crm', client_secret: 'crm-client-secret', redirect_uris: [`http://127.0.0.1:${authPort}/t/acme/connectors/callback`] },
    ]);
    upstream = await TestUpstream.start({ stateful: false, name: 'crm' });
    const tenantAuth = {
      scopes: ['mcp:tools'],
      connectors: {
        crm: {
          issuer: connectorAs.issuer,
          clientId: 'crm',
          clientSecret: sealTenantSecret('acme', 'connector:crm', 'crm-client-secret'),
          scopes: ['openid'],
        },
      },
    };
    auth = await startAuth({ port: authPort, gatewayPublicUrl: `http://127.0.0.1:${gwPort}`, tenants: [{ id: 'acme', auth: tenantAuth }] });
    gateway = await startGateway(
      gwPort,
      [
        {
          id: 'acme',
          name: 'Acme',
          auth: tenantAuth,
          catalogs: [{ upstream: { id: 'crm', url: upstream.url, headers: { authorization: 'Bearer static-service-credential' } } }],
        },
      ],
      { AUTH_PUBLIC_URL: auth.baseUrl, AUTH_INTERNAL_TOKEN: INTERNAL_TOKEN, AUTH_JWKS_COOLDOWN_MS: '0' },
    );
  });

  afterAll(async () => {
    await gateway?.close();
    await auth?.close();
    await upstream?.stop();
    await connectorAs?.close();
  });

  const callWhoami = async (clientToken: string) => {
    const res = await fetch(gateway.mcpUrl('acme'), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
        authorization: `Bearer ${clientToken}`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result: { isError?: boolean; content: Array<{ text: string }> } };
    return body.result;
  };

  it("asks an unlinked user to connect, then calls the upstream with the user's own upstream token", async () => {
    const user = await obtainTokens(auth.issuer('acme'), { user: 'carol', resource: gateway.mcpUrl('acme') });
    const clientToken = String(user.body.access_token);

    const before = upstream.requests('tools/call').length;
    const unlinked = await callWhoami(clientToken);
    expect(unlinked.isError).toBe(true);
    const link = /(http:\/\/\S+\/t\/acme\/connectors\/crm\/link\?ticket=\S+)/.exec(unlinked.content[0].text)?.[1];
    expect(link).toBeDefined();
    expect(upstream.requests('tools/call')).toHaveLength(before);

    // Carol links in the browser she signed in with (a link is honoured for its own user's session only).
    const { res } = await linkAccount(user.browser, link as string);
    expect(res.status).toBe(200);

    const linked = await callWhoami(clientToken);
    expect(linked.isError).toBeUndefined();
    const calls = upstream.requests('tools/call');
    const seen = String(calls[calls.length - 1].headers.authorization);
    expect(seen).toMatch(/^Bearer \S+$/);
    expect(seen).not.toContain(clientToken);
    expect(seen).not.toBe('Bearer static-service-credential');
    expect(linked.content[0].text).toBe(`authorization=${seen}`);
    // The client's token never reached the upstream on any request.
    expect(upstream.seen.every((r) => !String(r.headers.authorization ?? '').includes(clientToken))).toBe(true);
  });

  it('refuses the connector call without a valid user token (401 with the challenge)', async () => {
    const res = await fetch(gateway.mcpUrl('acme'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: 'Bearer not-a-token' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('resource_metadata=');
  });
});

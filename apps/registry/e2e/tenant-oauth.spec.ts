import { randomBytes } from 'node:crypto';
import { Client as PgClient } from 'pg';
import { decodeJwt, obtainTokens, register } from '@switchboard/testing';
import { IDP_CLIENT, idpClient, signInAt, startTestIdp, type TestIdp } from '../../auth/e2e/support/test-idp';
import { requestJwtAuthorizationGrant } from '@modelcontextprotocol/client';
import { api, mcpClient, until, type Proc, type TestUpstream } from './support/harness';
import { startTenantOAuthStack, type TenantOAuthStack } from './support/tenant-oauth-stack';

/** The bound: a change made through the admin API is live on every replica within this. */
const PROPAGATION_MS = 1_000;
const CLAUDE_CALLBACK = 'https://claude.ai/api/mcp/auth_callback';

/**
 * Issue 11 acceptance, on the real stack (registry + auth + two gateways + Redis + Postgres,
 * nothing restarted): a tenant made through the admin API is turned OAuth-protected with a
 * second oidc-provider as its enterprise IdP, a Claude-shaped client signs in through it and
 * uses both gateways; another tenant's token is refused; protection goes off the same way.
 */
describe('tenant OAuth through the registry (one tenant document, hot-swapped)', () => {
  let stack: TenantOAuthStack | undefined;
  let registry: Proc;
  let authUrl: string;
  let gateways: Proc[];
  let publicUrl: string;
  let upstream: TestUpstream;
  let idp: TestIdp;
  let acmeKey: string;
  let betaKey: string;
  const idpSecret = `idp-secret-${randomBytes(6).toString('hex')}`;

  const mcpUrl = (gateway: Proc, tenant: string) => `${gateway.url}/t/${tenant}/mcp`;
  /** A raw anonymous (or bearer) initialize: what a client's first request looks like. */
  const initialize = (url: string, bearer?: string) =>
    fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
      }),
    });

  beforeAll(async () => {
    stack = await startTenantOAuthStack();
    ({ registry, authUrl, gateways, publicUrl, upstream, acmeKey, betaKey } = stack);
    // The IdP also signs the MCP client in and issues its ID-JAGs (enterprise-managed authorization).
    idp = await startTestIdp(
      [{ client_id: 'switchboard-acme', client_secret: idpSecret, redirect_uris: [`${authUrl}/t/acme/federation/callback`] }, idpClient()],
      { idJag: true },
    );
  }, 120_000);

  afterAll(async () => {
    await idp?.close();
    await stack?.stop();
  });

  it('serves both gateways anonymously before the tenant sets auth up, and has no authorization server for it', async () => {
    for (const g of gateways) {
      const client = await mcpClient(mcpUrl(g, 'acme'));
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('find_contact');
      await client.close();
    }
    expect((await fetch(`${authUrl}/t/acme/.well-known/openid-configuration`)).status).toBe(404);
    expect((await api(registry.url, acmeKey, 'GET', '/v1/tenant/auth')).body).toMatchObject({
      configured: false,
      protected: false,
      idp: { kind: 'local' },
    });
  });

  it('refuses bad auth settings with the field named, before saving anything', async () => {
    const cases: Array<[unknown, number, string, string]> = [
      [{ scopes: ['has space'] }, 400, 'VALIDATION', 'body.scopes.0'],
      [{ scopes: ['mcp:tools'], defaultScopes: ['mcp:admin'] }, 400, 'VALIDATION', 'body.defaultScopes'],
      [{ idp: { kind: 'oidc', issuer: 'not a url', clientId: 'x' } }, 400, 'VALIDATION', 'body.idp.issuer'],
      [{ idp: { kind: 'oidc', issuer: 'http://169.254.169.254', clientId: 'x' } }, 400, 'URL_REFUSED', 'body.idp.issuer'],
      // An issuer whose discovery document is missing: the check fails before anything is stored.
      [
        { idp: { kind: 'oidc', issuer: `${upstream.url.replace('/mcp', '')}/nothing-here`, clientId: 'x' } },
        400,
        'VALIDATION',
        'body.idp.issuer',
      ],
      [{ idp: { kind: 'oidc', issuer: idp.issuer, clientId: 'x', clientSecretEnv: 'IDP_SECRET' } }, 400, 'VALIDATION', 'body.idp'],
      [{ protected: 'yes' }, 400, 'VALIDATION', 'body.protected'],
      // Trusted enterprise IdPs (ID-JAG): each refusal names the entry's field; a JWKS URL is fetched through the SSRF guard.
      [
        { enterpriseIdps: [{ issuer: idp.issuer, jwksUri: 'http://169.254.169.254/jwks', allowedClients: ['c'] }] },
        400,
        'URL_REFUSED',
        'body.enterpriseIdps.0.jwksUri',
      ],
      [
        { enterpriseIdps: [{ issuer: idp.issuer, jwksUri: `${upstream.url.replace('/mcp', '')}/nothing-here`, allowedClients: ['c'] }] },
        400,
        'VALIDATION',
        'body.enterpriseIdps.0.jwksUri',
      ],
      [
        { enterpriseIdps: [{ issuer: idp.issuer, jwksUri: 'not a url', allowedClients: ['c'] }] },
        400,
        'VALIDATION',
        'body.enterpriseIdps.0.jwksUri',
      ],
      [
        { enterpriseIdps: [{ issuer: idp.issuer, jwksUri: `${idp.issuer}/jwks`, allowedClients: [] }] },
        400,
        'VALIDATION',
        'body.enterpriseIdps.0.allowedClients',
      ],
      [
        { enterpriseIdps: [{ issuer: idp.issuer, jwksUri: `${idp.issuer}/jwks`, allowedClients: ['c'], subjectClaim: 'has space' }] },
        400,
        'VALIDATION',
        'body.enterpriseIdps.0.subjectClaim',
      ],
      [
        {
          enterpriseIdps: [
            { issuer: idp.issuer, jwksUri: `${idp.issuer}/jwks`, allowedClients: ['c'], groupScopes: { eng: ['mcp:admin'] } },
          ],
        },
        400,
        'VALIDATION',
        'body.enterpriseIdps.0.groupScopes',
      ],
    ];
    for (const [body, status, code, field] of cases) {
      const res = await api(registry.url, acmeKey, 'PATCH', '/v1/tenant/auth', body);
      expect([JSON.stringify(body), res.status, res.body.error?.code, res.body.error?.field]).toEqual([
        JSON.stringify(body),
        status,
        code,
        field,
      ]);
    }
    expect((await api(registry.url, acmeKey, 'GET', '/v1/tenant/auth')).body.configured).toBe(false);
  });

  it('turns OAuth on with the federated IdP: within 1 s both gateways challenge and the AS answers PRM, metadata and DCR', async () => {
    const res = await api(registry.url, acmeKey, 'PATCH', '/v1/tenant/auth', {
      protected: true,
      scopes: ['mcp:tools'],
      idp: { kind: 'oidc', issuer: idp.issuer, clientId: 'switchboard-acme', clientSecret: idpSecret },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      configured: true,
      protected: true,
      pushed: 'ok',
      idp: { kind: 'oidc', issuer: idp.issuer, clientId: 'switchboard-acme', clientSecretSet: true },
    });
    expect(JSON.stringify(res.body)).not.toContain(idpSecret);

    const issuer = `${authUrl}/t/acme`;
    await until(
      'protection live on every replica',
      async () => {
        for (const g of gateways) {
          const r = await initialize(mcpUrl(g, 'acme'));
          if (r.status !== 401) return false;
          const challenge = r.headers.get('www-authenticate') ?? '';
          if (!challenge.includes(`resource_metadata="${publicUrl}/.well-known/oauth-protected-resource/t/acme/mcp"`)) return false;
          const prm = await fetch(`${g.url}/.well-known/oauth-protected-resource/t/acme/mcp`);
          if (prm.status !== 200 || ((await prm.json()) as { authorization_servers: string[] }).authorization_servers[0] !== issuer)
            return false;
        }
        const meta = await fetch(`${issuer}/.well-known/oauth-authorization-server`);
        return meta.status === 200 && ((await meta.json()) as { issuer: string }).issuer === issuer;
      },
      PROPAGATION_MS,
      25,
    );
    const dcr = await register(issuer, { client_name: 'Claude', redirect_uris: [CLAUDE_CALLBACK], token_endpoint_auth_method: 'none' });
    expect(dcr.status).toBe(201);

    // The secret is sealed at rest in the registry and never in the audit log.
    const pg = new PgClient({ connectionString: stack!.databaseUrl });
    await pg.connect();
    const row = await pg.query<{ idp_secret: string }>('SELECT idp_secret FROM registry.tenant_auth WHERE tenant_id = $1', ['acme']);
    const auditRows = await pg.query<{ details: unknown }>(
      "SELECT details FROM registry.audit_log WHERE tenant_id = 'acme' AND action = 'auth.update'",
    );
    await pg.end();
    expect(row.rows[0]?.idp_secret).toMatch(/^v2\.[A-Za-z0-9_-]+\./);
    expect(row.rows[0]?.idp_secret).not.toContain(idpSecret);
    expect(auditRows.rows).toHaveLength(1);
    expect(JSON.stringify(auditRows.rows)).not.toContain(idpSecret);
  });

  it('trusts an enterprise IdP for ID-JAGs through the registry: the authorization server advertises the grant within 1 s, and stops when the list is emptied', async () => {
    const metadata = async () =>
      (await (await fetch(`${authUrl}/.well-known/oauth-authorization-server/t/acme`)).json()) as Record<string, unknown>;
    const res = await api(registry.url, acmeKey, 'PATCH', '/v1/tenant/auth', {
      enterpriseIdps: [
        {
          issuer: idp.issuer,
          jwksUri: `${idp.issuer}/jwks`,
          allowedClients: ['mcp-client-1'],
          groupScopes: { engineering: ['mcp:tools'] },
        },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      pushed: 'ok',
      enterpriseIdps: [
        {
          issuer: idp.issuer,
          jwksUri: `${idp.issuer}/jwks`,
          allowedClients: ['mcp-client-1'],
          subjectClaim: 'sub',
          groupsClaim: 'groups',
          groupScopes: { engineering: ['mcp:tools'] },
        },
      ],
    });
    await until(
      'ID-JAG grant advertised',
      async () => JSON.stringify((await metadata()).grant_types_supported).includes('jwt-bearer'),
      PROPAGATION_MS,
      25,
    );
    expect((await metadata()).authorization_grant_profiles_supported).toEqual(['urn:ietf:params:oauth:grant-profile:id-jag']);

    // The admin's test: an ID-JAG the IdP issued, judged by the live authorization server without being spent.
    const issuer = `${authUrl}/t/acme`;
    idp.groups = { alice: ['engineering'], bob: ['marketing'] };
    idp.idJagPolicy[IDP_CLIENT.id] = { targets: { [issuer]: { resource: `${publicUrl}/t/acme/mcp`, clientId: 'mcp-client-1' } } };
    const jagFor = async (user: string) => {
      const idToken = await signInAt(idp, user);
      return (
        await requestJwtAuthorizationGrant({
          tokenEndpoint: `${idp.issuer}/token`,
          audience: issuer,
          resource: `${publicUrl}/t/acme/mcp`,
          idToken,
          clientId: IDP_CLIENT.id,
          clientSecret: IDP_CLIENT.secret,
        })
      ).jwtAuthGrant;
    };
    const check = (body: unknown) => api(registry.url, acmeKey, 'POST', '/v1/tenant/auth/enterprise-check', body);
    const alice = await jagFor('alice');
    for (let i = 0; i < 2; i++) {
      // Twice: a check spends nothing.
      expect((await check({ assertion: alice })).body).toMatchObject({
        ok: true,
        issuer: idp.issuer,
        clientId: 'mcp-client-1',
        subject: expect.stringMatching(/^acme\|oidc-[0-9a-f]{16}\|alice$/),
        scopes: ['mcp:tools'],
      });
    }
    expect((await check({ assertion: await jagFor('bob') })).body).toMatchObject({ ok: false, check: 'group' });
    expect((await check({ assertion: 'not-a-jwt' })).body).toMatchObject({ ok: false, check: 'assertion' });
    const empty = await check({});
    expect([empty.status, empty.body.error?.code, empty.body.error?.field]).toEqual([400, 'VALIDATION', 'body.assertion']);
    idp.user = 'alice';
    expect((await api(registry.url, acmeKey, 'PATCH', '/v1/tenant/auth', { enterpriseIdps: [] })).status).toBe(200);
    await until(
      'ID-JAG grant withdrawn',
      async () => (await metadata()).authorization_grant_profiles_supported === undefined,
      PROPAGATION_MS,
      25,
    );
  });

  it('lets a Claude-shaped client (DCR, PKCE S256, no resource) sign in through the IdP and list/call on both gateways', async () => {
    const issuer = `${authUrl}/t/acme`;
    const t = await obtainTokens(issuer, { redirectUri: CLAUDE_CALLBACK });
    expect(t.status).toBe(200);
    expect(idp.logins).toContain('alice');
    const accessToken = String(t.body.access_token);
    expect(decodeJwt(accessToken).payload).toMatchObject({
      iss: issuer,
      aud: `${publicUrl}/t/acme/mcp`,
      sub: expect.stringMatching(/^acme\|oidc-[0-9a-f]{16}\|alice$/),
      tid: 'acme',
    });
    for (const g of gateways) {
      const client = await mcpClient(mcpUrl(g, 'acme'), accessToken);
      expect((await client.listTools()).tools.map((x) => x.name)).toContain('find_contact');
      const result = await client.callTool({ name: 'find_contact', arguments: { text: 'ada' } });
      expect(JSON.stringify(result.content)).toContain('ada');
      await client.close();
    }
    // The upstream saw no client token.
    expect(upstream.authorizations.filter((a) => a?.includes(accessToken))).toEqual([]);
  }, 60_000);

  it("refuses another tenant's token", async () => {
    expect((await api(registry.url, betaKey, 'PATCH', '/v1/tenant/auth', { protected: true })).status).toBe(200);
    const betaIssuer = `${authUrl}/t/beta`;
    await until(
      'beta authorization server',
      async () => (await fetch(`${betaIssuer}/.well-known/oauth-authorization-server`)).status === 200,
      PROPAGATION_MS,
      25,
    );
    const beta = await obtainTokens(betaIssuer, { redirectUri: CLAUDE_CALLBACK, user: 'bob' });
    expect(beta.status).toBe(200);
    for (const g of gateways) {
      const r = await initialize(mcpUrl(g, 'acme'), String(beta.body.access_token));
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toContain('error="invalid_token"');
    }
  }, 60_000);

  it('turns protection off the same way: anonymous clients are served again on both gateways within 1 s', async () => {
    const res = await api(registry.url, acmeKey, 'PATCH', '/v1/tenant/auth', { protected: false });
    expect(res.body).toMatchObject({ protected: false, pushed: 'ok', idp: { kind: 'oidc' } });
    await until(
      'open again on every replica',
      async () => {
        for (const g of gateways) if ((await initialize(mcpUrl(g, 'acme'))).status !== 200) return false;
        return true;
      },
      PROPAGATION_MS,
      25,
    );
    for (const g of gateways) {
      const client = await mcpClient(mcpUrl(g, 'acme'));
      expect((await client.listTools()).tools.map((x) => x.name)).toContain('find_contact');
      await client.close();
    }
    // The tenant keeps its IdP for the next time (and for a test sign-in); beta is untouched.
    expect((await initialize(mcpUrl(gateways[0]!, 'beta'))).status).toBe(401);
  });
});

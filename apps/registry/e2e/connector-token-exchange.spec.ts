import { randomBytes } from 'node:crypto';
import { decodeJwt, freePort, obtainTokens, parseForm, TestBrowser } from '@switchboard/testing';
import { startTestIdp, type TestIdp } from '../../auth/e2e/support/test-idp';
import { registerTokenExchange, TOKEN_EXCHANGE_GRANT, type TokenExchangePolicy } from '../../auth/e2e/support/token-exchange-grant';
import { REDIS_URL, api, cleanRedis, createDatabase, createTenant, spawnApp, startGateway, startRegistry, testEnv, until, type Proc } from './support/harness';
import { startWhoamiUpstream, type WhoamiUpstream } from './support/whoami-upstream';

const CLAUDE_CALLBACK = 'https://claude.ai/api/mcp/auth_callback';
/** The user the connector's AS refuses to exchange for (its policy), with the description it answers. */
const REFUSED_USER = 'mallory';
const REFUSAL = 'mallory is not allowed to use the CRM';

interface ToolAnswer {
  isError?: boolean;
  content: Array<{ text: string }>;
  _meta?: { 'switchboard/error'?: { code: string; upstream?: string } };
}

/**
 * Issue 44 item 3 acceptance, on the real stack (built registry, auth and gateway; Redis;
 * Postgres; an oidc-provider as the connector's own AS implementing RFC 8693 through
 * registerGrantType; an SDK-built upstream that records bearers): a connector with a
 * `token_exchange` grant gets each user's own upstream token from the user's identity (the
 * tenant AS's assertion, never the client's token), a refused exchange answers a coded tool
 * error naming the connector and the reason, and a linked account is the fallback.
 */
describe('connector tokens from enterprise identity (RFC 8693 token exchange) end to end', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let auth: Proc;
  let gateway: Proc;
  let authUrl: string;
  let upstream: WhoamiUpstream;
  let connectorAs: TestIdp;
  let key: string;
  const connectorSecret = `crm-secret-${randomBytes(6).toString('hex')}`;
  const policy: TokenExchangePolicy = {
    trustedIssuer: '',
    jwksUrl: '',
    seen: [],
    account: (subject) => {
      const user = subject.split('|').pop() ?? '';
      return user === REFUSED_USER ? REFUSAL : { accountId: `${user}-ent` };
    },
  };
  const users: Record<string, { token: string; browser: TestBrowser }> = {};

  const callWhoami = async (clientToken: string): Promise<ToolAnswer> => {
    const res = await fetch(`${gateway.url}/t/acme/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', authorization: `Bearer ${clientToken}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { result: ToolAnswer }).result;
  };
  /** The upstream bearer a successful call carried (echoed by the upstream). */
  const seenBearer = (r: ToolAnswer): string => {
    const text = r.content[0]?.text ?? '';
    expect([text, r.isError]).toEqual([expect.stringMatching(/^authorization=Bearer \S+$/), undefined]);
    return text.slice('authorization=Bearer '.length);
  };
  /** Links through `url` in `browser` as `asUser` at the connector's AS (a user's link is confirmed in their signed-in browser first). */
  const link = async (url: string, asUser: string, browser = new TestBrowser()) => {
    connectorAs.user = asUser;
    let { res, url: at } = await browser.follow(url);
    let html = await res.text();
    if (html.includes('/account/link/')) {
      const form = parseForm(html, /\/account\/link\//);
      const posted = await browser.postForm(new URL(form.action, at).href, form.fields);
      ({ res, url: at } = await browser.follow(new URL(posted.headers.get('location') ?? '', at).href));
      html = await res.text();
    }
    expect(res.status).toBe(200);
    expect(html).toContain('Connected');
  };

  beforeAll(async () => {
    db = await createDatabase();
    upstream = await startWhoamiUpstream();
    const authPort = await freePort();
    authUrl = `http://127.0.0.1:${authPort}`;
    policy.trustedIssuer = `${authUrl}/t/acme`;
    policy.jwksUrl = `${authUrl}/t/acme/jwks`;
    connectorAs = await startTestIdp(
      [{ client_id: 'switchboard-crm', client_secret: connectorSecret, redirect_uris: [`${authUrl}/t/acme/connectors/callback`], grant_types: ['authorization_code', 'refresh_token', TOKEN_EXCHANGE_GRANT] }],
      { configure: (provider) => registerTokenExchange(provider, policy) },
    );
    registry = await startRegistry(env, db.url, { REGISTRY_ALLOW_HTTP_HOSTS: 'localhost,127.0.0.1', AUTH_INTERNAL_URL: authUrl });
    const gatewayPort = await freePort();
    const publicUrl = `http://127.0.0.1:${gatewayPort}`;
    auth = await spawnApp(
      'auth',
      'apps/auth/dist/main.js',
      {
        AUTH_PORT: String(authPort),
        AUTH_PUBLIC_URL: authUrl,
        DATABASE_URL: db.url,
        AUTH_DB_SCHEMA: `auth_x_${randomBytes(5).toString('hex')}`,
        SECRETS_KEY: randomBytes(32).toString('base64'),
        CATALOG_SECRETS_KEY: env.secretsKey,
        GATEWAY_PUBLIC_URL: publicUrl,
        INTERNAL_TOKEN: env.internalToken,
        REDIS_URL,
        REDIS_NAMESPACE: env.namespace,
        REGISTRY_INTERNAL_URL: registry.url,
        TENANTS_FILE: '/nonexistent/tenants.yaml',
        LOG_LEVEL: 'warn',
      },
      /auth listening on (http:\/\/\S+)/,
    );
    gateway = await startGateway(env, registry.url, {
      GATEWAY_PORT: String(gatewayPort),
      GATEWAY_PUBLIC_URL: publicUrl,
      AUTH_PUBLIC_URL: authUrl,
      AUTH_INTERNAL_URL: authUrl,
      AUTH_INTERNAL_TOKEN: env.internalToken,
      UPSTREAM_TIMEOUT_MS: '5000',
      UPSTREAM_ALLOW_HTTP_HOSTS: 'localhost,127.0.0.1',
    });
    key = await createTenant(registry.url, env.operatorKey, 'acme');
  }, 120_000);

  afterAll(async () => {
    await Promise.all([gateway?.stop(), auth?.stop(), registry?.stop()]);
    await Promise.all([upstream?.close(), connectorAs?.close()]);
    await cleanRedis(env);
    await db?.drop();
  });

  it('refuses a malformed grant naming the field, stores a valid one and shows it without secrets', async () => {
    expect((await api(registry.url, key, 'POST', '/v1/servers', { id: 'crm', name: 'CRM', url: upstream.url, auth: { mode: 'oauth_user' } })).status).toBe(201);
    const base = { issuer: connectorAs.issuer, clientId: 'switchboard-crm', clientSecret: connectorSecret, scopes: ['openid'] };
    const cases: Array<[unknown, string]> = [
      [{ kind: 'token_exchange', resource: 'not a url' }, 'body.grant.resource'],
      [{ kind: 'cross_app', idpClientId: 'x' }, 'body.grant.idpIssuer'],
      [{ kind: 'saml' }, 'body.grant.kind'],
    ];
    for (const [grant, field] of cases) {
      const bad = await api(registry.url, key, 'PUT', '/v1/servers/crm/connector', { ...base, grant });
      expect([bad.status, bad.body.error?.code, bad.body.error?.field]).toEqual([400, 'VALIDATION', field]);
    }
    // The connector's AS does not offer JWT-bearer: cross-app access could never work there.
    const crossApp = await api(registry.url, key, 'PUT', '/v1/servers/crm/connector', { ...base, grant: { kind: 'cross_app', idpIssuer: connectorAs.issuer, idpClientId: 'x' } });
    expect([crossApp.status, crossApp.body.error?.field]).toEqual([400, 'body.grant.kind']);
    expect(String(crossApp.body.error?.message)).toContain('jwt-bearer');

    const set = await api(registry.url, key, 'PUT', '/v1/servers/crm/connector', { ...base, grant: { kind: 'token_exchange', resource: upstream.url } });
    expect(set.status).toBe(200);
    expect(set.body.connectors.crm).toMatchObject({ issuer: connectorAs.issuer, clientSecretSet: true, grant: { kind: 'token_exchange', resource: upstream.url } });
    // Left out keeps the grant (like the secret).
    const again = await api(registry.url, key, 'PUT', '/v1/servers/crm/connector', base);
    expect(again.body.connectors.crm.grant).toEqual({ kind: 'token_exchange', resource: upstream.url });
  }, 60_000);

  it("discovers the server with the admin's linked account and publishes it on a protected tenant", async () => {
    const started = await api(registry.url, key, 'POST', '/v1/servers/crm/connector/link');
    expect(started.status).toBe(200);
    await link(String(started.body.linkUrl), 'admin-up');
    expect((await api(registry.url, key, 'POST', '/v1/servers/crm/discover')).status).toBe(202);
    await until('discovered', async () => (await api(registry.url, key, 'GET', '/v1/servers/crm')).body.health === 'ok', 30_000);
    expect((await api(registry.url, key, 'POST', '/v1/publications', { serverId: 'crm', items: [{ kind: 'tool', name: 'whoami' }] })).status).toBe(200);
    expect((await api(registry.url, key, 'PATCH', '/v1/tenant/auth', { protected: true })).status).toBe(200);
    await until('protected and published', async () => {
      const r = await fetch(`${gateway.url}/t/acme/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
      return r.status === 401 && (await fetch(`${authUrl}/t/acme/.well-known/oauth-authorization-server`)).status === 200;
    }, 15_000);
  }, 90_000);

  it("calls with each user's own token from token exchange, never the client's, with no link", async () => {
    for (const user of ['carol', 'dave', REFUSED_USER]) {
      const t = await obtainTokens(`${authUrl}/t/acme`, { user, redirectUri: CLAUDE_CALLBACK });
      expect(t.status).toBe(200);
      users[user] = { token: String(t.body.access_token), browser: t.browser };
    }
    const published = await until('published on the gateway', async () => {
      const r = await callWhoami(users.carol!.token);
      return r.isError ? undefined : r;
    }, 15_000);
    expect(connectorAs.accessTokens.get(seenBearer(published))).toBe('carol-ent');
    for (const user of ['carol', 'dave']) {
      for (let i = 0; i < 3; i++) expect(connectorAs.accessTokens.get(seenBearer(await callWhoami(users[user]!.token)))).toBe(`${user}-ent`);
    }
    // One exchange per user (then the cache), each with an assertion for that user from the tenant's AS.
    const subjects = policy.seen.map((t) => decodeJwt(t).payload);
    expect(subjects.map((p) => String(p.sub).split('|').pop())).toEqual(['carol', 'dave']);
    for (const p of subjects) expect(p).toMatchObject({ iss: `${authUrl}/t/acme`, aud: connectorAs.issuer, tid: 'acme' });
    // The clients' own tokens went neither to the upstream nor to the connector's AS.
    const outbound = [...upstream.bearers, ...policy.seen].join('\n');
    for (const { token } of Object.values(users)) expect(outbound).not.toContain(token);
  }, 90_000);

  it('answers a refused exchange with a coded tool error naming the connector and the reason; a linked account is the fallback', async () => {
    const before = upstream.bearers.length;
    const refused = await callWhoami(users[REFUSED_USER]!.token);
    expect(refused.isError).toBe(true);
    expect(refused._meta?.['switchboard/error']).toMatchObject({ code: 'GW_CONNECTOR_EXCHANGE_REFUSED', upstream: 'crm' });
    const text = refused.content[0]?.text ?? '';
    expect(text.startsWith('GW_CONNECTOR_EXCHANGE_REFUSED')).toBe(true);
    expect(text).toContain('connector crm');
    expect(text).toContain(`invalid_grant: ${REFUSAL}`);
    expect(upstream.bearers.length).toBe(before);

    const linkUrl = /(http:\/\/\S+\/connectors\/crm\/link\?ticket=\S+)/.exec(text)?.[1];
    expect(linkUrl).toBeDefined();
    await link(String(linkUrl), `${REFUSED_USER}-up`, users[REFUSED_USER]!.browser);
    expect(connectorAs.accessTokens.get(seenBearer(await callWhoami(users[REFUSED_USER]!.token)))).toBe(`${REFUSED_USER}-up`);
  }, 60_000);
});

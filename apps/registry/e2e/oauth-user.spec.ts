import { randomBytes } from 'node:crypto';
import { freePort, obtainTokens, parseForm, TestBrowser } from '@switchboard/testing';
import { startTestIdp, type TestIdp } from '../../auth/e2e/support/test-idp';
import {
  REDIS_URL,
  api,
  cleanRedis,
  createDatabase,
  createTenant,
  spawnApp,
  startGateway,
  startRegistry,
  testEnv,
  until,
  type Proc,
} from './support/harness';
import { startWhoamiUpstream } from './support/whoami-upstream';

/** Upstream access tokens live this long at the connector's AS (the vault refreshes with no skew in this test). */
const UPSTREAM_TOKEN_TTL_S = 8;
const CLAUDE_CALLBACK = 'https://claude.ai/api/mcp/auth_callback';

interface ToolAnswer {
  isError?: boolean;
  content: Array<{ text: string }>;
  _meta?: { 'switchboard/error'?: { code: string; linkUrl?: string; upstream?: string } };
}

/**
 * Issue 11 item 4 acceptance, on the real stack (registry + two auth replicas + two gateways + Redis +
 * Postgres; a second oidc-provider as the upstream's own AS; an SDK-built upstream that records
 * bearers): an `oauth_user` server is discovered with the tenant admin's linked account and
 * published; two users call it each with their own upstream token (never the client's, never
 * the admin's); an expired token is refreshed exactly once across both gateways; unlinking
 * makes the next call answer GW_CONNECTOR_NOT_LINKED with the link URL.
 */
describe('oauth_user servers end to end (admin-linked discovery, per-user tokens, single-flight refresh)', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let auth: Proc;
  let auth2: Proc;
  let authUrl: string;
  const gateways: Proc[] = [];
  let publicUrl: string;
  let upstream: Awaited<ReturnType<typeof startWhoamiUpstream>>;
  let connectorAs: TestIdp;
  let key: string;
  const connectorSecret = `crm-secret-${randomBytes(6).toString('hex')}`;
  const authSchema = `auth_t_${randomBytes(5).toString('hex')}`;
  const users: Record<string, string> = {};
  /** Each user's browser, signed in at the tenant's authorization server (their links are honoured there only). */
  const browsers: Record<string, TestBrowser> = {};

  const mcpUrl = (g: Proc) => `${g.url}/t/acme/mcp`;
  const callWhoami = async (g: Proc, clientToken: string): Promise<ToolAnswer> => {
    const res = await fetch(mcpUrl(g), {
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
    return ((await res.json()) as { result: ToolAnswer }).result;
  };
  /** The upstream bearer a successful call carried (echoed by the upstream). */
  const seenBearer = (r: ToolAnswer): string => {
    const text = r.content[0]?.text ?? '';
    // Text first: a failure shows the gateway's message.
    expect([text, r.isError]).toEqual([expect.stringMatching(/^authorization=Bearer \S+$/), undefined]);
    return text.slice('authorization=Bearer '.length);
  };
  /** Links through `url` in `browser`: a user's link asks that user's signed-in browser to confirm first; the admin's link starts at once. */
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
  const accounts = async (clientToken: string) => {
    const res = await fetch(`${authUrl}/t/acme/connectors/accounts`, { headers: { authorization: `Bearer ${clientToken}` } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { accounts: Array<{ connector: string; linked: boolean; expiresAt?: number; linkUrl: string }> })
      .accounts;
  };

  beforeAll(async () => {
    db = await createDatabase();
    upstream = await startWhoamiUpstream();
    const authPort = await freePort();
    authUrl = `http://127.0.0.1:${authPort}`;
    connectorAs = await startTestIdp(
      [{ client_id: 'switchboard-crm', client_secret: connectorSecret, redirect_uris: [`${authUrl}/t/acme/connectors/callback`] }],
      {
        accessTokenTtl: UPSTREAM_TOKEN_TTL_S,
        refreshTokens: true,
      },
    );
    registry = await startRegistry(env, db.url, { REGISTRY_ALLOW_HTTP_HOSTS: 'localhost,127.0.0.1', AUTH_INTERNAL_URL: authUrl });
    const gatewayPorts = [await freePort(), await freePort()];
    publicUrl = `http://127.0.0.1:${gatewayPorts[0]}`;
    // Two auth replicas on one schema (one issuer URL): gateway 0 exchanges at the first, gateway 1 at the second.
    const authSecretsKey = randomBytes(32).toString('base64');
    const authEnv = (port: number) => ({
      AUTH_PORT: String(port),
      AUTH_PUBLIC_URL: authUrl,
      DATABASE_URL: db.url,
      AUTH_DB_SCHEMA: authSchema,
      SECRETS_KEY: authSecretsKey,
      CATALOG_SECRETS_KEY: env.secretsKey,
      GATEWAY_PUBLIC_URL: publicUrl,
      INTERNAL_TOKEN: env.internalToken,
      REDIS_URL,
      REDIS_NAMESPACE: env.namespace,
      REGISTRY_INTERNAL_URL: registry.url,
      TENANTS_FILE: '/nonexistent/tenants.yaml',
      VAULT_REFRESH_SKEW_S: '0',
      LOG_LEVEL: 'warn',
    });
    auth = await spawnApp('auth', 'apps/auth/dist/main.js', authEnv(authPort), /auth listening on (http:\/\/\S+)/);
    const auth2Port = await freePort();
    auth2 = await spawnApp('auth', 'apps/auth/dist/main.js', authEnv(auth2Port), /auth listening on (http:\/\/\S+)/);
    const internalUrls = [authUrl, `http://127.0.0.1:${auth2Port}`];
    for (const [i, port] of gatewayPorts.entries()) {
      gateways.push(
        await startGateway(env, registry.url, {
          GATEWAY_PORT: String(port),
          GATEWAY_PUBLIC_URL: publicUrl,
          AUTH_PUBLIC_URL: authUrl,
          AUTH_INTERNAL_URL: internalUrls[i]!,
          AUTH_INTERNAL_TOKEN: env.internalToken,
          UPSTREAM_TIMEOUT_MS: '5000',
          UPSTREAM_ALLOW_HTTP_HOSTS: 'localhost,127.0.0.1',
        }),
      );
    }
    key = await createTenant(registry.url, env.operatorKey, 'acme');
  }, 120_000);

  afterAll(async () => {
    await Promise.all([...gateways.map((g) => g.stop()), auth?.stop(), auth2?.stop(), registry?.stop()]);
    await Promise.all([upstream?.close(), connectorAs?.close()]);
    await cleanRedis(env);
    await db?.drop();
  });

  it('cannot discover an oauth_user server before a connector is set and an account linked, and says what to do', async () => {
    const created = await api(registry.url, key, 'POST', '/v1/servers', {
      id: 'crm',
      name: 'CRM',
      url: upstream.url,
      auth: { mode: 'oauth_user' },
    });
    expect(created.status).toBe(201);
    const failed = await until(
      'discovery refused',
      async () => {
        const s = await api(registry.url, key, 'GET', '/v1/servers/crm');
        return s.body.health === 'error' ? s.body : undefined;
      },
      30_000,
    );
    expect(String(failed.lastError)).toContain('CONNECTOR_NOT_CONFIGURED');
    expect(String(failed.lastError)).toContain('PUT /v1/servers/crm/connector');

    const noConnector = await api(registry.url, key, 'POST', '/v1/servers/crm/connector/link');
    expect([noConnector.status, noConnector.body.error?.code, noConnector.body.error?.field]).toEqual([
      409,
      'CONNECTOR_NOT_CONFIGURED',
      'params.id',
    ]);
    expect((await api(registry.url, key, 'POST', '/v1/servers/nope/connector/link')).status).toBe(404);

    const set = await api(registry.url, key, 'PUT', '/v1/servers/crm/connector', {
      issuer: connectorAs.issuer,
      clientId: 'switchboard-crm',
      clientSecret: connectorSecret,
      scopes: ['openid'],
    });
    expect(set.status).toBe(200);
    expect((await api(registry.url, key, 'POST', '/v1/servers/crm/discover')).status).toBe(202);
    const unlinked = await until(
      'discovery refused for want of a link',
      async () => {
        const s = await api(registry.url, key, 'GET', '/v1/servers/crm');
        return s.body.health === 'error' && String(s.body.lastError).includes('CONNECTOR_NOT_LINKED') ? s.body : undefined;
      },
      30_000,
    );
    expect(String(unlinked.lastError)).toContain('POST /v1/servers/crm/connector/link');
    expect((await api(registry.url, key, 'GET', '/v1/servers/crm/connector/account')).body).toMatchObject({
      serverId: 'crm',
      linked: false,
    });
    expect(upstream.bearers).toEqual([]);
  }, 90_000);

  it("discovers the server with the admin's linked account and publishes it", async () => {
    const started = await api(registry.url, key, 'POST', '/v1/servers/crm/connector/link');
    expect(started.status).toBe(200);
    expect(started.body.linkUrl).toMatch(new RegExp(`^${authUrl}/t/acme/connectors/crm/link\\?admin=`));
    await link(String(started.body.linkUrl), 'admin-up');
    // The one-time admin link is spent.
    expect((await new TestBrowser().follow(String(started.body.linkUrl))).res.status).toBe(400);
    expect((await api(registry.url, key, 'GET', '/v1/servers/crm/connector/account')).body).toMatchObject({
      serverId: 'crm',
      linked: true,
      refreshable: true,
    });

    expect((await api(registry.url, key, 'POST', '/v1/servers/crm/discover')).status).toBe(202);
    await until('discovered', async () => (await api(registry.url, key, 'GET', '/v1/servers/crm')).body.health === 'ok', 30_000);
    const discoveryBearers = upstream.bearers.filter((b): b is string => b !== undefined);
    expect(discoveryBearers.length).toBeGreaterThan(0);
    for (const b of discoveryBearers) expect(connectorAs.accessTokens.get(b.replace(/^Bearer /, ''))).toBe('admin-up');

    const published = await api(registry.url, key, 'POST', '/v1/publications', {
      serverId: 'crm',
      items: [{ kind: 'tool', name: 'whoami' }],
    });
    expect(published.status).toBe(200);
    // A published per-user server keeps its connector (without it calls would carry no credential).
    expect((await api(registry.url, key, 'DELETE', '/v1/servers/crm/connector')).status).toBe(409);
    // Published while the tenant is still open: a per-user server fails closed (no user to act for), the upstream sees nothing.
    const before = upstream.bearers.length;
    for (const g of gateways) {
      const open = await until(
        'published on the gateway',
        async () => {
          const r = await fetch(mcpUrl(g), {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              'mcp-protocol-version': '2025-11-25',
            },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
          });
          const body = (await r.json()) as { result?: ToolAnswer };
          return body.result?.isError ? body.result : undefined;
        },
        15_000,
      );
      expect(open._meta?.['switchboard/error']?.code).toBe('GW_CONNECTOR_SIGN_IN_REQUIRED');
    }
    expect(upstream.bearers.length).toBe(before);
    const prot = await api(registry.url, key, 'PATCH', '/v1/tenant/auth', { protected: true });
    expect(prot.status).toBe(200);
    await until(
      'protected on both gateways',
      async () => {
        for (const g of gateways) {
          const r = await fetch(mcpUrl(g), {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
          });
          if (r.status !== 401) return false;
        }
        return (await fetch(`${authUrl}/t/acme/.well-known/oauth-authorization-server`)).status === 200;
      },
      15_000,
    );
  }, 90_000);

  it("calls with each user's own upstream token: never the client's, never the admin's", async () => {
    for (const user of ['carol', 'dave']) {
      const t = await obtainTokens(`${authUrl}/t/acme`, { user, redirectUri: CLAUDE_CALLBACK });
      expect(t.status).toBe(200);
      users[user] = String(t.body.access_token);
      browsers[user] = t.browser;
    }
    for (const [user, token] of Object.entries(users)) {
      // Not linked yet: a coded tool error with the link URL, on either gateway, and nothing reaches the upstream.
      const before = upstream.bearers.length;
      const first = await callWhoami(gateways[0]!, token);
      expect(first.isError).toBe(true);
      expect(first._meta?.['switchboard/error']?.code).toBe('GW_CONNECTOR_NOT_LINKED');
      const linkUrl = String(first._meta?.['switchboard/error']?.linkUrl);
      expect(linkUrl).toMatch(new RegExp(`^${authUrl}/t/acme/connectors/crm/link\\?ticket=`));
      expect(first.content[0]?.text).toContain(linkUrl);
      expect(first.content[0]?.text.startsWith('GW_CONNECTOR_NOT_LINKED')).toBe(true);
      expect(upstream.bearers.length).toBe(before);
      await link(linkUrl, `${user}-up`, browsers[user]);
    }
    for (const [user, token] of Object.entries(users)) {
      for (const g of gateways) {
        const bearer = seenBearer(await callWhoami(g, token));
        expect(connectorAs.accessTokens.get(bearer)).toBe(`${user}-up`);
      }
    }
    const all = upstream.bearers.join('\n');
    for (const token of Object.values(users)) expect(all).not.toContain(token);
    const listed = await accounts(users.carol!);
    expect(listed).toEqual([expect.objectContaining({ connector: 'crm', linked: true })]);
  }, 120_000);

  it('refreshes an expired token exactly once across both gateways and both auth replicas (concurrent calls, no relink)', async () => {
    const token = users.carol!;
    const [account] = await accounts(token);
    const expiresAt = account?.expiresAt ?? 0;
    expect(expiresAt).toBeGreaterThan(0);
    // The vault hands out tokens until they expire (skew 0 here): wait until carol's has.
    await until(
      'carol\u2019s upstream token expired',
      async () => Date.now() / 1000 >= expiresAt + 1,
      (UPSTREAM_TOKEN_TTL_S + 5) * 1000,
      200,
    );
    const refreshesBefore = connectorAs.grants.filter((g) => g.grantType === 'refresh_token' && g.accountId === 'carol-up').length;
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => callWhoami(gateways[i % 2]!, token)));
    const bearers = results.map(seenBearer);
    const refreshes =
      connectorAs.grants.filter((g) => g.grantType === 'refresh_token' && g.accountId === 'carol-up').length - refreshesBefore;
    expect(refreshes).toBe(1);
    expect(new Set(bearers).size).toBe(1);
    expect(connectorAs.accessTokens.get(bearers[0]!)).toBe('carol-up');
    const [after] = await accounts(token);
    expect(after).toMatchObject({ linked: true });
    expect(after?.expiresAt ?? 0).toBeGreaterThan(expiresAt);
  }, 90_000);

  it('unlink ⇒ the next call on every gateway returns the link URL; the other user is untouched', async () => {
    const carol = users.carol!;
    const res = await fetch(`${authUrl}/t/acme/connectors/crm/account`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${carol}` },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ connector: 'crm', unlinked: true });
    for (const g of gateways) {
      const r = await callWhoami(g, carol);
      expect(r.isError).toBe(true);
      expect(r._meta?.['switchboard/error']).toMatchObject({ code: 'GW_CONNECTOR_NOT_LINKED', upstream: 'crm' });
      expect(r.content[0]?.text).toContain(`${authUrl}/t/acme/connectors/crm/link?ticket=`);
    }
    expect(await accounts(carol)).toEqual([expect.objectContaining({ connector: 'crm', linked: false })]);
    // A second unlink has nothing to remove; no token ⇒ 401.
    expect(
      (await fetch(`${authUrl}/t/acme/connectors/crm/account`, { method: 'DELETE', headers: { authorization: `Bearer ${carol}` } })).status,
    ).toBe(404);
    expect((await fetch(`${authUrl}/t/acme/connectors/crm/account`, { method: 'DELETE' })).status).toBe(401);
    expect(connectorAs.accessTokens.get(seenBearer(await callWhoami(gateways[1]!, users.dave!)))).toBe('dave-up');
  }, 60_000);
});

import { randomBytes } from 'node:crypto';
import { freePort, parseForm, TestBrowser } from '@switchboard/testing';
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
} from './harness';
import { startWhoamiUpstream, type WhoamiUpstream } from './whoami-upstream';

/** A `tools/call` result as the tests read it. */
export interface ToolAnswer {
  isError?: boolean;
  content: Array<{ text: string }>;
  _meta?: { 'switchboard/error'?: { code: string; upstream?: string } };
}

/** The connector's AS as the link flow drives it (test-idp's `TestIdp`): the user its next sign-in approves. */
export interface LinkingAs {
  user: string;
}

/** The built registry, one auth service and one gateway, a whoami upstream, and tenant `acme`. */
export interface ConnectorStack {
  registry: Proc;
  auth: Proc;
  gateway: Proc;
  authUrl: string;
  /** `acme`'s tenant API key. */
  key: string;
  upstream: WhoamiUpstream;
  /** `tools/call whoami` on `acme` with the client's token. */
  callWhoami(clientToken: string): Promise<ToolAnswer>;
  /** Links through `url` in `browser` as `asUser` at `as` (a user's link is confirmed in their signed-in browser first). */
  link(as: LinkingAs, url: string, asUser: string, browser?: TestBrowser): Promise<void>;
  /** Admin-links `crm`, discovers it, publishes `whoami` and turns protection on. */
  publishCrm(as: LinkingAs): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts the stack of the connector specs. `authUrl` is known before anything starts, so the
 * connector's AS (which must trust the tenant issuer `${authUrl}/t/acme`) can be started by `before`.
 */
export async function startConnectorStack(before: (authUrl: string) => Promise<void>): Promise<ConnectorStack> {
  const env = testEnv();
  const db = await createDatabase();
  const upstream = await startWhoamiUpstream();
  const authPort = await freePort();
  const authUrl = `http://127.0.0.1:${authPort}`;
  await before(authUrl);
  const registry = await startRegistry(env, db.url, { REGISTRY_ALLOW_HTTP_HOSTS: 'localhost,127.0.0.1', AUTH_INTERNAL_URL: authUrl });
  const gatewayPort = await freePort();
  const publicUrl = `http://127.0.0.1:${gatewayPort}`;
  const auth = await spawnApp(
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
  const gateway = await startGateway(env, registry.url, {
    GATEWAY_PORT: String(gatewayPort),
    GATEWAY_PUBLIC_URL: publicUrl,
    AUTH_PUBLIC_URL: authUrl,
    AUTH_INTERNAL_URL: authUrl,
    AUTH_INTERNAL_TOKEN: env.internalToken,
    UPSTREAM_TIMEOUT_MS: '5000',
    UPSTREAM_ALLOW_HTTP_HOSTS: 'localhost,127.0.0.1',
  });
  const key = await createTenant(registry.url, env.operatorKey, 'acme');
  const stack: ConnectorStack = {
    registry,
    auth,
    gateway,
    authUrl,
    key,
    upstream,
    callWhoami: (token) => callWhoami(gateway, token),
    link,
    publishCrm: (as) => publishCrm(stack, as),
    close: async () => {
      await Promise.all([gateway.stop(), auth.stop(), registry.stop()]);
      await upstream.close();
      await cleanRedis(env);
      await db.drop();
    },
  };
  return stack;
}

async function callWhoami(gateway: Proc, clientToken: string): Promise<ToolAnswer> {
  const res = await fetch(`${gateway.url}/t/acme/mcp`, {
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
}

async function link(as: LinkingAs, url: string, asUser: string, browser = new TestBrowser()): Promise<void> {
  as.user = asUser;
  let { res, url: at } = await browser.follow(url);
  let html = await res.text();
  if (html.includes('/account/link/')) {
    const form = parseForm(html, /\/account\/link\//);
    const posted = await browser.postForm(new URL(form.action, at).href, form.fields);
    ({ res, url: at } = await browser.follow(new URL(posted.headers.get('location') ?? '', at).href));
    html = await res.text();
  }
  expect([res.status, html]).toEqual([200, expect.stringContaining('Connected')]);
}

async function publishCrm(s: ConnectorStack, as: LinkingAs): Promise<void> {
  const started = await api(s.registry.url, s.key, 'POST', '/v1/servers/crm/connector/link');
  expect(started.status).toBe(200);
  await link(as, String(started.body.linkUrl), 'admin-up');
  expect((await api(s.registry.url, s.key, 'POST', '/v1/servers/crm/discover')).status).toBe(202);
  await until('discovered', async () => (await api(s.registry.url, s.key, 'GET', '/v1/servers/crm')).body.health === 'ok', 30_000);
  expect(
    (await api(s.registry.url, s.key, 'POST', '/v1/publications', { serverId: 'crm', items: [{ kind: 'tool', name: 'whoami' }] })).status,
  ).toBe(200);
  expect((await api(s.registry.url, s.key, 'PATCH', '/v1/tenant/auth', { protected: true })).status).toBe(200);
  await until(
    'protected and published',
    async () => {
      const r = await fetch(`${s.gateway.url}/t/acme/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      return r.status === 401 && (await fetch(`${s.authUrl}/t/acme/.well-known/oauth-authorization-server`)).status === 200;
    },
    15_000,
  );
}

// Admin API edges against a real registry process (Postgres, Redis, BullMQ): tenant isolation on
// every route, the SSRF guard on every tenant URL, and bad input answered with 4xx naming the field.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import {
  api,
  cleanRedis,
  createDatabase,
  createTenant,
  READ_ONLY_HINTS,
  registerAndDiscover,
  startRegistry,
  startUpstream,
  testEnv,
  type Proc,
  type TestUpstream,
} from './support/harness';

jest.setTimeout(90_000);

describe('registry admin API', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let upstreamA: TestUpstream;
  let upstreamB: TestUpstream;
  let keyA: string;
  let keyB: string;
  let redirector: Server;
  let redirectUrl: string;

  beforeAll(async () => {
    db = await createDatabase();
    upstreamA = await startUpstream('a', [{ name: 'alpha', annotations: READ_ONLY_HINTS }]);
    upstreamB = await startUpstream('b', [{ name: 'beta', annotations: READ_ONLY_HINTS }]);
    redirector = createServer((_req, res) => res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end());
    await new Promise<void>((r) => redirector.listen(0, '127.0.0.1', r));
    redirectUrl = `http://localhost:${(redirector.address() as AddressInfo).port}/mcp`;
    registry = await startRegistry(env, db.url);
    keyA = await createTenant(registry.url, env.operatorKey, 'tenant-a');
    keyB = await createTenant(registry.url, env.operatorKey, 'tenant-b');
    await registerAndDiscover(registry.url, keyA, {
      id: 'srv-a',
      name: 'A',
      url: upstreamA.url,
      auth: { mode: 'bearer', token: 'secret-a' },
    });
    await registerAndDiscover(registry.url, keyB, {
      id: 'srv-b',
      name: 'B',
      url: upstreamB.url,
      auth: { mode: 'bearer', token: 'secret-b' },
    });
    expect((await api(registry.url, keyB, 'POST', '/v1/publications', { serverId: 'srv-b', items: [{ name: 'beta' }] })).status).toBe(200);
  });

  afterAll(async () => {
    await registry?.stop();
    await upstreamA?.close();
    await upstreamB?.close();
    await new Promise<void>((r) => redirector.close(() => r()));
    await db?.drop();
    await cleanRedis(env);
  });

  describe('tenant isolation', () => {
    it("lists only the caller's own servers, publications, keys, snapshots and audit entries", async () => {
      const body = JSON.stringify([
        (await api(registry.url, keyA, 'GET', '/v1/servers')).body,
        (await api(registry.url, keyA, 'GET', '/v1/publications')).body,
        (await api(registry.url, keyA, 'GET', '/v1/changes')).body,
        (await api(registry.url, keyA, 'GET', '/v1/snapshots')).body,
        (await api(registry.url, keyA, 'GET', '/v1/audit')).body,
        (await api(registry.url, keyA, 'GET', '/v1/preview')).body,
        (await api(registry.url, keyA, 'GET', '/v1/tenant')).body,
        (await api(registry.url, keyA, 'GET', '/v1/keys')).body,
      ]);
      expect(body).not.toMatch(/srv-b|tenant-b|beta/);
      expect(body).not.toMatch(/secret-a|secret-b/);
    });

    it.each([
      ['GET', '/v1/servers/srv-b', undefined],
      ['PATCH', '/v1/servers/srv-b', { name: 'hijacked' }],
      ['DELETE', '/v1/servers/srv-b', undefined],
      ['POST', '/v1/servers/srv-b/discover', undefined],
      ['GET', '/v1/servers/srv-b/items', undefined],
      ['POST', '/v1/publications', { serverId: 'srv-b', items: [{ name: 'beta' }] }],
      ['POST', '/v1/publications/unpublish', { serverId: 'srv-b', items: [{ name: 'beta' }] }],
      ['POST', '/v1/changes/approve', { serverId: 'srv-b', name: 'beta' }],
    ])("tenant A's key cannot reach tenant B's %s %s (404)", async (method, url, body) => {
      const res = await api(registry.url, keyA, method, url, body);
      expect(res.status).toBe(404);
    });

    it("cannot revoke another tenant's key, and B's things are unchanged", async () => {
      const keysB = (await api(registry.url, keyB, 'GET', '/v1/keys')).body.keys as Array<{ id: string }>;
      expect((await api(registry.url, keyA, 'DELETE', `/v1/keys/${keysB[0].id}`)).status).toBe(404);
      const server = await api(registry.url, keyB, 'GET', '/v1/servers/srv-b');
      expect(server.body.name).toBe('B');
      expect((await api(registry.url, keyB, 'GET', '/v1/publications')).body.publications).toEqual([
        expect.objectContaining({ exposedName: 'beta' }),
      ]);
    });

    it('a tenant key is not an operator key, and the operator routes need the operator key', async () => {
      expect((await api(registry.url, keyA, 'POST', '/v1/tenants', { id: 'evil', name: 'x' })).status).toBe(403);
      expect((await api(registry.url, keyA, 'GET', '/v1/tenants')).status).toBe(403);
      expect((await api(registry.url, keyA, 'GET', '/internal/catalogs')).status).toBe(401);
      expect((await api(registry.url, undefined, 'GET', '/v1/servers')).status).toBe(401);
      expect((await api(registry.url, 'sbk_unknown', 'GET', '/v1/servers')).status).toBe(401);
    });
  });

  describe('SSRF guard', () => {
    const refused = async (url: string, pattern: RegExp) => {
      const res = await api(registry.url, keyA, 'POST', '/v1/servers', { id: 'ssrf', name: 'x', url });
      expect(res.status).toBe(400);
      expect(res.body.error?.code).toBe('URL_REFUSED');
      expect(res.body.error?.field).toBe('body.url');
      expect(res.body.error?.message).toMatch(pattern);
    };

    it.each([
      ['http://127.0.0.1:8080/mcp', /plain http is not allowed for host 127\.0\.0\.1/],
      ['https://127.0.0.1/mcp', /blocked address range: loopback/],
      ['http://169.254.169.254/latest/meta-data/', /plain http is not allowed/],
      ['https://169.254.169.254/latest/meta-data/', /link-local \/ cloud metadata/],
      ['http://[::1]:8080/mcp', /plain http is not allowed/],
      ['https://[::1]/mcp', /loopback/],
      ['https://10.1.2.3/mcp', /private \(RFC 1918\)/],
      ['https://[::ffff:10.0.0.1]/mcp', /private/],
      ['https://100.64.0.1/mcp', /carrier-grade NAT/],
    ])('refuses %s', async (url, pattern) => {
      await refused(url, pattern);
    });

    it('refuses a host name that resolves to a private address', async () => {
      const name = hostname();
      const { address } = await lookup(name);
      expect(address).toMatch(/^(127\.|10\.|172\.|192\.168\.)/);
      await refused(
        `https://${name}/mcp`,
        new RegExp(`${name} \\(resolves to ${address.replace(/\./g, '\\.')}\\) is in a blocked address range`),
      );
    });

    it('refuses a redirect to the metadata address during discovery, with the reason on the server', async () => {
      const server = await registerAndDiscover(registry.url, keyA, { id: 'redirector', name: 'R', url: redirectUrl });
      expect(server.health).toBe('error');
      expect(server.lastError).toMatch(/^URL refused: redirect to http:\/\/169\.254\.169\.254\/latest\/meta-data\/ refused: /);
    });

    it('checks the OAuth token URL too', async () => {
      const res = await api(registry.url, keyA, 'POST', '/v1/servers', {
        id: 'oauth',
        name: 'x',
        url: upstreamA.url,
        auth: { mode: 'oauth_client_credentials', tokenUrl: 'https://10.0.0.1/token', clientId: 'c', clientSecret: 's' },
      });
      expect(res.status).toBe(400);
      expect(res.body.error?.field).toBe('body.auth.tokenUrl');
    });
  });

  describe('bad input', () => {
    it.each([
      ['missing fields', 'POST', '/v1/servers', { name: 'x' }, 400, 'body.id'],
      [
        'a wrong type',
        'POST',
        '/v1/servers',
        { id: 'ok', name: 'x', url: upstreamA?.url ?? 'http://localhost/', timeoutMs: 'soon' },
        400,
        'body.timeoutMs',
      ],
      ['a bad URL', 'POST', '/v1/servers', { id: 'ok', name: 'x', url: 'not a url' }, 400, 'body.url'],
      ['an unknown field', 'POST', '/v1/servers', { id: 'ok', name: 'x', url: 'https://example.com/mcp', color: 'red' }, 400, 'body'],
      ['a too-long server id', 'POST', '/v1/servers', { id: 'x'.repeat(40), name: 'x', url: 'https://example.com/mcp' }, 400, 'body.id'],
      [
        'an unknown auth mode',
        'POST',
        '/v1/servers',
        { id: 'ok', name: 'x', url: 'https://example.com/mcp', auth: { mode: 'magic' } },
        400,
        'body.auth.mode',
      ],
      ['a duplicate server id', 'POST', '/v1/servers', { id: 'srv-a', name: 'again', url: 'http://localhost:1/mcp' }, 409, 'body.id'],
      ['an unknown server id', 'GET', '/v1/servers/nope', undefined, 404, 'params.id'],
      ['a malformed server id', 'GET', '/v1/servers/NOT%20VALID', undefined, 400, 'params.id'],
      [
        'publishing from an unknown server',
        'POST',
        '/v1/publications',
        { serverId: 'nope', items: [{ name: 'alpha' }] },
        404,
        'body.serverId',
      ],
      [
        'publishing an unknown tool',
        'POST',
        '/v1/publications',
        { serverId: 'srv-a', items: [{ name: 'ghost' }] },
        404,
        'body.items.0.name',
      ],
      [
        'a too-long exposed name',
        'POST',
        '/v1/publications',
        { serverId: 'srv-a', items: [{ name: 'alpha', exposedName: 'n'.repeat(65) }] },
        400,
        'body.items.0.exposedName',
      ],
      [
        'an exposed name with spaces',
        'POST',
        '/v1/publications',
        { serverId: 'srv-a', items: [{ name: 'alpha', exposedName: 'two words' }] },
        400,
        'body.items.0.exposedName',
      ],
      ['an empty item list', 'POST', '/v1/publications', { serverId: 'srv-a', items: [] }, 400, 'body.items'],
      ['an unknown surface in preview', 'GET', '/v1/preview?surface=martian', undefined, 404, 'query.surface'],
      ['an unknown protocol version in preview', 'GET', '/v1/preview?version=1999-01-01', undefined, 400, 'query.version'],
      [
        'a bad surface rule',
        'PATCH',
        '/v1/tenant',
        { surfaceRules: { surfaces: { claude: { maxNameLength: 'long' } } } },
        400,
        'body.surfaceRules',
      ],
      ['a bad key id', 'DELETE', '/v1/keys/123', undefined, 400, 'params.id'],
    ])('refuses %s with a 4xx naming the field', async (_what, method, url, body, status, field) => {
      const res = await api(registry.url, keyA, method, url, body);
      expect(res.status).toBe(status);
      expect(res.body.error?.field).toBe(field);
      expect(res.body.error?.message).toContain(field);
    });

    it('refuses a duplicate exposed name with 409 naming the field', async () => {
      expect(
        (
          await api(registry.url, keyA, 'POST', '/v1/publications', {
            serverId: 'srv-a',
            items: [{ name: 'alpha', exposedName: 'shared' }],
          })
        ).status,
      ).toBe(200);
      const again = await api(registry.url, keyA, 'POST', '/v1/servers', { id: 'srv-a2', name: 'A2', url: upstreamA.url });
      expect(again.status).toBe(201);
      await registerAndDiscover(registry.url, keyA, { id: 'srv-a3', name: 'A3', url: upstreamA.url }).catch(() => undefined);
      const clash = await api(registry.url, keyA, 'POST', '/v1/publications', {
        serverId: 'srv-a3',
        items: [{ name: 'alpha', exposedName: 'shared' }],
      });
      expect(clash.status).toBe(409);
      expect(clash.body.error?.code).toBe('NAME_COLLISION');
      expect(clash.body.error?.field).toBe('body.items.0.exposedName');
    });

    it('answers malformed JSON with 400, never 500', async () => {
      const res = await api(registry.url, keyA, 'POST', '/v1/servers', '{"id": ');
      expect(res.status).toBe(400);
      expect(res.body.error?.field).toBe('body');
    });

    it('without CONSOLE_ISSUER: console OAuth sign-in is off (auth.json says so, /console/login is a 404), API keys still work', async () => {
      const auth = await api(registry.url, undefined, 'GET', '/console/auth.json');
      expect(auth).toMatchObject({ status: 200, body: { oauth: false, loginUrl: '/console/login' } });
      const login = await api(registry.url, undefined, 'GET', '/console/login?workspace=tenant-a');
      expect(login.status).toBe(404);
      expect(login.body.error?.message).toMatch(/CONSOLE_ISSUER/);
      // A JWT-shaped bearer is just not an API key here.
      expect((await api(registry.url, 'aaa.bbb.ccc', 'GET', '/v1/session')).status).toBe(401);
      expect((await api(registry.url, keyA, 'GET', '/v1/session')).body).toEqual({
        tenant: 'tenant-a',
        user: null,
        via: 'api_key',
        role: 'owner',
      });
    });

    it('serves the OpenAPI document and the docs page', async () => {
      const doc = await api(registry.url, undefined, 'GET', '/openapi.json');
      expect(doc.body.openapi).toBe('3.1.0');
      expect(Object.keys(doc.body.paths as object)).toEqual(
        expect.arrayContaining([
          '/v1/servers',
          '/v1/publications',
          '/v1/preview',
          '/v1/admins',
          '/v1/admins/{username}',
          '/v1/session',
          '/console/login',
          '/console/callback',
        ]),
      );
      // Gateway- and auth-facing routes are not part of the published API.
      expect(Object.keys(doc.body.paths as object).filter((p) => p.startsWith('/internal'))).toEqual([]);
      const page = await fetch(`${registry.url}/docs`);
      expect(await page.text()).toContain('SwaggerUIBundle');
      expect((await fetch(`${registry.url}/docs/assets/swagger-ui-bundle.js`)).status).toBe(200);
    });
  });
});

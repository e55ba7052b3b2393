// Live URL validation (POST /v1/servers/check): the register form asks what answers at a URL
// before saving — against a real registry process and SDK-built upstreams; nothing is stored.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  api,
  cleanRedis,
  createDatabase,
  createTenant,
  READ_ONLY_HINTS,
  startRegistry,
  startUpstream,
  testEnv,
  type Proc,
  type TestUpstream,
} from './support/harness';

jest.setTimeout(60_000);

describe('POST /v1/servers/check', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let shop: TestUpstream;
  let locked: Server;
  let lockedUrl: string;
  let key: string;
  const check = (body: unknown) => api(registry.url, key, 'POST', '/v1/servers/check', body);

  beforeAll(async () => {
    db = await createDatabase();
    shop = await startUpstream('shop', [{ name: 'list_orders', annotations: READ_ONLY_HINTS }, { name: 'refund' }]);
    // An MCP endpoint behind OAuth: every request gets the 401 challenge.
    locked = createServer((_req, res) => {
      res.writeHead(401, {
        'www-authenticate': 'Bearer resource_metadata="http://localhost/.well-known/oauth-protected-resource"',
        'content-type': 'application/json',
      });
      res.end('{"error":"invalid_token"}');
    });
    await new Promise<void>((resolve) => locked.listen(0, '127.0.0.1', resolve));
    lockedUrl = `http://localhost:${(locked.address() as AddressInfo).port}/mcp`;
    registry = await startRegistry(env, db.url);
    key = await createTenant(registry.url, env.operatorKey, 'acme');
  });

  afterAll(async () => {
    await registry?.stop();
    await shop?.close();
    await new Promise<void>((resolve) => (locked ? locked.close(() => resolve()) : resolve()));
    await db?.drop();
    await cleanRedis(env);
  });

  it('says what speaks at a working URL (era, version, transport, tools) and stores nothing', async () => {
    const res = await check({ url: shop.url });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      ok: true,
      protocol: { era: 'legacy', version: '2025-11-25', transport: 'streamable-http' },
      serverInfo: { name: 'shop', version: '1.0.0' },
      counts: { tools: 2, prompts: 0, resources: 0, resourceTemplates: 0 },
      tools: ['list_orders', 'refund'],
    });
    expect((await api(registry.url, key, 'GET', '/v1/servers')).body.servers).toEqual([]);
    const audited = (await api(registry.url, key, 'GET', '/v1/audit')).body.entries as Array<{ action: string }>;
    expect(audited.filter((e) => e.action.startsWith('server.'))).toEqual([]);
  });

  it('uses the credential given for this request only', async () => {
    shop.authorizations.length = 0;
    const res = await check({ url: shop.url, auth: { mode: 'bearer', token: 'upstream-secret-1' } });
    expect(res.body).toMatchObject({ ok: true });
    expect(new Set(shop.authorizations)).toEqual(new Set(['Bearer upstream-secret-1']));
  });

  it('refuses an internal address with the same field error as registration', async () => {
    const res = await check({ url: 'http://169.254.169.254/mcp' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'URL_REFUSED', field: 'body.url', message: expect.stringMatching(/^body\.url: /) });
  });

  it('names the field of bad input', async () => {
    const missing = await check({});
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'VALIDATION', field: 'body.url' });
    const header = await check({ url: shop.url, auth: { mode: 'header', header: 'bad header', value: 'x' } });
    expect(header.body.error).toMatchObject({ code: 'VALIDATION', field: 'body.auth.header' });
  });

  it.each([
    'host',
    'Content-Length',
    'transfer-encoding',
    'connection',
    'te',
    'upgrade',
    'keep-alive',
    'proxy-authorization',
    'mcp-session-id',
  ])('refuses %s as a credential header at registration and in the check (400 naming the header)', async (header) => {
    for (const [path, body] of [
      ['/v1/servers', { id: 'framing', name: 'Framing', url: shop.url, auth: { mode: 'header', header, value: 'x' } }],
      ['/v1/servers/check', { url: shop.url, auth: { mode: 'header', header, value: 'x' } }],
    ] as const) {
      const res = await api(registry.url, key, 'POST', path, body);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({
        code: 'VALIDATION',
        field: 'body.auth.header',
        message: expect.stringContaining(`header ${header} is not allowed`),
      });
    }
    expect((await api(registry.url, key, 'GET', '/v1/servers')).body.servers).toEqual([]);
  });

  it('tells an MCP server that wants a credential apart from one that is down or is not MCP', async () => {
    expect((await check({ url: lockedUrl })).body).toMatchObject({ ok: false, reason: 'auth_required' });

    shop.mode = 'garbage';
    try {
      expect((await check({ url: shop.url })).body).toMatchObject({
        ok: false,
        reason: 'not_mcp',
        message: expect.stringMatching(/not as an MCP server/),
      });
    } finally {
      shop.mode = 'ok';
    }

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect((await check({ url: `http://localhost:${port}/mcp` })).body).toMatchObject({ ok: false, reason: 'unreachable' });
  });

  it('needs a signed-in tenant', async () => {
    const res = await api(registry.url, undefined, 'POST', '/v1/servers/check', { url: shop.url });
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ code: 'UNAUTHENTICATED' });
  });
  it('warns when the tenant already registered the URL, as registering does, except for the server being edited', async () => {
    expect((await check({ url: shop.url })).body.warnings).toBeUndefined();
    const created = await api(registry.url, key, 'POST', '/v1/servers', { id: 'shop', name: 'Shop', url: shop.url });
    expect(created.status).toBe(201);
    // A trailing slash is the same endpoint; the check still reports what answers there.
    const again = await check({ url: `${shop.url}/` });
    expect(again.body).toMatchObject({
      ok: true,
      warnings: [
        {
          code: 'URL_ALREADY_REGISTERED',
          field: 'body.url',
          message: expect.stringMatching(/^body\.url: this URL is already registered as server "shop" \(Shop\)/),
        },
      ],
    });
    // The edit form checks its own server's URL: that one is not a duplicate of itself.
    expect((await check({ url: shop.url, serverId: 'shop' })).body.warnings).toBeUndefined();
    expect((await check({ url: shop.url, serverId: 'Bad id!' })).body.error).toMatchObject({ code: 'VALIDATION', field: 'body.serverId' });
    // Another tenant's servers are not its business.
    const otherKey = await createTenant(registry.url, env.operatorKey, 'other');
    const other = await api(registry.url, otherKey, 'POST', '/v1/servers/check', { url: shop.url });
    expect(other.body).toMatchObject({ ok: true });
    expect(other.body.warnings).toBeUndefined();
  });
});

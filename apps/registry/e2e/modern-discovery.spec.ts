// Discovery of a 2026-07-28-only upstream (a real SDK v2 server that refuses every 2025-era
// request) through the modern client, next to a 2025-era SDK 1.x upstream reached through the
// fallback and a 2024-11-05 HTTP+SSE-only one; the server row and the audit log record which
// era and transport each one spoke, and the gateway calls each the same way.
import { Client as Pg } from 'pg';
import {
  api,
  cleanRedis,
  createDatabase,
  createTenant,
  READ_ONLY_HINTS,
  registerAndDiscover,
  startGateway,
  startRegistry,
  startUpstream,
  testEnv,
  until,
  type Proc,
  type TestUpstream,
} from './support/harness';
import { startModernUpstream, type ModernUpstream } from './support/modern-upstream';
import { startSseUpstream, type SseUpstream } from './support/sse-upstream';

jest.setTimeout(60_000);

describe('upstreams of every era: discovered, published and called in the protocol and transport they speak', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let modern: ModernUpstream;
  let legacy: TestUpstream;
  let sse: SseUpstream;
  let key: string;

  beforeAll(async () => {
    db = await createDatabase();
    modern = await startModernUpstream('modern', ['weather', 'forecast'], ['brief']);
    legacy = await startUpstream('legacy', [{ name: 'lookup' }]);
    sse = await startSseUpstream('oldtimer');
    registry = await startRegistry(env, db.url);
    key = await createTenant(registry.url, env.operatorKey, 'acme');
  });

  afterAll(async () => {
    await registry?.stop();
    await modern?.close();
    await legacy?.close();
    await sse?.close();
    await db?.drop();
    await cleanRedis(env);
  });

  const spoken = async (serverId: string) => {
    const pg = new Pg(db.url);
    await pg.connect();
    try {
      const rows = await pg.query<{ protocol_era: string | null; protocol_version: string | null }>(
        'SELECT protocol_era, protocol_version FROM registry.servers WHERE tenant_id = $1 AND id = $2',
        ['acme', serverId],
      );
      return rows.rows[0];
    } finally {
      await pg.end();
    }
  };

  it('the modern-only upstream really refuses the 2025-era handshake', async () => {
    const res = await fetch(modern.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
      }),
    });
    const text = await res.text();
    expect(text).not.toContain('"serverInfo"');
    expect(text).toMatch(/2026-07-28/);
    modern.methods.length = 0;
    modern.versions.length = 0;
    modern.authorizations.length = 0;
  });

  it('discovers it over 2026-07-28 (server/discover, no initialize) and records the modern era on the server row', async () => {
    const server = await registerAndDiscover(registry.url, key, {
      id: 'modern',
      name: 'Modern',
      url: modern.url,
      auth: { mode: 'bearer', token: 'modern-secret' },
    });
    expect(server.health).toBe('ok');
    expect(server.lastError).toBeNull();
    const items = await api(registry.url, key, 'GET', '/v1/servers/modern/items');
    const found = (items.body.items as Array<{ kind: string; name: string }>).map((i) => `${i.kind}:${i.name}`).sort();
    expect(found).toEqual(['prompt:brief', 'tool:forecast', 'tool:weather']);

    expect(modern.methods).toContain('server/discover');
    expect(modern.methods).toContain('tools/list');
    expect(modern.methods).not.toContain('initialize');
    expect(new Set(modern.versions)).toEqual(new Set(['2026-07-28']));
    expect(new Set(modern.authorizations)).toEqual(new Set(['Bearer modern-secret']));
    expect(await spoken('modern')).toEqual({ protocol_era: 'modern', protocol_version: '2026-07-28' });
    expect((await api(registry.url, key, 'GET', '/v1/servers/modern')).body.protocol).toEqual({
      era: 'modern',
      version: '2026-07-28',
      transport: 'streamable-http',
    });

    const audit = await api(registry.url, key, 'GET', '/v1/audit');
    expect(JSON.stringify(audit.body)).toMatch(/"era":"modern"/);
  });

  it('falls back to the SDK 1.x path for a 2025-era upstream and records the legacy era', async () => {
    const server = await registerAndDiscover(registry.url, key, { id: 'legacy', name: 'Legacy', url: legacy.url });
    expect(server.health).toBe('ok');
    const items = await api(registry.url, key, 'GET', '/v1/servers/legacy/items');
    expect((items.body.items as Array<{ name: string }>).map((i) => i.name)).toEqual(['lookup']);
    const row = await spoken('legacy');
    expect(row?.protocol_era).toBe('legacy');
    expect(row?.protocol_version).toMatch(/^20\d\d-\d\d-\d\d$/);
    expect(row?.protocol_version).not.toBe('2026-07-28');
  });

  it('refreshes the modern upstream on re-discovery without ever falling back', async () => {
    modern.methods.length = 0;
    const before = (await api(registry.url, key, 'GET', '/v1/servers/modern')).body.lastDiscoveredAt as string;
    const res = await api(registry.url, key, 'POST', '/v1/servers/modern/discover');
    expect(res.status).toBe(202);
    await until('re-discovery', async () => (await api(registry.url, key, 'GET', '/v1/servers/modern')).body.lastDiscoveredAt !== before);
    expect(modern.methods).not.toContain('initialize');
    expect(await spoken('modern')).toEqual({ protocol_era: 'modern', protocol_version: '2026-07-28' });
  });

  it('publishes the modern upstream and the gateway calls it over 2026-07-28 with its credential', async () => {
    const published = await api(registry.url, key, 'POST', '/v1/publications', {
      serverId: 'modern',
      items: [{ name: 'weather', overrides: { annotations: READ_ONLY_HINTS } }],
    });
    expect(published.status).toBe(200);
    const gateway = await startGateway(env, registry.url, { UPSTREAM_ALLOW_HTTP_HOSTS: '127.0.0.1,localhost' });
    try {
      modern.methods.length = 0;
      modern.authorizations.length = 0;
      const call = () =>
        fetch(`${gateway.url}/t/acme/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2025-11-25',
            authorization: 'Bearer client-token-must-not-reach-upstream',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'weather', arguments: {} } }),
        }).then((r) => r.json() as Promise<{ result?: { isError?: boolean; content: Array<{ text: string }> } }>);
      const body = await until('the gateway serving the published tool', async () => {
        const b = await call();
        return b.result && !b.result.isError ? b : undefined;
      });
      expect(JSON.parse(body.result!.content[0].text)).toEqual({ server: 'modern', tool: 'weather' });
      // The legacy client in front, the modern wire behind: no initialize ever reached the upstream.
      expect(modern.methods).toContain('tools/call');
      expect(modern.methods).not.toContain('initialize');
      expect(new Set(modern.authorizations)).toEqual(new Set(['Bearer modern-secret']));
    } finally {
      await gateway.stop();
    }
  });

  it('discovers a 2024-11-05 HTTP+SSE-only upstream and the gateway calls it over that transport', async () => {
    const server = await registerAndDiscover(registry.url, key, {
      id: 'oldtimer',
      name: 'Old timer',
      url: sse.url,
      auth: { mode: 'bearer', token: 'sse-secret' },
    });
    expect(server.health).toBe('ok');
    expect(server.protocol).toMatchObject({ era: 'legacy', transport: 'sse' });
    const published = await api(registry.url, key, 'POST', '/v1/publications', {
      serverId: 'oldtimer',
      items: [{ name: 'legacy_echo', overrides: { annotations: READ_ONLY_HINTS } }],
    });
    expect(published.status).toBe(200);
    const gateway = await startGateway(env, registry.url, { UPSTREAM_ALLOW_HTTP_HOSTS: '127.0.0.1,localhost' });
    try {
      sse.seen.length = 0;
      const body = await until('the gateway serving the SSE upstream tool', async () => {
        const b = (await (
          await fetch(`${gateway.url}/t/acme/mcp`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              authorization: 'Bearer client-token-must-not-reach-upstream',
            },
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: 1,
              method: 'tools/call',
              params: { name: 'legacy_echo', arguments: { text: 'hi' } },
            }),
          })
        ).json()) as { result?: { isError?: boolean; content: Array<{ text: string }> } };
        return b.result && !b.result.isError ? b : undefined;
      });
      expect(body.result!.content[0].text).toBe('oldtimer: hi');
      // Over HTTP+SSE: the event stream (GET /sse) and the message endpoint (POST /messages), never a Streamable HTTP POST.
      expect(sse.seen.some((r) => r.method === 'GET' && r.path === '/sse')).toBe(true);
      expect(sse.seen.some((r) => r.method === 'POST' && r.path === '/messages')).toBe(true);
      expect(sse.seen.some((r) => r.method === 'POST' && r.path === '/sse')).toBe(false);
      expect(new Set(sse.seen.map((r) => r.authorization))).toEqual(new Set(['Bearer sse-secret']));
    } finally {
      await gateway.stop();
    }
  });
});

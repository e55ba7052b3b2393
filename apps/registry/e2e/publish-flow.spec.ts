// End-to-end with real Postgres, Redis and BullMQ, and built processes (run `npx tsc -b tsconfig.build.json` first):
// register → discover → publish → two gateways serve it → calls carry the upstream's credential;
// faults of one upstream stay contained; Postgres gone ⇒ 503 while gateways keep serving; a restart loses nothing.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  api,
  cleanRedis,
  createDatabase,
  createTenant,
  mcpClient,
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

jest.setTimeout(120_000);

type CallResult = { isError?: boolean; content: Array<{ type: string; text?: string }> };

describe('registry → gateways publication flow', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  const gateways: Proc[] = [];
  const clients: Client[] = [];
  let crm: TestUpstream;
  let flaky: TestUpstream;
  let key: string;

  beforeAll(async () => {
    db = await createDatabase();
    // The CRM declares its hint annotations upstream; the flaky server does not, so its tools get them as overrides.
    crm = await startUpstream('crm', [
      { name: 'lookup_customer', annotations: READ_ONLY_HINTS },
      { name: 'search', annotations: READ_ONLY_HINTS },
    ]);
    flaky = await startUpstream('flaky', [{ name: 'flaky_op' }, { name: 'search' }]);
    registry = await startRegistry(env, db.url);
    key = await createTenant(registry.url, env.operatorKey, 'acme');
    gateways.push(await startGateway(env, registry.url), await startGateway(env, registry.url));
  });

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    for (const g of gateways) await g.stop();
    await registry?.stop();
    await crm?.close();
    await flaky?.close();
    await db?.drop();
    await cleanRedis(env);
  });

  const listNames = async (gateway: Proc) => {
    const res = await fetch(`${gateway.url}/t/acme/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    if (res.status !== 200) return [];
    const body = (await res.json()) as { result?: { tools: Array<{ name: string }> } };
    return (body.result?.tools ?? []).map((t) => t.name).sort();
  };

  it('discovers a registered SDK server, publishes it, and both gateways serve the new tools/list without waiting for a re-sync', async () => {
    const server = await registerAndDiscover(registry.url, key, {
      id: 'crm',
      name: 'CRM',
      url: crm.url,
      auth: { mode: 'bearer', token: 'crm-upstream-secret' },
    });
    expect(server.health).toBe('ok');
    expect(JSON.stringify(server)).not.toContain('crm-upstream-secret');
    const items = await api(registry.url, key, 'GET', '/v1/servers/crm/items');
    expect((items.body.items as Array<{ name: string }>).map((i) => i.name).sort()).toEqual(['lookup_customer', 'search']);
    for (const g of gateways) expect(await listNames(g)).toEqual([]);

    const published = await api(registry.url, key, 'POST', '/v1/publications', {
      serverId: 'crm',
      items: [{ name: 'lookup_customer' }, { name: 'search' }],
    });
    expect(published.status).toBe(200);
    expect(published.body.redis).toBe('ok');
    // A deadline well under the gateways' 30 s full re-sync (REGISTRY_RESYNC_MS default): the
    // publication must reach them when it happens, not at the next re-sync.
    await Promise.all(
      gateways.map((g) =>
        until('gateway serves the published tools', async () => (await listNames(g)).join() === 'lookup_customer,search', 5_000, 10),
      ),
    );
  });

  it("reaches the upstream through either gateway with the upstream's credential, never the client's", async () => {
    for (const g of gateways) {
      const client = await mcpClient(`${g.url}/t/acme/mcp`);
      clients.push(client);
      crm.authorizations.length = 0;
      const res = (await client.callTool({ name: 'lookup_customer', arguments: { text: 'c_001' } })) as CallResult;
      expect(res.isError).toBeFalsy();
      expect(JSON.parse(res.content[0].text ?? '{}')).toEqual({ server: 'crm', tool: 'lookup_customer', args: { text: 'c_001' } });
      expect(crm.authorizations.length).toBeGreaterThan(0);
      expect(new Set(crm.authorizations)).toEqual(new Set(['Bearer crm-upstream-secret']));
    }
  });

  it('resolves a name collision between servers with the deterministic server prefix and routes each to its server', async () => {
    await registerAndDiscover(registry.url, key, {
      id: 'flaky',
      name: 'Flaky',
      url: flaky.url,
      auth: { mode: 'header', header: 'x-api-key', value: 'flaky-key' },
      timeoutMs: 1000,
    });
    const published = await api(registry.url, key, 'POST', '/v1/publications', {
      serverId: 'flaky',
      items: [
        { name: 'flaky_op', overrides: { annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true } } },
        { name: 'search', overrides: { annotations: READ_ONLY_HINTS } },
      ],
    });
    expect(published.status).toBe(200);
    expect(published.body.items).toEqual([
      { kind: 'tool', name: 'flaky_op', exposedName: 'flaky_op' },
      { kind: 'tool', name: 'search', exposedName: 'flaky_search' },
    ]);
    const routing = await api(registry.url, key, 'GET', '/v1/publications');
    expect(routing.body.publications).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ exposedName: 'search', serverId: 'crm', upstreamName: 'search' }),
        expect.objectContaining({ exposedName: 'flaky_search', serverId: 'flaky', upstreamName: 'search' }),
      ]),
    );
    await until('gateway 0 has the flaky tools', async () => (await listNames(gateways[0])).includes('flaky_search'));
    const res = (await clients[0].callTool({ name: 'flaky_search', arguments: {} })) as CallResult;
    expect(JSON.parse(res.content[0].text ?? '{}').server).toBe('flaky');
  });

  it.each(['hang', 'garbage', 'down'] as const)(
    'an upstream that is %s yields a clear tool error within the timeout while the other server answers',
    async (mode) => {
      flaky.mode = mode;
      if (mode === 'down') await flaky.close();
      const [bad, good] = (await Promise.all([
        clients[1].callTool({ name: 'flaky_op', arguments: {} }),
        clients[1].callTool({ name: 'lookup_customer', arguments: {} }),
      ])) as [CallResult, CallResult];
      expect(bad.isError).toBe(true);
      // The error names what bounded the call (a hang ends at the server's 1000 ms timeout, not the client's).
      expect(bad.content[0].text).toMatch(
        /Upstream server flaky (did not answer within 1000 ms|is unavailable|returned an error|is temporarily unavailable|answered with something that is not MCP JSON-RPC|is not reachable)/,
      );
      expect(good.isError).toBeFalsy();
      // The tenant's list is unaffected.
      expect(await listNames(gateways[1])).toContain('lookup_customer');
    },
  );

  it('holds a changed description of a published tool for review instead of publishing it', async () => {
    const before = await api(registry.url, key, 'GET', '/v1/changes');
    expect(before.body.changes).toEqual([]);
    // Simulate an upstream that changed what a published tool means: its stored discovery differs from the approval.
    const { Client: Pg } = await import('pg');
    const pg = new Pg(db.url);
    await pg.connect();
    await pg.query(
      `UPDATE registry.discovered_items SET definition = jsonb_set(definition, '{description}', '"now deletes everything"'), content_hash = 'changed'
        WHERE tenant_id = 'acme' AND server_id = 'crm' AND key = 'lookup_customer'`,
    );
    await pg.end();
    const pending = await api(registry.url, key, 'GET', '/v1/changes');
    expect(pending.body.changes).toEqual([expect.objectContaining({ serverId: 'crm', name: 'lookup_customer', change: 'modified' })]);
    const preview = await api(registry.url, key, 'GET', '/v1/preview?surface=claude');
    const tools = (preview.body.surfaces as Record<string, { tools: Array<{ name: string; description: string }> }>).claude.tools;
    expect(tools.find((t) => t.name === 'lookup_customer')?.description).not.toContain('deletes everything');
    const approved = await api(registry.url, key, 'POST', '/v1/changes/approve', { serverId: 'crm', name: 'lookup_customer' });
    expect(approved.status).toBe(200);
    expect((await api(registry.url, key, 'GET', '/v1/changes')).body.changes).toEqual([]);
  });

  it('previews exactly what each surface receives, and gives the MCP URL and claude mcp add line', async () => {
    await api(registry.url, key, 'PATCH', '/v1/tenant', { surfaceRules: { surfaces: { slim: { maxTools: 1 } } } });
    const preview = await api(registry.url, key, 'GET', '/v1/preview');
    const surfaces = preview.body.surfaces as Record<string, { tools: Array<Record<string, unknown>> }>;
    expect(Object.keys(surfaces).sort()).toEqual(['claude', 'generic', 'openai', 'slim']);
    // Every published tool declares its three hints; Claude's surface fills in the spec default of the optional idempotentHint, generic passes through.
    expect(surfaces.claude.tools[0].annotations).toEqual(
      expect.objectContaining({ readOnlyHint: false, destructiveHint: true, idempotentHint: false }),
    );
    expect(surfaces.generic.tools[0].annotations).toEqual({ readOnlyHint: false, destructiveHint: true, openWorldHint: true });
    const connect = await api(registry.url, key, 'GET', '/v1/connect');
    expect(connect.body.claudeCommand).toMatch(/^claude mcp add --transport http acme http:\/\/\S+\/t\/acme\/mcp$/);
  });

  it('keeps a renamed tool callable under its old name during the grace period, without listing it', async () => {
    const renamed = await api(registry.url, key, 'POST', '/v1/publications', {
      serverId: 'crm',
      items: [{ name: 'search', exposedName: 'crm_find' }],
    });
    expect(renamed.status).toBe(200);
    for (const g of gateways) await until('rename reaches the gateway', async () => (await listNames(g)).includes('crm_find'));
    for (const g of gateways) {
      // Fresh lists show only the new name …
      const names = await listNames(g);
      expect(names).toContain('crm_find');
      expect(names).not.toContain('search');
      // … while a client that cached the old list can still call the old name (raw tools/call, no list first).
      const res = await fetch(`${g.url}/t/acme/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search', arguments: {} } }),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { result?: CallResult; error?: unknown };
      expect(body.error).toBeUndefined();
      expect(body.result?.isError).toBeFalsy();
      expect(JSON.parse(body.result?.content[0].text ?? '{}')).toEqual(expect.objectContaining({ server: 'crm', tool: 'search' }));
    }
    // The same through an SDK client session opened before the rename.
    const old = (await clients[0].callTool({ name: 'search', arguments: {} })) as CallResult;
    expect(JSON.parse(old.content[0].text ?? '{}')).toEqual(expect.objectContaining({ server: 'crm', tool: 'search' }));
    // The registry's preview (the same compiled catalog) does not show it either; the stored snapshot keeps it, unlisted.
    const preview = await api(registry.url, key, 'GET', '/v1/preview?surface=claude');
    const previewed = (preview.body.surfaces as Record<string, { tools: Array<{ name: string }> }>).claude.tools.map((t) => t.name);
    expect(previewed).toContain('crm_find');
    expect(previewed).not.toContain('search');
    const internal = await api(registry.url, env.internalToken, 'GET', '/internal/catalogs/acme');
    const entries = (
      internal.body.snapshot as {
        tools: Array<{ definition: { name: string; description?: string; _meta?: Record<string, unknown> }; unlisted?: boolean }>;
      }
    ).tools;
    const retired = entries.find((e) => e.definition.name === 'search');
    expect(retired?.unlisted).toBe(true);
    expect(retired?.definition.description ?? '').not.toContain('[Deprecated');
    expect(retired?.definition._meta?.['switchboard/deprecated']).toBeUndefined();
    expect(entries.find((e) => e.definition.name === 'crm_find')?.unlisted).toBeUndefined();
  });

  it('answers admin writes with 503 + Retry-After when Postgres is gone, while both gateways keep serving', async () => {
    // Postgres disappears under the running registry: its database refuses connections and every session is killed.
    const { Client: Pg } = await import('pg');
    const admin = new Pg('postgres://postgres@127.0.0.1:5432/postgres');
    await admin.connect();
    await admin.query(`ALTER DATABASE ${db.name} ALLOW_CONNECTIONS false`);
    await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`, [db.name]);
    try {
      const write = await api(registry.url, key, 'POST', '/v1/servers', { id: 'another', name: 'x', url: crm.url });
      expect(write.status).toBe(503);
      expect(write.headers.get('retry-after')).toBe('7');
      expect(write.body.error?.code).toBe('UNAVAILABLE');
      for (const g of gateways) expect(await listNames(g)).toContain('lookup_customer');
      const res = (await clients[0].callTool({ name: 'lookup_customer', arguments: {} })) as CallResult;
      expect(res.isError).toBeFalsy();
    } finally {
      await admin.query(`ALTER DATABASE ${db.name} ALLOW_CONNECTIONS true`);
      await admin.end();
    }
  });

  it('loses nothing committed across a registry restart', async () => {
    const before = await api(registry.url, key, 'GET', '/v1/publications');
    const version = (await api(registry.url, key, 'GET', '/v1/tenant')).body.currentVersion;
    await registry.stop();
    registry = await startRegistry(env, db.url);
    const after = await api(registry.url, key, 'GET', '/v1/publications');
    expect(after.status).toBe(200);
    expect(after.body.publications).toEqual(before.body.publications);
    expect((await api(registry.url, key, 'GET', '/v1/tenant')).body.currentVersion).toBe(version);
    const internal = await api(registry.url, env.internalToken, 'GET', '/internal/catalogs/acme');
    expect((internal.body.snapshot as { version: string }).version).toBe(version);
    expect(JSON.stringify(internal.body)).not.toContain('crm-upstream-secret');
  });
});

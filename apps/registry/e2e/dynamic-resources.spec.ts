// Issue 42 item 2 with the official reference server (server-everything, stateful): a tool creates a
// session resource and returns a resource_link; the gateway reads it from that upstream (its session)
// only when the tenant publishes the server's "dynamic resources" (URI prefixes it owns), and answers
// -32002 naming the setting otherwise, through either of two gateway replicas (they share the
// upstream session). Each URI has one owner: another server of the tenant cannot
// claim it, reads under another server's prefix never reach this one, and another tenant's
// registration of the same server never sees this tenant's session resources.
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  api,
  cleanRedis,
  createDatabase,
  createTenant,
  registerAndDiscover,
  READ_ONLY_HINTS,
  startGateway,
  startRegistry,
  startUpstream,
  testEnv,
  until,
  type Proc,
  type TestUpstream,
} from './support/harness';
import { startEverythingServer, type ReferenceServer } from '@switchboard/testing';

jest.setTimeout(90_000);

const GZIP = 'gzip-file-as-resource';
const SESSION_PREFIX = 'demo://resource/session/';
/** "hello" as a data URI: the tool fetches nothing from the network. */
const HELLO = 'data:text/plain;base64,aGVsbG8=';

type Content = { type: string; uri?: string; text?: string };

describe('resource routing that follows the upstream (dynamic resources)', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let gateway: Proc;
  /** A second replica behind the same registry and Redis (round-robin stand-in). */
  let gateway2: Proc;
  let everything: ReferenceServer;
  let other: TestUpstream;
  let acme: string;
  let globex: string;
  const closers: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    db = await createDatabase();
    everything = await startEverythingServer();
    other = await startUpstream('other', [{ name: 'other_op', annotations: READ_ONLY_HINTS }]);
    registry = await startRegistry(env, db.url);
    acme = await createTenant(registry.url, env.operatorKey, 'acme');
    globex = await createTenant(registry.url, env.operatorKey, 'globex');
    for (const key of [acme, globex]) {
      const s = await registerAndDiscover(registry.url, key, { id: 'everything', name: 'Everything', url: everything.url, stateful: true });
      expect(s.health).toBe('ok');
      const published = await api(registry.url, key, 'POST', '/v1/publications', { serverId: 'everything', items: [{ name: GZIP }] });
      expect(published.status).toBe(200);
    }
    expect((await registerAndDiscover(registry.url, acme, { id: 'other', name: 'Other', url: other.url })).health).toBe('ok');
    expect((await api(registry.url, acme, 'POST', '/v1/publications', { serverId: 'other', items: [{ name: 'other_op' }] })).status).toBe(
      200,
    );
    gateway = await startGateway(env, registry.url, { UPSTREAM_TIMEOUT_MS: '10000' });
    gateway2 = await startGateway(env, registry.url, { UPSTREAM_TIMEOUT_MS: '10000' });
  });

  afterAll(async () => {
    for (const close of closers) await close().catch(() => undefined);
    await gateway?.stop();
    await gateway2?.stop();
    await registry?.stop();
    await everything?.stop();
    await other?.close();
    await db?.drop();
    await cleanRedis(env);
  });

  /** SDK 1.x client declaring what the review declared (sampling, elicitation form + url, roots). */
  const legacyClient = async (tenant: string, through: Proc = gateway): Promise<Client> => {
    const client = new Client(
      { name: 'e2e-legacy', version: '1.0.0' },
      { capabilities: { sampling: {}, elicitation: { form: {}, url: {} }, roots: {} } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(`${through.url}/t/${tenant}/mcp`)));
    closers.push(() => client.close());
    return client;
  };
  const modernClient = async (tenant: string): Promise<V2Client> => {
    const client = new V2Client(
      { name: 'e2e-v2', version: '2.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: {}, sampling: {}, roots: {} } },
    );
    // It declared roots, so it answers them (the upstream asks on the caller's own session).
    client.setRequestHandler('roots/list', async () => ({ roots: [] }));
    await client.connect(new V2Transport(new URL(`${gateway.url}/t/${tenant}/mcp`)));
    closers.push(() => client.close());
    return client;
  };
  const link = async (
    client: { callTool(p: { name: string; arguments: Record<string, unknown> }): Promise<unknown> },
    name: string,
  ): Promise<string> => {
    const res = (await client.callTool({ name: GZIP, arguments: { name, data: HELLO, outputType: 'resourceLink' } })) as {
      isError?: boolean;
      content: Content[];
    };
    expect(res.isError ? JSON.stringify(res.content) : undefined).toBeUndefined();
    const uri = res.content.find((c) => c.type === 'resource_link')?.uri;
    expect(uri).toBe(`${SESSION_PREFIX}${name}`);
    return uri!;
  };
  const errorOf = async (p: Promise<unknown>): Promise<{ code?: number; message: string }> => {
    try {
      await p;
    } catch (err) {
      return err as { code?: number; message: string };
    }
    throw new Error('expected the read to fail');
  };
  const servesTool = (tenant: string, name: string) =>
    until(`gateway serves ${name} for ${tenant}`, async () => {
      const res = await fetch(`${gateway.url}/t/${tenant}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      const body = (await res.json()) as { result?: { tools: Array<{ name: string }> } };
      return body.result?.tools.some((t) => t.name === name);
    });
  const publishes = (tenant: string, prefix: string | undefined, through: Proc = gateway) =>
    until(`gateway routes ${prefix ?? 'no dynamic resources'} for ${tenant}`, async () => {
      // A read under the prefix answers something other than the gateway's own "not published" once the publication arrived.
      const res = await fetch(`${through.url}/t/${tenant}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: `${SESSION_PREFIX}probe` } }),
      });
      const text = await res.text();
      return prefix === undefined ? text.includes('dynamicResources') : !text.includes('dynamicResources');
    });

  it('answers -32002 naming the setting for a linked URI while dynamic resources are off (the default)', async () => {
    await servesTool('acme', GZIP);
    const server = await api(registry.url, acme, 'GET', '/v1/servers/everything');
    expect(server.body.dynamicResources).toBeNull();
    const client = await legacyClient('acme');
    const uri = await link(client, 'off.txt.gz');
    const err = await errorOf(client.readResource({ uri }));
    expect(err.code).toBe(-32002);
    expect(err.message).toContain('dynamicResources');
    expect(err.message).toContain(uri);
    // 2026-07-28 answers a missing resource with -32602 (SEP-2164), naming the setting too.
    const modern = await modernClient('acme');
    const modernErr = await errorOf(modern.readResource({ uri: await link(modern, 'off-modern.txt.gz') }));
    expect(modernErr.code).toBe(-32602);
    expect(modernErr.message).toContain('dynamicResources');
  });

  it('refuses bad prefixes with 400 naming the field', async () => {
    const bare = await api(registry.url, acme, 'PATCH', '/v1/servers/everything', { dynamicResources: { uriPrefixes: ['demo:'] } });
    expect(bare.status).toBe(400);
    expect(bare.body.error?.field).toBe('body.dynamicResources.uriPrefixes.0');
    const many = await api(registry.url, acme, 'PATCH', '/v1/servers/everything', {
      dynamicResources: { uriPrefixes: Array.from({ length: 17 }, (_, i) => `demo://p${i}/`) },
    });
    expect(many.status).toBe(400);
    expect(many.body.error?.field).toBe('body.dynamicResources.uriPrefixes');
  });

  it('with the setting on, reads the linked session resource from that upstream session (legacy and 2026-07-28 clients), shown in the preview', async () => {
    const on = await api(registry.url, acme, 'PATCH', '/v1/servers/everything', { dynamicResources: { uriPrefixes: [SESSION_PREFIX] } });
    expect(on.status).toBe(200);
    expect((on.body.server as { dynamicResources: unknown }).dynamicResources).toEqual({ uriPrefixes: [SESSION_PREFIX] });
    const preview = await api(registry.url, acme, 'GET', '/v1/preview');
    expect(preview.body.dynamicResources).toEqual([{ serverId: 'everything', uriPrefix: SESSION_PREFIX }]);
    await publishes('acme', SESSION_PREFIX);

    const legacy = await legacyClient('acme');
    const uri = await link(legacy, 'legacy.txt.gz');
    const read = (await legacy.readResource({ uri })) as { contents: Array<{ uri: string; mimeType?: string; blob?: string }> };
    expect(read.contents[0]).toMatchObject({ uri, mimeType: 'application/gzip' });
    expect(typeof read.contents[0]!.blob).toBe('string');

    const modern = await modernClient('acme');
    const modernUri = await link(modern, 'modern.txt.gz');
    const modernRead = (await modern.readResource({ uri: modernUri })) as { contents: Array<{ uri: string; mimeType?: string }> };
    expect(modernRead.contents[0]).toMatchObject({ uri: modernUri, mimeType: 'application/gzip' });
  });

  it('reads a session resource linked through one gateway replica through another (the upstream session is shared)', async () => {
    await publishes('acme', SESSION_PREFIX, gateway2);
    const first = await legacyClient('acme', gateway);
    const uri = await link(first, 'replica.txt.gz');
    const second = await legacyClient('acme', gateway2);
    const read = (await second.readResource({ uri })) as { contents: Array<{ uri: string; mimeType?: string }> };
    expect(read.contents[0]).toMatchObject({ uri, mimeType: 'application/gzip' });
  });

  it('opens a fresh shared session on both replicas when the upstream restarted and forgot it', async () => {
    const through1 = await legacyClient('acme', gateway);
    const through2 = await legacyClient('acme', gateway2);
    await link(through1, 'before.txt.gz');
    await link(through2, 'before.txt.gz');
    await everything.stop();
    everything = await startEverythingServer(everything.port);
    // Each replica's first call meets the upstream's 404, forgets the stale shared session and joins the new one.
    await link(through1, 'after.txt.gz');
    const uri = await link(through2, 'after2.txt.gz');
    const read = (await through1.readResource({ uri })) as { contents: Array<{ uri: string }> };
    expect(read.contents[0]!.uri).toBe(uri);
  });

  it("never lets another server claim this server's URIs, nor sends them to it", async () => {
    const claim = await api(registry.url, acme, 'PATCH', '/v1/servers/other', { dynamicResources: { uriPrefixes: ['demo://resource/'] } });
    expect(claim.status).toBe(400);
    expect(claim.body.error?.field).toBe('body.dynamicResources.uriPrefixes.0');
    expect(claim.body.error?.message).toContain('everything');
    const own = await api(registry.url, acme, 'PATCH', '/v1/servers/other', { dynamicResources: { uriPrefixes: ['other://'] } });
    expect(own.status).toBe(200);
    const preview = await api(registry.url, acme, 'GET', '/v1/preview');
    expect(preview.body.dynamicResources).toEqual([
      { serverId: 'everything', uriPrefix: SESSION_PREFIX },
      { serverId: 'other', uriPrefix: 'other://' },
    ]);
    await until('other:// routed to other', async () => {
      const before = other.authorizations.length;
      const res = await fetch(`${gateway.url}/t/acme/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'other://x' } }),
      });
      await res.text();
      return other.authorizations.length > before;
    });

    const client = await legacyClient('acme');
    const uri = await link(client, 'mine.txt.gz');
    const before = other.authorizations.length;
    const read = (await client.readResource({ uri })) as { contents: Array<{ uri: string }> };
    expect(read.contents[0]!.uri).toBe(uri);
    expect(other.authorizations.length).toBe(before);
  });

  it("never shows one tenant's session resources to another tenant, with the setting off or on", async () => {
    const acmeClient = await legacyClient('acme');
    const uri = await link(acmeClient, 'secret.txt.gz');
    const globexClient = await legacyClient('globex');
    const off = await errorOf(globexClient.readResource({ uri }));
    expect(off.code).toBe(-32002);
    expect(off.message).toContain('dynamicResources');

    expect(
      (await api(registry.url, globex, 'PATCH', '/v1/servers/everything', { dynamicResources: { uriPrefixes: [SESSION_PREFIX] } })).status,
    ).toBe(200);
    await publishes('globex', SESSION_PREFIX);
    // Globex's reads go to globex's own upstream session, where acme's resource does not exist.
    const on = await errorOf(globexClient.readResource({ uri }));
    expect(on.message).not.toContain('dynamicResources');
    expect(JSON.stringify(on)).not.toContain('H4sI');
    // And acme still reads it.
    expect(((await acmeClient.readResource({ uri })) as { contents: unknown[] }).contents).toHaveLength(1);
  });

  it('turns the setting off again with null', async () => {
    const off = await api(registry.url, globex, 'PATCH', '/v1/servers/everything', { dynamicResources: null });
    expect(off.status).toBe(200);
    await publishes('globex', undefined);
    const preview = await api(registry.url, globex, 'GET', '/v1/preview');
    expect(preview.body.dynamicResources).toEqual([]);
  });
});

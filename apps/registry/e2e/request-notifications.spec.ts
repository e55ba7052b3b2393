// Issue 42 item 5 with the official reference server (server-everything, stateful): notifications
// that belong to a call reach its caller on the call's own stream, in both eras — progress of
// trigger-long-running-operation, and the logging messages its session sends while the call runs
// (toggle-simulated-logging starts them, every 5 s, on the session's own stream) — and a legacy
// caller's logging/setLevel reaches the upstream session its calls use (checked on a recording
// stateful SDK upstream, since server-everything does not show what level it holds).
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  listenLoopback,
  readJsonBody,
  serveStateless,
  startEverythingServer,
  TestUpstream,
  type LoopbackServer,
  type ReferenceServer,
} from '@switchboard/testing';
import {
  api,
  cleanRedis,
  createDatabase,
  createTenant,
  READ_ONLY_HINTS,
  registerAndDiscover,
  startGateway,
  startRegistry,
  testEnv,
  until,
  type Proc,
} from './support/harness';

jest.setTimeout(90_000);

const LONG = 'trigger-long-running-operation';
const TOGGLE = 'toggle-simulated-logging';
const UPDATES = 'toggle-subscriber-updates';
/** Under the prefix this test publishes as server-everything's dynamic resources. */
const WATCHED = 'demo://resource/session/watched.txt';
/** Longer than the simulated logging's 5 s pace, so at least one message is sent while the call runs. */
const SPAN_A_TICK = { duration: 6, steps: 3 };

type Logged = { level: string; data: unknown };

describe('request-bound notifications through the gateway (server-everything)', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let gateway: Proc;
  let everything: ReferenceServer;
  let probe: TestUpstream;
  let chatty: LoopbackServer;
  const closers: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    db = await createDatabase();
    everything = await startEverythingServer();
    probe = await TestUpstream.start({ stateful: true, name: 'probe' });
    chatty = await listenLoopback(async (req, res) =>
      serveStateless(chattyServer(), req, res, req.method === 'POST' ? await readJsonBody(req) : undefined),
    );
    // The recording upstream listens on 127.0.0.1 (allowed like localhost, for this test only).
    registry = await startRegistry(env, db.url, { REGISTRY_ALLOW_HTTP_HOSTS: 'localhost,127.0.0.1' });
    const key = await createTenant(registry.url, env.operatorKey, 'acme');
    expect(
      (await registerAndDiscover(registry.url, key, { id: 'everything', name: 'Everything', url: everything.url, stateful: true })).health,
    ).toBe('ok');
    expect(
      (
        await api(registry.url, key, 'POST', '/v1/publications', {
          serverId: 'everything',
          items: [{ name: LONG }, { name: TOGGLE }, { name: UPDATES }],
        })
      ).status,
    ).toBe(200);
    expect(
      (await api(registry.url, key, 'PATCH', '/v1/servers/everything', { dynamicResources: { uriPrefixes: ['demo://resource/session/'] } }))
        .status,
    ).toBe(200);
    expect((await registerAndDiscover(registry.url, key, { id: 'probe', name: 'Probe', url: probe.url, stateful: true })).health).toBe(
      'ok',
    );
    expect(
      (
        await api(registry.url, key, 'POST', '/v1/publications', {
          serverId: 'probe',
          items: [{ name: 'shout', overrides: { annotations: READ_ONLY_HINTS } }],
        })
      ).status,
    ).toBe(200);
    expect((await registerAndDiscover(registry.url, key, { id: 'chatty', name: 'Chatty', url: chatty.url })).health).toBe('ok');
    expect(
      (
        await api(registry.url, key, 'POST', '/v1/publications', {
          serverId: 'chatty',
          items: [{ name: 'work', overrides: { annotations: READ_ONLY_HINTS } }],
        })
      ).status,
    ).toBe(200);
    gateway = await startGateway(env, registry.url, { UPSTREAM_TIMEOUT_MS: '20000', UPSTREAM_ALLOW_HTTP_HOSTS: 'localhost,127.0.0.1' });
    await until('gateway serves the tools', async () => {
      const res = await fetch(`${gateway.url}/t/acme/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      const body = (await res.json()) as { result?: { tools: Array<{ name: string }> } };
      return body.result?.tools.some((t) => t.name === UPDATES);
    });
  });

  afterAll(async () => {
    for (const close of closers) await close().catch(() => undefined);
    await gateway?.stop();
    await registry?.stop();
    await everything?.stop();
    await probe?.stop();
    await chatty?.stop();
    await db?.drop();
    await cleanRedis(env);
  });

  const legacyClient = async (logged: Logged[]): Promise<Client> => {
    const client = new Client(
      { name: 'e2e-legacy', version: '1.0.0' },
      { capabilities: { sampling: {}, elicitation: { form: {}, url: {} }, roots: {} } },
    );
    client.setNotificationHandler(
      LoggingMessageNotificationSchema,
      (n) => void logged.push({ level: n.params.level, data: n.params.data }),
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/t/acme/mcp`)));
    closers.push(() => client.close());
    return client;
  };
  const modernClient = async (logged: Logged[]): Promise<V2Client> => {
    const client = new V2Client(
      { name: 'e2e-v2', version: '2.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: {}, sampling: {}, roots: {} } },
    );
    // It declared roots, so it answers them (the upstream asks on the caller's own session).
    client.setRequestHandler('roots/list', async () => ({ roots: [] }));
    client.setNotificationHandler(
      'notifications/message',
      (n: { params: Logged }) => void logged.push({ level: n.params.level, data: n.params.data }),
    );
    await client.connect(new V2Transport(new URL(`${gateway.url}/t/acme/mcp`)));
    closers.push(() => client.close());
    return client;
  };

  it("relays logging messages and resource updates an upstream sends on the call's own stream, in both eras", async () => {
    const logged: Logged[] = [];
    const updated: string[] = [];
    const legacy = await legacyClient(logged);
    legacy.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
    await legacy.callTool({ name: 'work', arguments: {} });
    expect(logged).toEqual([{ level: 'info', data: 'working on it' }]);
    expect(updated).toEqual(['chatty://report']);

    const modernLogged: Logged[] = [];
    const modernUpdated: string[] = [];
    const modern = await modernClient(modernLogged);
    modern.setNotificationHandler(
      'notifications/resources/updated',
      (n: { params: { uri: string } }) => void modernUpdated.push(n.params.uri),
    );
    await modern.callTool({ name: 'work', arguments: {}, _meta: { 'io.modelcontextprotocol/logLevel': 'info' } });
    expect(modernLogged).toEqual([{ level: 'info', data: 'working on it' }]);
    expect(modernUpdated).toEqual(['chatty://report']);
  });

  it('relays the upstream progress of a long-running operation to a 2025-11-25 and a 2026-07-28 caller', async () => {
    const legacyProgress: number[] = [];
    const legacy = await legacyClient([]);
    await legacy.callTool({ name: LONG, arguments: { duration: 1, steps: 3 } }, undefined, {
      onprogress: (p) => void legacyProgress.push(p.progress),
    });
    expect(legacyProgress).toEqual([1, 2, 3]);

    const modernProgress: number[] = [];
    const modern = await modernClient([]);
    // The v2 client also reports its own input_required rounds through onprogress (one happens when
    // the upstream asks this roots-declaring caller for roots mid-call): only the upstream's count.
    const own = (p: { message?: string }) => p.message?.startsWith('Fulfilling input required') === true;
    await modern.callTool(
      { name: LONG, arguments: { duration: 1, steps: 3 } },
      { onprogress: (p: { progress: number; message?: string }) => void (own(p) || modernProgress.push(p.progress)) },
    );
    expect(modernProgress).toEqual([1, 2, 3]);
  });

  it("forwards a legacy caller's logging/setLevel to each stateful upstream, on the session its calls use", async () => {
    const client = await legacyClient([]);
    probe.seen.length = 0;
    await client.setLoggingLevel('warning');
    const shout = (await client.callTool({ name: 'shout', arguments: { text: 'hi' } })) as { content: Array<{ text?: string }> };
    expect(shout.content[0]!.text).toBe('HI (from probe)');
    const setLevel = probe.requests('logging/setLevel');
    const call = probe.requests('tools/call');
    expect(setLevel).toHaveLength(1);
    expect(call).toHaveLength(1);
    expect(setLevel[0]!.headers['mcp-session-id']).toBeDefined();
    expect(setLevel[0]!.headers['mcp-session-id']).toBe(call[0]!.headers['mcp-session-id']);
  });

  it("relays the session's logging messages sent during a legacy caller's call", async () => {
    const logged: Logged[] = [];
    const client = await legacyClient(logged);
    await client.setLoggingLevel('debug');
    const started = (await client.callTool({ name: TOGGLE, arguments: {} })) as { content: Array<{ text?: string }> };
    expect(started.content[0]!.text).toContain('Started simulated');
    try {
      logged.length = 0;
      await client.callTool({ name: LONG, arguments: SPAN_A_TICK });
      expect(logged.length).toBeGreaterThan(0);
      expect(String(logged[0]!.data)).toMatch(/message - SessionId /);
    } finally {
      await client.callTool({ name: TOGGLE, arguments: {} });
    }
  });

  it('relays them to nobody while two callers share the upstream session at once (nobody can tell whose they are)', async () => {
    const first: Logged[] = [];
    const second: Logged[] = [];
    const a = await legacyClient(first);
    const b = await legacyClient(second);
    await a.callTool({ name: TOGGLE, arguments: {} });
    try {
      first.length = 0;
      await Promise.all([a.callTool({ name: LONG, arguments: SPAN_A_TICK }), b.callTool({ name: LONG, arguments: SPAN_A_TICK })]);
      expect(first).toEqual([]);
      expect(second).toEqual([]);
    } finally {
      await a.callTool({ name: TOGGLE, arguments: {} });
    }
  });

  it("relays them to a 2026-07-28 caller that asked for logs in the request's _meta, and not to one that did not", async () => {
    const logged: Logged[] = [];
    const client = await modernClient(logged);
    const started = (await client.callTool({ name: TOGGLE, arguments: {} })) as { content: Array<{ text?: string }> };
    expect(started.content[0]!.text).toContain('Started simulated');
    try {
      logged.length = 0;
      await client.callTool({ name: LONG, arguments: SPAN_A_TICK });
      expect(logged).toEqual([]);
      await client.callTool({ name: LONG, arguments: SPAN_A_TICK, _meta: { 'io.modelcontextprotocol/logLevel': 'debug' } });
      expect(logged.length).toBeGreaterThan(0);
      expect(String(logged[0]!.data)).toMatch(/message - SessionId /);
    } finally {
      await client.callTool({ name: TOGGLE, arguments: {} });
    }
  });
  it("forwards a legacy caller's resources/subscribe to the owning upstream session, whose updates reach the caller's call", async () => {
    const updated: string[] = [];
    const client = await legacyClient([]);
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
    await client.subscribeResource({ uri: WATCHED });
    const started = (await client.callTool({ name: UPDATES, arguments: {} })) as { content: Array<{ text?: string }> };
    expect(started.content[0]!.text).toContain('Started');
    try {
      updated.length = 0;
      await client.callTool({ name: LONG, arguments: SPAN_A_TICK });
      expect(updated.length).toBeGreaterThan(0);
      expect(new Set(updated)).toEqual(new Set([WATCHED]));
    } finally {
      await client.callTool({ name: UPDATES, arguments: {} });
      await client.unsubscribeResource({ uri: WATCHED });
    }
  });
});

/** A stateless upstream whose `work` tool logs and reports a resource update on the call's own stream before answering. */
function chattyServer(): McpServer {
  const server = new McpServer({ name: 'chatty', version: '1.0.0' }, { capabilities: { logging: {}, resources: { subscribe: true } } });
  server.registerTool('work', { description: 'Logs, updates a resource, answers.', inputSchema: {} }, async (_args, extra) => {
    await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data: 'working on it' } });
    await extra.sendNotification({ method: 'notifications/resources/updated', params: { uri: 'chatty://report' } });
    return { content: [{ type: 'text', text: 'done' }] };
  });
  return server;
}

// Issue 45 item 3 through the registry: two SDK-built MCP App servers both publish the view
// `ui://widget/card.html`. Publishing both is no collision (each is published under its server's
// `ui://<server>/…` URI); the gateway serves a client that declares `io.modelcontextprotocol/ui`
// both views and routes each read to its own server, and hides them from one that does not; the
// preview API and the console's Preview page say which clients of each surface get the UI.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { APP_CARD_URI, MCP_APP_MIME, startAppUpstream, type AppUpstream } from '@switchboard/testing';
import { expectIntact, openConsoleBrowser, signInWithKey, type ConsoleBrowser } from './support/console-browser';
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

const APPS_CAPABILITIES = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [MCP_APP_MIME] } } };
const ALPHA_CARD = 'ui://alpha/widget/card.html';
const BETA_CARD = 'ui://beta/widget/card.html';

describe('MCP Apps published through the registry', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let gateway: Proc;
  let alpha: AppUpstream;
  let beta: AppUpstream;
  let key: string;
  const published: Record<string, unknown>[] = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    db = await createDatabase();
    [alpha, beta] = await Promise.all([startAppUpstream('alpha'), startAppUpstream('beta')]);
    registry = await startRegistry(env, db.url);
    key = await createTenant(registry.url, env.operatorKey, 'acme');
    for (const [id, server] of [
      ['alpha', alpha],
      ['beta', beta],
    ] as const) {
      const s = await registerAndDiscover(registry.url, key, { id, name: id, url: server.url.replace('127.0.0.1', 'localhost') });
      expect(s.health).toBe('ok');
      const pub = await api(registry.url, key, 'POST', '/v1/publications', {
        serverId: id,
        items: [
          { name: 'show', exposedName: `${id}_show`, overrides: { annotations: { ...READ_ONLY_HINTS, idempotentHint: true } } },
          { kind: 'resource', name: APP_CARD_URI },
        ],
      });
      if (pub.status !== 200) throw new Error(`publish ${id}: ${pub.status} ${JSON.stringify(pub.body)}`);
      published.push(pub.body);
    }
    gateway = await startGateway(env, registry.url, { UPSTREAM_TIMEOUT_MS: '10000' });
  });

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await gateway?.stop();
    await registry?.stop();
    await alpha?.stop();
    await beta?.stop();
    await db?.drop();
    await cleanRedis(env);
  });

  async function connect(capabilities: Record<string, unknown>): Promise<Client> {
    const client = new Client({ name: 'e2e-host', version: '1.0.0' }, { capabilities });
    clients.push(client);
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/t/acme/mcp`)));
    return client;
  }

  it('publishes both servers’ identical ui:// URIs, each under its server', () => {
    const names = published.map((p) => (p.items as Array<{ exposedName: string }>).map((i) => i.exposedName));
    expect(names).toEqual([
      ['alpha_show', ALPHA_CARD],
      ['beta_show', BETA_CARD],
    ]);
  });

  it('serves a declaring client both views, each read from its own server, and hides them from others', async () => {
    const host = await connect(APPS_CAPABILITIES);
    const tools = await until('the published catalog at the gateway', async () => {
      const listed = (await host.listTools()).tools;
      return listed.length === 2 ? listed : undefined;
    });
    expect(Object.fromEntries(tools.map((t) => [t.name, t._meta]))).toEqual({
      alpha_show: { ui: { resourceUri: ALPHA_CARD } },
      beta_show: { ui: { resourceUri: BETA_CARD } },
    });
    expect((await host.listResources()).resources).toEqual([
      expect.objectContaining({ uri: ALPHA_CARD, mimeType: MCP_APP_MIME, _meta: { ui: { csp: alpha.csp, prefersBorder: true } } }),
      expect.objectContaining({ uri: BETA_CARD, mimeType: MCP_APP_MIME, _meta: { ui: { csp: beta.csp, prefersBorder: true } } }),
    ]);
    const read = await host.readResource({ uri: BETA_CARD });
    expect(read.contents).toEqual([expect.objectContaining({ uri: BETA_CARD, text: '<html><body>beta view</body></html>' })]);
    expect(beta.reads).toContain(APP_CARD_URI);

    const plain = await connect({});
    expect((await plain.listTools()).tools.map((t) => t._meta)).toEqual([undefined, undefined]);
    expect((await plain.listResources()).resources).toEqual([]);
    await expect(plain.readResource({ uri: ALPHA_CARD })).rejects.toMatchObject({ code: -32002 });
  });

  it('previews which clients of each surface get the UI', async () => {
    const preview = await api(registry.url, key, 'GET', '/v1/preview?version=2025-11-25');
    expect(preview.status).toBe(200);
    expect(preview.body.mcpApps).toEqual({
      extension: 'io.modelcontextprotocol/ui',
      tools: [
        { name: 'alpha_show', resourceUri: ALPHA_CARD },
        { name: 'beta_show', resourceUri: BETA_CARD },
      ],
      resources: [
        { uri: ALPHA_CARD, serverId: 'alpha', upstreamUri: APP_CARD_URI, mimeType: MCP_APP_MIME },
        { uri: BETA_CARD, serverId: 'beta', upstreamUri: APP_CARD_URI, mimeType: MCP_APP_MIME },
      ],
      surfaces: [
        { id: 'generic', label: 'Spec-pure (any MCP client)', audience: 'declaring-clients' },
        { id: 'claude', label: 'Claude (claude.ai, Desktop, Code)', audience: 'declaring-clients' },
        { id: 'openai', label: 'ChatGPT / OpenAI Apps SDK', audience: 'every-client' },
      ],
    });
    const surfaces = preview.body.surfaces as Record<string, { tools: Array<{ name: string; _meta?: unknown }> }>;
    expect(Object.keys(surfaces)).toEqual(['generic', 'claude', 'openai', 'generic+apps', 'claude+apps']);
    expect(surfaces.claude!.tools[0]!._meta).toBeUndefined();
    expect(surfaces['claude+apps']!.tools[0]!._meta).toEqual({ ui: { resourceUri: ALPHA_CARD } });
  });

  it('shows the MCP Apps card on the console’s Preview page', async () => {
    let b: ConsoleBrowser | undefined;
    try {
      b = await openConsoleBrowser();
      await signInWithKey(b.page, registry.url, key, 'Preview');
      const card = b.page.getByTestId('preview-mcp-apps');
      await card.waitFor();
      expect(await card.getByTestId('apps-surface-claude').textContent()).toContain('only when the client declares the extension');
      expect(await card.getByTestId('apps-surface-openai').textContent()).toContain('every client gets the UI');
      expect(await card.getByTestId('apps-resources').textContent()).toContain(`${BETA_CARD} ← beta ${APP_CARD_URI}`);
      await expectIntact(b);
      await b.shot('preview-mcp-apps');
    } finally {
      await b?.close();
    }
  });
});

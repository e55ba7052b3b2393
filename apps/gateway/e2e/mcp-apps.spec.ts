/**
 * Issue 45 item 3, MCP Apps through the gateway (SEP-1865, `io.modelcontextprotocol/ui`): one
 * file tenant multiplexes two SDK-built app servers that both publish `ui://widget/card.html`.
 * A client that declares the extension (in `initialize` for a legacy session, in each request's
 * `_meta` in 2026-07-28) gets `_meta.ui` and the UI resources with their CSP, under per-server
 * URIs whose reads reach the right server; a client that does not never sees them. Browser-free.
 */
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { APP_CARD_URI as CARD_URI, MCP_APP_MIME, startAppUpstream, type AppUpstream } from '@switchboard/testing';
import {
  POST_HEADERS,
  finalMessage,
  httpPost,
  modernHeaders,
  modernMeta,
  type Json,
  startGateway,
  type TestGateway,
} from './support/harness';

jest.setTimeout(60_000);

const UI_EXTENSION = 'io.modelcontextprotocol/ui';
const APPS_CAPABILITIES = { extensions: { [UI_EXTENSION]: { mimeTypes: [MCP_APP_MIME] } } };
const ALPHA_CARD = 'ui://alpha/widget/card.html';
const BETA_CARD = 'ui://beta/widget/card.html';

let alpha: AppUpstream;
let beta: AppUpstream;
let gateway: TestGateway;
let nextId = 1;

beforeAll(async () => {
  [alpha, beta] = await Promise.all([startAppUpstream('alpha'), startAppUpstream('beta')]);
  gateway = await startGateway({
    tenants: [
      {
        id: 'apps',
        name: 'Apps',
        catalogs: [
          { upstream: { id: 'alpha', url: alpha.url, prefix: 'alpha_' } },
          { upstream: { id: 'beta', url: beta.url, prefix: 'beta_' } },
        ],
      },
    ],
    env: { GATEWAY_STATE_KEYS: randomBytes(32).toString('base64'), UPSTREAM_TIMEOUT_MS: '10000' },
    listen: true,
  });
});

afterAll(async () => {
  await gateway?.close();
  await alpha?.stop();
  await beta?.stop();
});

async function legacyClient(capabilities: Json): Promise<Client> {
  const client = new Client({ name: 'e2e-host', version: '1.0.0' }, { capabilities });
  await client.connect(new StreamableHTTPClientTransport(new URL(gateway.mcpUrl('apps'))));
  return client;
}

/** One 2026-07-28 request; `apps` puts the extension in the request's client capabilities. */
async function modern(method: string, params: Json, apps: boolean, name?: string): Promise<Json> {
  const meta = modernMeta('e2e-host', { 'io.modelcontextprotocol/clientCapabilities': apps ? APPS_CAPABILITIES : {} });
  const res = await httpPost(
    gateway.mcpUrl('apps'),
    { jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: meta } },
    modernHeaders(method, name),
  );
  return finalMessage(res);
}

function byName(tools: Array<{ name: string; _meta?: Json }>): Record<string, Json | undefined> {
  return Object.fromEntries(tools.map((t) => [t.name, t._meta]));
}

describe('legacy era (the extension declared in initialize)', () => {
  test('a host that declares it gets _meta.ui, both servers’ views under their own URIs, and reads routed back', async () => {
    const host = await legacyClient(APPS_CAPABILITIES);
    try {
      const meta = byName((await host.listTools()).tools as Array<{ name: string; _meta?: Json }>);
      expect(meta).toEqual({ alpha_show: { ui: { resourceUri: ALPHA_CARD } }, beta_show: { ui: { resourceUri: BETA_CARD } } });
      const resources = (await host.listResources()).resources;
      expect(resources.map((r) => r.uri).sort()).toEqual(['docs://alpha/readme', 'docs://beta/readme', ALPHA_CARD, BETA_CARD]);
      expect(resources.find((r) => r.uri === BETA_CARD)).toMatchObject({
        mimeType: MCP_APP_MIME,
        _meta: { ui: { csp: beta.csp, prefersBorder: true } },
      });
      for (const [uri, server] of [
        [ALPHA_CARD, alpha],
        [BETA_CARD, beta],
      ] as const) {
        const before = server.reads.length;
        const read = await host.readResource({ uri });
        expect(read.contents).toEqual([
          {
            uri,
            mimeType: MCP_APP_MIME,
            text: `<html><body>${uri === ALPHA_CARD ? 'alpha' : 'beta'} view</body></html>`,
            _meta: { ui: { csp: server.csp } },
          },
        ]);
        expect(server.reads.slice(before)).toEqual([CARD_URI]);
      }
      const called = await host.callTool({ name: 'beta_show', arguments: {} });
      expect(called.structuredContent).toEqual({ server: 'beta' });
    } finally {
      await host.close();
    }
  });

  test('a client that does not declare it sees no _meta.ui, no ui:// resource, and cannot read one', async () => {
    const plain = await legacyClient({});
    try {
      const meta = byName((await plain.listTools()).tools as Array<{ name: string; _meta?: Json }>);
      expect(meta).toEqual({ alpha_show: undefined, beta_show: undefined });
      expect((await plain.listResources()).resources.map((r) => r.uri).sort()).toEqual(['docs://alpha/readme', 'docs://beta/readme']);
      const before = alpha.reads.length;
      await expect(plain.readResource({ uri: ALPHA_CARD })).rejects.toMatchObject({
        code: -32002,
        message: expect.stringContaining(`declare the "${UI_EXTENSION}" extension`),
      });
      expect(alpha.reads.length).toBe(before);
      expect((await plain.readResource({ uri: 'docs://alpha/readme' })).contents).toEqual([
        { uri: 'docs://alpha/readme', text: 'alpha readme' },
      ]);
    } finally {
      await plain.close();
    }
  });
});

describe('2026-07-28 era (the extension declared per request)', () => {
  test('the same client gets the UI on requests that declare it and not on those that do not', async () => {
    const withApps = (await modern('tools/list', {}, true)).result as { tools: Array<{ name: string; _meta?: Json }> };
    expect(byName(withApps.tools)).toEqual({
      alpha_show: { ui: { resourceUri: ALPHA_CARD } },
      beta_show: { ui: { resourceUri: BETA_CARD } },
    });
    const without = (await modern('tools/list', {}, false)).result as { tools: Array<{ name: string; _meta?: Json }> };
    expect(byName(without.tools)).toEqual({ alpha_show: undefined, beta_show: undefined });

    const listed = (await modern('resources/list', {}, true)).result as { resources: Array<{ uri: string; _meta?: Json }> };
    expect(listed.resources.filter((r) => r.uri.startsWith('ui://'))).toEqual([
      expect.objectContaining({ uri: ALPHA_CARD, _meta: { ui: { csp: alpha.csp, prefersBorder: true } } }),
      expect.objectContaining({ uri: BETA_CARD, _meta: { ui: { csp: beta.csp, prefersBorder: true } } }),
    ]);
    const hidden = (await modern('resources/list', {}, false)).result as { resources: Array<{ uri: string }> };
    expect(hidden.resources.map((r) => r.uri)).toEqual(['docs://alpha/readme', 'docs://beta/readme']);

    const read = (await modern('resources/read', { uri: BETA_CARD }, true, BETA_CARD)).result as { contents: Json[] };
    expect(read.contents).toEqual([expect.objectContaining({ uri: BETA_CARD, text: '<html><body>beta view</body></html>' })]);
    const refused = await modern('resources/read', { uri: BETA_CARD }, false, BETA_CARD);
    expect(refused.error).toMatchObject({ code: -32602, data: { uri: BETA_CARD } });
  });

  test('a URI no server publishes under the namespace is not found, even for an apps client', async () => {
    const res = await modern('resources/read', { uri: 'ui://gamma/widget/card.html' }, true, 'ui://gamma/widget/card.html');
    expect(res.error).toMatchObject({ code: -32602, message: expect.stringContaining('Resource not found') });
  });
});

test('ChatGPT (openai-mcp User-Agent) keeps its widgets without declaring: namespaced outputTemplate and views', async () => {
  const chatgpt = async (method: string, params: Json): Promise<Json> =>
    finalMessage(
      await httpPost(
        gateway.mcpUrl('apps'),
        { jsonrpc: '2.0', id: nextId++, method, params },
        { ...POST_HEADERS, 'mcp-protocol-version': '2025-11-25', 'user-agent': 'openai-mcp/1.0' },
      ),
    ).result as Json;
  const tools = (await chatgpt('tools/list', {})).tools as Array<{ name: string; _meta?: Json }>;
  expect(byName(tools).alpha_show).toEqual({ ui: { resourceUri: ALPHA_CARD }, 'openai/outputTemplate': ALPHA_CARD });
  const resources = (await chatgpt('resources/list', {})).resources as Array<{ uri: string }>;
  expect(resources.map((r) => r.uri)).toContain(ALPHA_CARD);
  const read = (await chatgpt('resources/read', { uri: ALPHA_CARD })).contents as Json[];
  expect(read).toEqual([expect.objectContaining({ uri: ALPHA_CARD, text: '<html><body>alpha view</body></html>' })]);
});

/**
 * Issue 42 item 1 for a file-configured tenant: the gateway's own boot-time discovery of the
 * official reference server (`@modelcontextprotocol/server-everything`, stateful) declares the
 * capabilities it relays, so the tools that server registers only for capable clients are in
 * the catalog with their requirements; a client declaring the capability gets the upstream's
 * request relayed, one without it gets -32021 naming it.
 */
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { startEverythingServer } from '@switchboard/testing';
import { startGateway, type TestGateway } from './support/harness';

jest.setTimeout(60_000);

let everything: Awaited<ReturnType<typeof startEverythingServer>>;
let gateway: TestGateway;

beforeAll(async () => {
  everything = await startEverythingServer();
  gateway = await startGateway({
    tenants: [{ id: 'ev', name: 'Everything', catalogs: [{ upstream: { id: 'everything', url: everything.url, stateful: true } }] }],
    env: { GATEWAY_STATE_KEYS: randomBytes(32).toString('base64'), UPSTREAM_TIMEOUT_MS: '10000' },
    listen: true,
  });
});

afterAll(async () => {
  await gateway?.close();
  await everything?.stop();
});

it('lists the gated tools, relays a capable client’s sampling and refuses a client without it by name', async () => {
  const capable = new Client({ name: 'capable', version: '1.0.0' }, { capabilities: { sampling: {} } });
  capable.setRequestHandler(CreateMessageRequestSchema, async () => ({
    role: 'assistant',
    model: 'e2e',
    content: { type: 'text', text: 'sampled from the file tenant' },
  }));
  await capable.connect(new StreamableHTTPClientTransport(new URL(gateway.mcpUrl('ev'))));
  const bare = new Client({ name: 'bare', version: '1.0.0' });
  await bare.connect(new StreamableHTTPClientTransport(new URL(gateway.mcpUrl('ev'))));
  try {
    const names = (await capable.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'get-roots-list',
        'trigger-elicitation-request',
        'trigger-url-elicitation',
        'trigger-sampling-request',
        'echo',
      ]),
    );
    const sampled = await capable.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hi', maxTokens: 5 } });
    expect(JSON.stringify(sampled.content)).toContain('sampled from the file tenant');
    await expect(bare.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hi' } })).rejects.toMatchObject({
      code: -32021,
      message:
        'MCP error -32021: Tool trigger-sampling-request needs the client capability sampling, which this client did not declare in initialize',
    });
    await expect(capable.callTool({ name: 'get-roots-list', arguments: {} })).rejects.toMatchObject({
      code: -32021,
      data: { missing: ['roots'] },
    });
  } finally {
    await capable.close();
    await bare.close();
  }
});

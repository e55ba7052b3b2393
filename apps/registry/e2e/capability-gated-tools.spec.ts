// Issue 42 items 1 and 3 against the official reference server (`@modelcontextprotocol/server-everything`,
// not written here), registered stateful through the admin API: discovery declares the client
// capabilities the gateway relays, so the tools that server registers only for capable clients
// are discovered with the capabilities they need; the gateway serves them to a client declaring
// those capabilities (relaying the upstream's request to it) and refuses them with -32021 naming
// the capability to one that does not, in both eras. completion/complete reaches the upstream
// owning the prompt or template under its own name, and what comes back is bounded.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CompleteRequestSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { startEverythingServer } from '@switchboard/testing';
import { z } from 'zod';
import {
  api,
  cleanRedis,
  createDatabase,
  createTenant,
  READ_ONLY_HINTS,
  registerAndDiscover,
  serveStateless,
  startGateway,
  startRegistry,
  testEnv,
  until,
  type Proc,
} from './support/harness';

jest.setTimeout(90_000);

const GATED: Record<string, string[]> = {
  'get-roots-list': ['roots'],
  'trigger-elicitation-request': ['elicitation'],
  'trigger-url-elicitation': ['elicitation', 'elicitation.url'],
  'trigger-sampling-request': ['sampling'],
  'trigger-sampling-request-async': ['sampling', 'tasks'],
  'trigger-elicitation-request-async': ['elicitation', 'tasks'],
};
const TEXT_TEMPLATE = 'demo://resource/dynamic/text/{resourceId}';

/** A hostile upstream whose prompt completion answers 150 values, one of them 2 000 characters long. */
async function startFloodingUpstream(): Promise<{ url: string; close(): Promise<void> }> {
  const build = () => {
    const server = new McpServer({ name: 'flood', version: '1.0.0' });
    const values = [`long-${'x'.repeat(2_000)}`, ...Array.from({ length: 149 }, (_, i) => `v${i}`)];
    server.registerPrompt('many', { description: 'Completes to too much', argsSchema: { pick: z.string() } }, ({ pick }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: pick } }],
    }));
    // Its own handler, not the SDK's (which cuts at 100 itself): a hostile server sends what it likes.
    server.server.registerCapabilities({ completions: {} });
    server.server.setRequestHandler(CompleteRequestSchema, () => ({ completion: { values, total: 150, hasMore: false } }) as never);
    return server;
  };
  const http: Server = createServer((req, res) => void serveStateless(build(), req, res));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://localhost:${(http.address() as AddressInfo).port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

describe('capability-gated tools and completions of a real reference server, through registry and gateway', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let gateway: Proc;
  let everything: Awaited<ReturnType<typeof startEverythingServer>>;
  let flood: Awaited<ReturnType<typeof startFloodingUpstream>>;
  let key: string;
  let mcpUrl: string;

  beforeAll(async () => {
    db = await createDatabase();
    everything = await startEverythingServer();
    flood = await startFloodingUpstream();
    registry = await startRegistry(env, db.url, { DISCOVERY_TIMEOUT_MS: '10000' });
    key = await createTenant(registry.url, env.operatorKey, 'acme');
  });

  afterAll(async () => {
    await gateway?.stop();
    await registry?.stop();
    await everything?.stop();
    await flood?.close();
    await db?.drop();
    await cleanRedis(env);
  });

  it('discovers the tools the server registers only for capable clients, each with the capabilities it needs', async () => {
    const server = await registerAndDiscover(registry.url, key, {
      id: 'everything',
      name: 'Everything',
      url: everything.url,
      stateful: true,
    });
    expect(server.health).toBe('ok');
    const items = (await api(registry.url, key, 'GET', '/v1/servers/everything/items')).body.items as Array<{
      kind: string;
      name: string;
      definition: Record<string, unknown>;
    }>;
    const tools = new Map(items.filter((i) => i.kind === 'tool').map((i) => [i.name, i.definition]));
    expect(tools.size).toBe(19);
    for (const [name, needs] of Object.entries(GATED)) expect([name, tools.get(name)?.requiredClientCapabilities]).toEqual([name, needs]);
    // Registered for every client (it needs a task-capable client only to be called): no requirement recorded.
    expect(tools.get('simulate-research-query')).toBeDefined();
    expect(tools.get('simulate-research-query')?.requiredClientCapabilities).toBeUndefined();
    expect(tools.get('echo')?.requiredClientCapabilities).toBeUndefined();

    const published = await api(registry.url, key, 'POST', '/v1/publications', {
      serverId: 'everything',
      items: [
        ...['echo', ...Object.keys(GATED)].map((name) => ({ name, overrides: { annotations: READ_ONLY_HINTS } })),
        // Published under another name: completions must reach the upstream under its own.
        { kind: 'prompt', name: 'completable-prompt', exposedName: 'team-lead' },
        { kind: 'resource_template', name: TEXT_TEMPLATE },
      ],
    });
    expect(published.status).toBe(200);

    await registerAndDiscover(registry.url, key, { id: 'flood', name: 'Flood', url: flood.url });
    expect(
      (await api(registry.url, key, 'POST', '/v1/publications', { serverId: 'flood', items: [{ kind: 'prompt', name: 'many' }] })).status,
    ).toBe(200);

    gateway = await startGateway(env, registry.url, { UPSTREAM_ALLOW_HTTP_HOSTS: '127.0.0.1,localhost', UPSTREAM_TIMEOUT_MS: '10000' });
    mcpUrl = `${gateway.url}/t/acme/mcp`;
  });

  /** An SDK 1.x client declaring every capability the gateway relays, answering each request. */
  async function capableLegacyClient(asked: string[]): Promise<Client> {
    // It declares tasks too (2025-11-25 shape), which the gateway cannot relay.
    const client = new Client(
      { name: 'capable', version: '1.0.0' },
      {
        capabilities: {
          sampling: {},
          elicitation: { form: {}, url: {} },
          roots: { listChanged: true },
          tasks: { requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } },
        },
      },
    );
    client.setRequestHandler(CreateMessageRequestSchema, async () => {
      asked.push('sampling/createMessage');
      return { role: 'assistant', model: 'e2e-model', content: { type: 'text', text: 'sampled by the client' } };
    });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(`elicitation/create:${request.params.mode ?? 'form'}`);
      return request.params.mode === 'url' ? { action: 'accept' } : { action: 'accept', content: { name: 'Ada Lovelace' } };
    });
    client.setRequestHandler(ListRootsRequestSchema, async () => {
      asked.push('roots/list');
      return { roots: [{ uri: 'file:///work/project', name: 'project' }] };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
    return client;
  }

  const text = (result: unknown): string =>
    ((result as { content?: Array<{ text?: string }> }).content ?? []).map((c) => c.text ?? '').join('\n');

  it('lists the gated tools and relays each tool call’s request to a capable 2025-11-25 client', async () => {
    const asked: string[] = [];
    const client = await capableLegacyClient(asked);
    try {
      const listed = await until('the published catalog on the gateway', async () => {
        const names = (await client.listTools()).tools.map((t) => t.name);
        return names.includes('trigger-sampling-request') ? names : undefined;
      });
      expect(listed.sort()).toEqual(['echo', ...Object.keys(GATED)].sort());

      const sampled = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'say hi', maxTokens: 20 } });
      expect(sampled.isError).toBeFalsy();
      expect(text(sampled)).toContain('sampled by the client');

      const elicited = await client.callTool({ name: 'trigger-elicitation-request', arguments: {} });
      expect(elicited.isError).toBeFalsy();
      expect(text(elicited)).toContain('Ada Lovelace');

      const url = await client.callTool({
        name: 'trigger-url-elicitation',
        arguments: { url: 'https://example.com/consent', message: 'Open this to consent' },
      });
      expect(url.isError).toBeFalsy();
      expect(text(url)).toContain('User completed the URL elicitation flow');
      expect(asked.filter((m) => m !== 'roots/list')).toEqual([
        'sampling/createMessage',
        'elicitation/create:form',
        'elicitation/create:url',
      ]);

      // The server asks for roots outside any request, on its session's own stream: this caller
      // declared roots, so the session is its own and the question goes to its call in flight.
      const roots = await client.callTool({ name: 'get-roots-list', arguments: {} });
      expect(roots.isError).toBeFalsy();
      expect(text(roots)).toContain('file:///work/project');
      expect(asked).toContain('roots/list');

      // Task-augmented requests to the client are not relayed: refused by name even to a client declaring tasks.
      await expect(client.callTool({ name: 'trigger-sampling-request-async', arguments: { prompt: 'x' } })).rejects.toMatchObject({
        code: -32021,
        message: expect.stringContaining(
          'Tool trigger-sampling-request-async needs the client capability tasks on the upstream session, which this gateway does not relay',
        ),
      });
    } finally {
      await client.close();
    }
  });

  it('refuses a gated tool to a 2025-11-25 client without the capability, naming it (-32021)', async () => {
    const client = new Client({ name: 'bare', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
    try {
      await expect(client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'x' } })).rejects.toMatchObject({
        code: -32021,
        message:
          'MCP error -32021: Tool trigger-sampling-request needs the client capability sampling, which this client did not declare in initialize',
        data: { requiredCapabilities: ['sampling'], missing: ['sampling'] },
      });
      await expect(
        client.callTool({ name: 'trigger-url-elicitation', arguments: { url: 'https://example.com', message: 'm' } }),
      ).rejects.toMatchObject({
        code: -32021,
        data: { missing: ['elicitation', 'elicitation.url'] },
      });
      // Ungated tools of the same server still work for it.
      expect(text(await client.callTool({ name: 'echo', arguments: { message: 'plain' } }))).toContain('plain');
    } finally {
      await client.close();
    }
    // Form-only elicitation is not URL mode.
    const formOnly = new Client({ name: 'form-only', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    await formOnly.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
    try {
      await expect(
        formOnly.callTool({ name: 'trigger-url-elicitation', arguments: { url: 'https://example.com', message: 'm' } }),
      ).rejects.toMatchObject({
        code: -32021,
        message: expect.stringContaining('needs the client capability elicitation.url'),
      });
    } finally {
      await formOnly.close();
    }
  });

  it('serves the gated tools to a 2026-07-28 client declaring the capability in _meta, and refuses the others', async () => {
    const asked: string[] = [];
    const client = new V2Client(
      { name: 'modern', version: '2.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { sampling: {}, elicitation: { form: {}, url: {} } } },
    );
    client.setRequestHandler('sampling/createMessage', async () => {
      asked.push('sampling/createMessage');
      return { role: 'assistant', model: 'e2e-model', content: { type: 'text', text: 'sampled on 2026-07-28' } };
    });
    client.setRequestHandler('elicitation/create', async (request) => {
      const mode = (request.params as { mode?: string }).mode ?? 'form';
      asked.push(`elicitation/create:${mode}`);
      return mode === 'url' ? { action: 'accept' } : { action: 'accept', content: { name: 'Grace Hopper' } };
    });
    await client.connect(new V2Transport(new URL(mcpUrl)));
    try {
      const sampled = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'say hi', maxTokens: 20 } });
      expect(text(sampled)).toContain('sampled on 2026-07-28');
      const elicited = await client.callTool({ name: 'trigger-elicitation-request', arguments: {} });
      expect(text(elicited)).toContain('Grace Hopper');
      const url = await client.callTool({
        name: 'trigger-url-elicitation',
        arguments: { url: 'https://example.com/consent', message: 'Open this to consent' },
      });
      expect(text(url)).toContain('User completed the URL elicitation flow');
      expect(asked).toEqual(['sampling/createMessage', 'elicitation/create:form', 'elicitation/create:url']);
    } finally {
      await client.close();
    }

    const res = await fetch(mcpUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'get-roots-list',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'get-roots-list',
          arguments: {},
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': { sampling: {} },
            'io.modelcontextprotocol/clientInfo': { name: 'fetch', version: '1' },
          },
        },
      }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: unknown }).error).toEqual({
      code: -32021,
      message: 'Tool get-roots-list needs the client capability roots, which this client did not declare',
      data: { requiredCapabilities: ['roots'], missing: ['roots'] },
    });
  });

  it('forwards completion/complete to the upstream owning the prompt or template, in both eras', async () => {
    const legacy = new Client({ name: 'completer', version: '1.0.0' });
    await legacy.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
    const modern = new V2Client({ name: 'completer', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await modern.connect(new V2Transport(new URL(mcpUrl)));
    try {
      for (const client of [legacy, modern] as Array<Pick<Client, 'complete'>>) {
        const departments = await client.complete({
          ref: { type: 'ref/prompt', name: 'team-lead' },
          argument: { name: 'department', value: 'S' },
        });
        expect(departments.completion).toMatchObject({ values: ['Sales', 'Support'], hasMore: false });
        // The already-chosen arguments travel along (the server narrows names by department).
        const names = await client.complete({
          ref: { type: 'ref/prompt', name: 'team-lead' },
          argument: { name: 'name', value: '' },
          context: { arguments: { department: 'Engineering' } },
        });
        expect(names.completion.values).toEqual(['Alice', 'Bob', 'Charlie']);
        const ids = await client.complete({
          ref: { type: 'ref/resource', uri: TEXT_TEMPLATE },
          argument: { name: 'resourceId', value: '7' },
        });
        expect(ids.completion.values).toEqual(['7']);
      }
      await expect(
        legacy.complete({ ref: { type: 'ref/prompt', name: 'completable-prompt' }, argument: { name: 'department', value: '' } }),
      ).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('Unknown prompt: completable-prompt'),
      });
    } finally {
      await legacy.close();
      await modern.close();
    }
  });

  it('bounds what an upstream completes: at most 100 values, none longer than 1024 characters, in both eras', async () => {
    const legacy = new Client({ name: 'completer', version: '1.0.0' });
    await legacy.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
    const modern = new V2Client({ name: 'completer', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await modern.connect(new V2Transport(new URL(mcpUrl)));
    try {
      for (const client of [legacy, modern] as Array<Pick<Client, 'complete'>>) {
        const answer = await until('the flood prompt on the gateway', async () =>
          client.complete({ ref: { type: 'ref/prompt', name: 'many' }, argument: { name: 'pick', value: '' } }),
        );
        expect(answer.completion.values).toHaveLength(100);
        expect(answer.completion.values[0]).toBe('v0');
        expect(answer.completion.values.every((v) => v.length <= 1024)).toBe(true);
        expect(answer.completion).toMatchObject({ total: 150, hasMore: true });
      }
    } finally {
      await legacy.close();
      await modern.close();
    }
  });
});

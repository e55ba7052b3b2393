/**
 * Server→client requests on a stateless, replicated edge (issue 14): a legacy tools/call that
 * needs client input sends `elicitation/create` / `sampling/createMessage` down its own SSE
 * stream; the client's answer POST may land on another replica and is routed back to the
 * waiting call through Redis. Two real gateways share GATEWAY_STATE_KEYS and Redis (a
 * namespace of this test's own); the SDK 1.x client goes through a round-robin TCP proxy.
 */
import { randomBytes } from 'node:crypto';
import { roundRobinProxy } from '../../../scripts/round-robin-proxy.cjs';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as SdkTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { sseMessages } from '@switchboard/testing';
import { LEGACY, POST_HEADERS, startGateway, type Json, type TestGateway } from './support/harness';

const TENANTS: Array<{ id: string; name: string; catalogs: unknown[] }> = [
  { id: 'conf', name: 'Conformance', catalogs: [{ builtin: 'conformance' }] },
  { id: 'other', name: 'Other', catalogs: [{ builtin: 'conformance' }] },
];

let a: TestGateway;
let b: TestGateway;
let upstream: { url: string; close(): Promise<void> };

/**
 * A tenant's upstream built with the SDK 1.x, stateful (its documented session setup: a
 * client's answer to a server→client request comes back as a new POST that must reach the
 * same server): `book_trip` asks the user where to go through `elicitation/create` on the
 * call's stream, then answers.
 */
async function elicitingUpstream(): Promise<{ url: string; close(): Promise<void> }> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const newServer = (): McpServer => {
    const server = new McpServer({ name: 'trips', version: '1.0.0' });
    server.registerTool(
      'book_trip',
      { description: 'Books a trip after asking where to', inputSchema: { traveller: z.string() } },
      async ({ traveller }, extra) => {
        const answer = await extra.sendRequest(
          {
            method: 'elicitation/create',
            params: {
              message: `Where should ${traveller} go?`,
              requestedSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
            },
          },
          ElicitResultSchema,
        );
        const city = answer.action === 'accept' ? String((answer.content as { city?: unknown } | undefined)?.city) : `(${answer.action})`;
        return { content: [{ type: 'text', text: `booked ${traveller} to ${city}` }] };
      },
    );
    return server;
  };
  const http: HttpServer = createHttpServer((req, res) => {
    const id = req.headers['mcp-session-id'];
    const known = typeof id === 'string' ? sessions.get(id) : undefined;
    if (known) return void known.handleRequest(req, res);
    if (typeof id === 'string') return void res.writeHead(404).end();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomBytes(8).toString('hex'),
      onsessioninitialized: (sid) => void sessions.set(sid, transport),
    });
    void newServer()
      .connect(transport)
      .then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as { port: number }).port}/mcp`,
    close: async () => {
      await Promise.all([...sessions.values()].map((t) => t.close().catch(() => undefined)));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

beforeAll(async () => {
  upstream = await elicitingUpstream();
  TENANTS.push({ id: 'trips', name: 'Trips', catalogs: [{ upstream: { id: 'trips', url: upstream.url, stateful: true } }] });
  const shared = {
    GATEWAY_STATE_KEYS: randomBytes(32).toString('base64'),
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_NAMESPACE: `e2e-s2c-${randomBytes(4).toString('hex')}:`,
    CATALOG_SOURCES: 'file',
    // With REDIS_URL the gateway guards upstream URLs against SSRF; the test upstream is on loopback.
    UPSTREAM_ALLOW_HTTP_HOSTS: '127.0.0.1',
  };
  a = await startGateway({ tenants: TENANTS, env: { ...shared, GATEWAY_REPLICA_ID: 'replica-a' }, listen: true });
  b = await startGateway({ tenants: TENANTS, env: { ...shared, GATEWAY_REPLICA_ID: 'replica-b' }, listen: true });
});

afterAll(async () => {
  await a?.close();
  await b?.close();
  await upstream?.close();
});

const legacyHeaders = (session?: string): Record<string, string> => ({
  ...POST_HEADERS,
  'mcp-protocol-version': LEGACY,
  ...(session === undefined ? {} : { 'mcp-session-id': session }),
});

/** A legacy initialize declaring `capabilities`; returns the sealed session id. */
async function initialize(gw: TestGateway, tenant: string, capabilities: Json): Promise<string> {
  const res = await fetch(gw.mcpUrl(tenant), {
    method: 'POST',
    headers: { ...POST_HEADERS },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: LEGACY, capabilities, clientInfo: { name: 'e2e', version: '1' } },
    }),
  });
  expect(res.status).toBe(200);
  await res.text();
  const session = res.headers.get('mcp-session-id');
  expect(session).toMatch(/^[\x21-\x7e]+$/);
  return session!;
}

async function callElicitation(gw: TestGateway, tenant: string, session: string): Promise<{ next: () => Promise<Json>; request: Json }> {
  const res = await fetch(gw.mcpUrl(tenant), {
    method: 'POST',
    headers: legacyHeaders(session),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'test_elicitation', arguments: { message: 'Who are you?' } },
    }),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  const next = sseMessages<Json>(res);
  const request = await next();
  return { next, request };
}

function answer(gw: TestGateway, tenant: string, session: string, id: unknown, result: Json): Promise<Response> {
  return fetch(gw.mcpUrl(tenant), {
    method: 'POST',
    headers: legacyHeaders(session),
    body: JSON.stringify({ jsonrpc: '2.0', id, result }),
  });
}

const ACCEPT = { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } };

test('an elicitation asked on replica A is answered through replica B and the call finishes on A', async () => {
  const session = await initialize(a, 'conf', { elicitation: {} });
  const { next, request } = await callElicitation(a, 'conf', session);
  expect(request).toMatchObject({ jsonrpc: '2.0', method: 'elicitation/create', params: { message: 'Who are you?' } });
  expect(typeof request.id).toBe('string');

  const delivered = await answer(b, 'conf', session, request.id, ACCEPT);
  expect(delivered.status).toBe(202);

  const final = await next();
  expect(final.id).toBe(2);
  const text = JSON.stringify(final.result);
  expect(text).toContain('action=accept');
  expect(text).toContain('ada@example.com');
});

test('an answer is refused (404, nothing delivered) from another tenant, for an unknown id, and once spent', async () => {
  const session = await initialize(a, 'conf', { elicitation: {} });
  const { next, request } = await callElicitation(a, 'conf', session);
  const otherSession = await initialize(b, 'other', { elicitation: {} });

  const foreign = await answer(b, 'other', otherSession, request.id, ACCEPT);
  expect(foreign.status).toBe(404);
  expect(((await foreign.json()) as { error: { message: string } }).error.message).toContain('No server-to-client request');
  const forged = await answer(b, 'conf', session, 'made-up-id', ACCEPT);
  expect(forged.status).toBe(404);

  // A decline makes this fixture ask again: a new request with a new id; the old id is spent.
  expect((await answer(b, 'conf', session, request.id, { action: 'decline' })).status).toBe(202);
  const again = await next();
  expect(again).toMatchObject({ method: 'elicitation/create' });
  expect(again.id).not.toBe(request.id);
  expect((await answer(a, 'conf', session, request.id, ACCEPT)).status).toBe(404);
  expect((await answer(a, 'conf', session, again.id, ACCEPT)).status).toBe(202);
  expect(JSON.stringify(await next())).toContain('action=accept');
});

test("a session id from another tenant or another key is 'session not found' (404), and a client without a session is told to use one", async () => {
  const session = await initialize(a, 'conf', { elicitation: {} });
  const res = await fetch(a.mcpUrl('other'), {
    method: 'POST',
    headers: legacyHeaders(session),
    body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }),
  });
  expect(res.status).toBe(404);
  expect(((await res.json()) as { error: { message: string } }).error.message).toContain('Session not found');

  const noSession = await fetch(a.mcpUrl('conf'), {
    method: 'POST',
    headers: legacyHeaders(),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/call',
      params: { name: 'test_elicitation', arguments: { message: 'x' } },
    }),
  });
  const body = (await noSession.json()) as { result: { isError: boolean; content: Array<{ text: string }> } };
  expect(body.result.isError).toBe(true);
  expect(body.result.content[0]!.text).toContain('Mcp-Session-Id');
});

/** A loopback TCP proxy alternating between the two gateways per connection. */
async function roundRobin(targets: string[]): Promise<{ url: string; close(): Promise<void> }> {
  const proxy = await roundRobinProxy(targets.map((t) => Number(new URL(t).port)));
  return { url: `http://127.0.0.1:${proxy.port}`, close: () => proxy.close() };
}

test('the SDK 1.x client answers elicitation and sampling through two gateways behind a round-robin proxy', async () => {
  const proxy = await roundRobin([a.baseUrl, b.baseUrl]);
  const client = new SdkClient({ name: 'e2e-sdk', version: '1.0.0' }, { capabilities: { elicitation: {}, sampling: {} } });
  client.setRequestHandler(ElicitRequestSchema, async () => ACCEPT);
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({
    role: 'assistant',
    model: 'test',
    content: { type: 'text', text: 'sampled-42' },
  }));
  try {
    await client.connect(new SdkTransport(new URL(`${proxy.url}/t/conf/mcp`)));
    for (let round = 0; round < 3; round++) {
      const elicited = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who?' } });
      expect(JSON.stringify(elicited)).toContain('ada@example.com');
      const sampled = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'Say a number' } });
      expect(JSON.stringify(sampled)).toContain('sampled-42');
    }
  } finally {
    await client.close();
    await proxy.close();
  }
});

test("an upstream's elicitation reaches the SDK 1.x client through two gateways, and its answer reaches the upstream", async () => {
  const proxy = await roundRobin([a.baseUrl, b.baseUrl]);
  const asked: string[] = [];
  const client = new SdkClient({ name: 'e2e-relay', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(String(request.params.message));
    return { action: 'accept', content: { city: 'Lisbon' } };
  });
  try {
    await client.connect(new SdkTransport(new URL(`${proxy.url}/t/trips/mcp`)));
    for (const traveller of ['ada', 'grace']) {
      const result = await client.callTool({ name: 'book_trip', arguments: { traveller } });
      expect(result).toMatchObject({ content: [{ type: 'text', text: `booked ${traveller} to Lisbon` }] });
    }
    expect(asked).toEqual(['Where should ada go?', 'Where should grace go?']);
  } finally {
    await client.close();
    await proxy.close();
  }
});

test("a client that declared no elicitation gets the upstream's failure as a tool error, not a hang", async () => {
  const client = new SdkClient({ name: 'e2e-no-caps', version: '1.0.0' });
  try {
    await client.connect(new SdkTransport(new URL(a.mcpUrl('trips'))));
    const result = await client.callTool({ name: 'book_trip', arguments: { traveller: 'ada' } });
    expect(result.isError).toBe(true);
    // The upstream was reached and its elicitation refused (not an SSRF or connection failure).
    expect(JSON.stringify(result.content)).toMatch(/elicitation|capabilit|Method not found/i);
  } finally {
    await client.close();
  }
});

test("an upstream's mid-call elicitation reaches an SDK v2 (2026-07-28) client as input_required through two gateways, and its retry resumes the parked call", async () => {
  // Round robin per request (a TCP proxy would keep the client's keep-alive connection on one
  // replica): every POST goes to the other gateway, so each retry lands where the call is not parked.
  const bases = [a.baseUrl, b.baseUrl];
  let turn = 0;
  const served: string[] = [];
  const alternating = (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const base = bases[turn++ % 2]!;
    served.push(base);
    const target = new URL(String(url instanceof Request ? url.url : url));
    return fetch(`${base}${target.pathname}${target.search}`, init);
  };
  const asked: string[] = [];
  const client = new V2Client(
    { name: 'e2e-v2', version: '2.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: {} } },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(String((request.params as { message?: unknown }).message));
    return { action: 'accept', content: { city: 'Porto' } };
  });
  try {
    await client.connect(new V2Transport(new URL(`${a.baseUrl}/t/trips/mcp`), { fetch: alternating }));
    for (const traveller of ['ada', 'grace', 'linus', 'barbara']) {
      const result = await client.callTool({ name: 'book_trip', arguments: { traveller } });
      expect(result).toMatchObject({ content: [{ type: 'text', text: `booked ${traveller} to Porto` }] });
    }
    expect(asked).toEqual(['Where should ada go?', 'Where should grace go?', 'Where should linus go?', 'Where should barbara go?']);
    expect(new Set(served)).toEqual(new Set(bases));
  } finally {
    await client.close();
  }
});

/** A modern tools/call of book_trip by plain fetch (per-request `_meta`, as a 2026-07-28 client sends it). */
function modernCall(gw: TestGateway, id: number, extra: Json = {}): Promise<Response> {
  return fetch(gw.mcpUrl('trips'), {
    method: 'POST',
    headers: { ...POST_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'book_trip' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: {
        name: 'book_trip',
        arguments: { traveller: 'ada' },
        ...extra,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
          'io.modelcontextprotocol/clientInfo': { name: 'fetch', version: '1' },
        },
      },
    }),
  });
}

async function resultOf(res: Response): Promise<Json> {
  const text = await res.text();
  const data = text.startsWith('{')
    ? text
    : text
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trim())
        .pop()!;
  return (JSON.parse(data) as { result: Json }).result;
}

test('a parked call is resumed once per round from another replica; a spent requestState is refused', async () => {
  const first = await resultOf(await modernCall(a, 10));
  expect(first).toMatchObject({
    resultType: 'input_required',
    inputRequests: { q0: { method: 'elicitation/create', params: { message: 'Where should ada go?' } } },
  });
  const requestState = first.requestState as string;
  expect(typeof requestState).toBe('string');
  const answers = { inputResponses: { q0: { action: 'accept', content: { city: 'Oslo' } } }, requestState };

  const done = await resultOf(await modernCall(b, 11, answers));
  expect(done).toMatchObject({ content: [{ type: 'text', text: 'booked ada to Oslo' }] });

  // The round is spent (the call ended): a replay is refused with −32602 naming requestState.
  const replay = await modernCall(a, 12, answers);
  const replayed = JSON.parse(await replay.text()) as { error?: { code: number; message: string } };
  expect(replayed.error?.code).toBe(-32602);
  expect(replayed.error?.message).toContain('requestState');

  // A second park, answered with a decline through the other replica.
  const other = await resultOf(await modernCall(a, 13));
  // Finish the second park so nothing is left waiting.
  const finished = await resultOf(
    await modernCall(b, 15, { inputResponses: { q0: { action: 'decline' } }, requestState: other.requestState }),
  );
  expect(finished).toMatchObject({ content: [{ type: 'text', text: 'booked ada to (decline)' }] });
});

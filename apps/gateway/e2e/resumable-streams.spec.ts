/**
 * Resumable legacy SSE streams (issue 14 item 4): a POST's SSE stream starts with a priming
 * event (sealed id, `retry:`), every event carries a sealed id and is stored in bounded Redis
 * streams; a client that lost the stream resumes it with GET + `Last-Event-ID` on any replica.
 * Two real gateways share GATEWAY_STATE_KEYS and Redis (a namespace of this test's own).
 */
import { randomBytes } from 'node:crypto';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as SdkTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { sseEvents as events, type SseEvent } from '@switchboard/testing';
import { LEGACY, POST_HEADERS, startGateway, type Json, type TestGateway } from './support/harness';

const TENANTS = [
  { id: 'conf', name: 'Conformance', catalogs: [{ builtin: 'conformance' }] },
  { id: 'other', name: 'Other', catalogs: [{ builtin: 'conformance' }] },
];

let a: TestGateway;
let b: TestGateway;

beforeAll(async () => {
  const shared = {
    GATEWAY_STATE_KEYS: randomBytes(32).toString('base64'),
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_NAMESPACE: `e2e-sse-${randomBytes(4).toString('hex')}:`,
    CATALOG_SOURCES: 'file',
  };
  a = await startGateway({ tenants: TENANTS, env: { ...shared, GATEWAY_REPLICA_ID: 'replica-a' }, listen: true });
  b = await startGateway({ tenants: TENANTS, env: { ...shared, GATEWAY_REPLICA_ID: 'replica-b' }, listen: true });
});

afterAll(async () => {
  await a?.close();
  await b?.close();
});

const headers = (session: string): Record<string, string> => ({
  ...POST_HEADERS,
  'mcp-protocol-version': LEGACY,
  'mcp-session-id': session,
});

async function initialize(gw: TestGateway, tenant: string): Promise<string> {
  const res = await fetch(gw.mcpUrl(tenant), {
    method: 'POST',
    headers: { ...POST_HEADERS },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: LEGACY, capabilities: { elicitation: {} }, clientInfo: { name: 'e2e', version: '1' } },
    }),
  });
  await res.text();
  return res.headers.get('mcp-session-id')!;
}

const ACCEPT = { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } };

/** Starts test_elicitation on `gw` and reads its priming event and the elicitation request. */
async function startCall(
  gw: TestGateway,
  session: string,
): Promise<{ abort: AbortController; priming: SseEvent; asked: SseEvent; next: () => Promise<SseEvent> }> {
  const abort = new AbortController();
  const res = await fetch(gw.mcpUrl('conf'), {
    method: 'POST',
    headers: headers(session),
    signal: abort.signal,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'test_elicitation', arguments: { message: 'Who are you?' } },
    }),
  });
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  const next = events(res);
  const priming = await next();
  const asked = await next();
  return { abort, priming, asked, next };
}

test('a stream starts with a priming event; after the client drops it, GET + Last-Event-ID on the other replica replays the rest', async () => {
  const session = await initialize(a, 'conf');
  const { abort, priming, asked } = await startCall(a, session);
  expect(priming.data).toBe('');
  expect(priming.id).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  expect(Number(priming.retry)).toBeGreaterThan(0);
  expect(asked.id).toBeDefined();
  const request = JSON.parse(asked.data) as Json;
  expect(request.method).toBe('elicitation/create');

  // The client loses its stream; the call goes on and its answer arrives through replica B.
  abort.abort();
  expect(
    (
      await fetch(b.mcpUrl('conf'), {
        method: 'POST',
        headers: headers(session),
        body: JSON.stringify({ jsonrpc: '2.0', id: request.id, result: ACCEPT }),
      })
    ).status,
  ).toBe(202);

  const resumed = await fetch(b.mcpUrl('conf'), {
    headers: { accept: 'text/event-stream', 'mcp-protocol-version': LEGACY, 'mcp-session-id': session, 'last-event-id': asked.id! },
  });
  expect(resumed.status).toBe(200);
  const next = events(resumed);
  const final = await next();
  expect(final.id).toBeDefined();
  const message = JSON.parse(final.data) as Json;
  expect(message.id).toBe(2);
  expect(JSON.stringify(message.result)).toContain('ada@example.com');

  // Resuming from the priming event replays the elicitation request too.
  const again = await fetch(a.mcpUrl('conf'), {
    headers: { accept: 'text/event-stream', 'mcp-protocol-version': LEGACY, 'last-event-id': priming.id! },
  });
  const replay = events(again);
  expect(JSON.parse((await replay()).data)).toMatchObject({ method: 'elicitation/create' });
  expect(JSON.parse((await replay()).data)).toMatchObject({ id: 2 });
});

test("a Last-Event-ID that is forged or another tenant's is 400, never another tenant's events", async () => {
  const session = await initialize(a, 'conf');
  const { abort, asked } = await startCall(a, session);
  const forged = await fetch(b.mcpUrl('conf'), {
    headers: { accept: 'text/event-stream', 'mcp-protocol-version': LEGACY, 'last-event-id': 'made-up.id' },
  });
  expect(forged.status).toBe(400);
  expect(((await forged.json()) as { error: { message: string } }).error.message).toContain('Last-Event-ID');
  const foreign = await fetch(b.mcpUrl('other'), {
    headers: { accept: 'text/event-stream', 'mcp-protocol-version': LEGACY, 'last-event-id': asked.id! },
  });
  expect(foreign.status).toBe(400);
  abort.abort();
  const request = JSON.parse(asked.data) as Json;
  await fetch(a.mcpUrl('conf'), {
    method: 'POST',
    headers: headers(session),
    body: JSON.stringify({ jsonrpc: '2.0', id: request.id, result: ACCEPT }),
  });
});

test('the SDK 1.x client still answers elicitations on streams that carry ids and a priming event', async () => {
  const client = new SdkClient({ name: 'e2e-resume', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async () => ACCEPT);
  try {
    await client.connect(new SdkTransport(new URL(a.mcpUrl('conf'))));
    const result = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who?' } });
    expect(JSON.stringify(result)).toContain('ada@example.com');
  } finally {
    await client.close();
  }
});

test('test_reconnection closes its stream after the priming event; the result comes through GET + Last-Event-ID on the other replica', async () => {
  const session = await initialize(a, 'conf');
  const res = await fetch(a.mcpUrl('conf'), {
    method: 'POST',
    headers: headers(session),
    body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'test_reconnection', arguments: {} } }),
  });
  const text = await res.text();
  const ids = [...text.matchAll(/^id: (.+)$/gm)].map((m) => m[1]!);
  expect(ids).toHaveLength(1);
  expect(text).not.toContain('"id":5');
  const resumed = await fetch(b.mcpUrl('conf'), {
    headers: { accept: 'text/event-stream', 'mcp-protocol-version': LEGACY, 'mcp-session-id': session, 'last-event-id': ids[0]! },
  });
  const final = JSON.parse((await events(resumed)()).data) as Json;
  expect(final).toMatchObject({ id: 5, result: { content: [{ type: 'text', text: expect.stringContaining('Reconnected') }] } });
});

test('the SDK 1.x client reconnects with Last-Event-ID by itself and gets the result of test_reconnection, alternating replicas', async () => {
  // Every request of this client goes to the other gateway, so the reconnection lands on the replica that did not run the call.
  const bases = [a.baseUrl, b.baseUrl];
  let turn = 0;
  const gets: Array<string | null> = [];
  const alternating = (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const target = new URL(String(url instanceof Request ? url.url : url));
    if ((init?.method ?? 'GET') === 'GET') gets.push(new Headers(init?.headers).get('last-event-id'));
    return fetch(`${bases[turn++ % 2]}${target.pathname}${target.search}`, init);
  };
  const client = new SdkClient({ name: 'e2e-reconnect', version: '1.0.0' });
  try {
    await client.connect(
      new SdkTransport(new URL(a.mcpUrl('conf')), {
        fetch: alternating,
        reconnectionOptions: { initialReconnectionDelay: 50, maxReconnectionDelay: 500, reconnectionDelayGrowFactor: 1.5, maxRetries: 5 },
      }),
    );
    const result = await client.callTool({ name: 'test_reconnection', arguments: {} });
    expect(JSON.stringify(result.content)).toContain('Reconnected');
    expect(gets.some((id) => typeof id === 'string' && id.length > 0)).toBe(true);
  } finally {
    await client.close();
  }
});

/**
 * Bad input at the edge (issue 2, Acceptance): every malformed or refused request gets the
 * right HTTP status, the right JSON-RPC code and a message naming what was wrong — never a
 * 500 and never a stack trace. Also the GET / DELETE answers and the two Claude quirks.
 */
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as SdkTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import {
  FIXTURE_40,
  LEGACY,
  MODERN,
  POST_HEADERS,
  expectNoStack,
  json,
  modernHeaders,
  modernMeta,
  modernRequest,
  rpcError,
  rpcResult,
  sseMessages,
  startGateway,
  type Json,
  type TestGateway,
} from './support/harness';

const BODY_LIMIT = 64 * 1024;
const URL_DEMO = '/t/demo/mcp';

let gw: TestGateway;

beforeAll(async () => {
  gw = await startGateway({
    tenants: [
      { id: 'demo', name: 'Demo', catalogs: [{ builtin: 'demo' }] },
      { id: 'big', name: 'Forty tools', catalogs: [{ fixture: FIXTURE_40 }] },
    ],
    env: { GATEWAY_BODY_LIMIT: String(BODY_LIMIT), SSE_HEARTBEAT_MS: '200', SSE_MAX_LIFETIME_MS: '1000' },
    listen: true,
  });
});

afterAll(async () => {
  await gw?.close();
});

/** Injects a request and checks the invariants every answer shares (no 500, no stack trace). */
async function send(options: InjectOptions): Promise<LightMyRequestResponse> {
  const res = await gw.inject(options);
  expect(res.statusCode).not.toBe(500);
  expectNoStack(res.body);
  return res;
}

function post(payload: unknown, headers: Record<string, string> = { ...POST_HEADERS }, url = URL_DEMO): Promise<LightMyRequestResponse> {
  return send({ method: 'POST', url, headers, payload: typeof payload === 'string' ? payload : JSON.stringify(payload) });
}

const legacyHeaders = (version = LEGACY): Record<string, string> => ({ ...POST_HEADERS, 'mcp-protocol-version': version });

describe('JSON-RPC decoding', () => {
  test('malformed JSON ⇒ 400 + −32700', async () => {
    const res = await post('{"jsonrpc":"2.0","id":1,"method":');
    expect(res.statusCode).toBe(400);
    const error = rpcError(res);
    expect(error.code).toBe(-32700);
    expect(error.message).toMatch(/parse|JSON/i);
  });

  test('wrong jsonrpc version in the envelope ⇒ −32600 naming jsonrpc', async () => {
    const res = await post({ jsonrpc: '1.0', id: 1, method: 'tools/list' });
    expect(res.statusCode).toBe(400);
    const error = rpcError(res);
    expect(error.code).toBe(-32600);
    expect(error.message).toMatch(/jsonrpc/);
  });

  test('envelope without a method ⇒ −32600 naming method', async () => {
    const res = await post({ jsonrpc: '2.0', id: 7 });
    expect(res.statusCode).toBe(400);
    const error = rpcError(res);
    expect(error.code).toBe(-32600);
    expect(error.message).toMatch(/method/);
  });

  test('a null request id ⇒ −32600 naming id', async () => {
    const res = await post({ jsonrpc: '2.0', id: null, method: 'tools/list' });
    expect(res.statusCode).toBe(400);
    const error = rpcError(res);
    expect(error.code).toBe(-32600);
    expect(error.message).toMatch(/\bid\b/);
  });

  test('a batch at 2025-06-18 ⇒ 400 naming the batch and the version', async () => {
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { jsonrpc: '2.0', id: 2, method: 'ping' },
    ];
    const res = await post(batch, legacyHeaders('2025-06-18'));
    expect(res.statusCode).toBe(400);
    const error = rpcError(res);
    expect(error.code).toBe(-32600);
    expect(error.message).toMatch(/batch/i);
    expect(error.message).toContain('2025-06-18');
  });

  test('a batch at 2025-03-26 is answered (the one version that has batches)', async () => {
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { jsonrpc: '2.0', id: 2, method: 'ping' },
    ];
    const res = await post(batch, legacyHeaders('2025-03-26'));
    expect(res.statusCode).toBe(200);
    const body = JSON.parse(res.body) as Json[];
    expect(body.map((m) => m.id).sort()).toEqual([1, 2]);
  });
});

describe('methods and params', () => {
  test('unknown method, legacy ⇒ HTTP 200 + −32601 naming the method', async () => {
    const res = await post({ jsonrpc: '2.0', id: 3, method: 'tools/frobnicate' }, legacyHeaders());
    expect(res.statusCode).toBe(200);
    const error = rpcError(res);
    expect(error.code).toBe(-32601);
    expect(error.message).toContain('tools/frobnicate');
    expect(json(res).id).toBe(3);
  });

  test('unknown method, modern ⇒ HTTP 404 + −32601 naming the method', async () => {
    const res = await post(modernRequest(4, 'tools/frobnicate'), modernHeaders('tools/frobnicate'));
    expect(res.statusCode).toBe(404);
    const error = rpcError(res);
    expect(error.code).toBe(-32601);
    expect(error.message).toContain('tools/frobnicate');
    expect(json(res).id).toBe(4);
  });

  test('a method removed in 2026-07-28 (ping) ⇒ HTTP 404 + −32601', async () => {
    const res = await post(modernRequest(5, 'ping'), modernHeaders('ping'));
    expect(res.statusCode).toBe(404);
    expect(rpcError(res).code).toBe(-32601);
  });

  test('bad params (tools/call name not a string) ⇒ −32602 naming params.name', async () => {
    const res = await post({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 42, arguments: {} } }, legacyHeaders());
    expect(res.statusCode).toBeLessThan(500);
    const error = rpcError(res);
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('params.name');
  });

  test('bad params (arguments not an object) ⇒ −32602 naming params.arguments', async () => {
    const res = await post({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'echo', arguments: [1, 2] } }, legacyHeaders());
    const error = rpcError(res);
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('params.arguments');
  });

  test('bad params, modern: missing required _meta key ⇒ 400 + −32602 naming the key', async () => {
    const meta = modernMeta();
    delete meta['io.modelcontextprotocol/clientCapabilities'];
    const res = await post({ jsonrpc: '2.0', id: 8, method: 'tools/list', params: { _meta: meta } }, modernHeaders('tools/list'));
    expect(res.statusCode).toBe(400);
    const error = rpcError(res);
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('io.modelcontextprotocol/clientCapabilities');
  });

  test('unknown tool ⇒ −32602 naming the tool', async () => {
    const res = await post({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } }, legacyHeaders());
    const error = rpcError(res);
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('no_such_tool');
  });

  test('unknown tool, modern ⇒ −32602 naming the tool', async () => {
    const res = await post(modernRequest(9, 'tools/call', { name: 'no_such_tool', arguments: {} }), modernHeaders('tools/call', 'no_such_tool'));
    const error = rpcError(res);
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('no_such_tool');
  });

  test('invalid cursor ⇒ −32602 naming the cursor', async () => {
    const res = await post({ jsonrpc: '2.0', id: 10, method: 'tools/list', params: { cursor: 'not-a-cursor-we-issued' } }, legacyHeaders(), '/t/big/mcp');
    const error = rpcError(res);
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(/cursor/i);
  });

  test('a cursor that is not a string ⇒ −32602 naming params.cursor', async () => {
    const res = await post({ jsonrpc: '2.0', id: 10, method: 'tools/list', params: { cursor: 17 } }, legacyHeaders());
    const error = rpcError(res);
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('params.cursor');
  });

  test('tool argument validation failure ⇒ an isError result naming the field', async () => {
    const res = await post({ jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'echo', arguments: { text: 12 } } }, legacyHeaders());
    expect(res.statusCode).toBe(200);
    const result = rpcResult(res);
    expect(result.isError).toBe(true);
    const text = (result.content as Array<{ type: string; text: string }>).map((c) => c.text).join('\n');
    expect(text).toMatch(/\btext\b/);
    expect(text).toMatch(/string/);
  });

  test('a missing required argument ⇒ an isError result naming the field', async () => {
    const res = await post({ jsonrpc: '2.0', id: 12, method: 'tools/call', params: { name: 'add_numbers', arguments: {} } }, legacyHeaders());
    const result = rpcResult(res);
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('numbers');
  });
});

describe('protocol version headers', () => {
  test('unsupported MCP-Protocol-Version (legacy) ⇒ 400 naming the header', async () => {
    const res = await post({ jsonrpc: '2.0', id: 13, method: 'tools/list' }, legacyHeaders('1999-01-01'));
    expect(res.statusCode).toBe(400);
    const error = rpcError(res);
    expect(error.message).toContain('MCP-Protocol-Version');
    expect(error.message).toContain('1999-01-01');
  });

  test('unsupported version (modern) ⇒ 400 + −32022 with data.supported and data.requested', async () => {
    const body = modernRequest(14, 'tools/list');
    (body.params as { _meta: Json })._meta['io.modelcontextprotocol/protocolVersion'] = '2099-01-01';
    const res = await post(body, { ...modernHeaders('tools/list'), 'mcp-protocol-version': '2099-01-01' });
    expect(res.statusCode).toBe(400);
    const error = rpcError(res);
    expect(error.code).toBe(-32022);
    expect(error.message).toContain('2099-01-01');
    expect(error.data?.requested).toBe('2099-01-01');
    expect(error.data?.supported).toEqual(expect.arrayContaining([MODERN]));
    expect(json(res).id).toBe(14);
  });

  test('Mcp-Method header ≠ body method (modern) ⇒ 400 + −32020 naming Mcp-Method', async () => {
    const res = await post(modernRequest(15, 'tools/call', { name: 'echo', arguments: { text: 'x' } }), modernHeaders('tools/list', 'echo'));
    expect(res.statusCode).toBe(400);
    const error = rpcError(res);
    expect(error.code).toBe(-32020);
    expect(error.message).toContain('Mcp-Method');
  });

  test('Mcp-Name header ≠ params.name (modern) ⇒ 400 + −32020 naming Mcp-Name', async () => {
    const res = await post(modernRequest(16, 'tools/call', { name: 'echo', arguments: { text: 'x' } }), modernHeaders('tools/call', 'add_numbers'));
    expect(res.statusCode).toBe(400);
    const error = rpcError(res);
    expect(error.code).toBe(-32020);
    expect(error.message).toContain('Mcp-Name');
  });

  test('missing Mcp-Name on tools/call (modern) ⇒ 400 + −32020 naming Mcp-Name', async () => {
    const res = await post(modernRequest(17, 'tools/call', { name: 'echo', arguments: { text: 'x' } }), modernHeaders('tools/call'));
    expect(res.statusCode).toBe(400);
    const error = rpcError(res);
    expect(error.code).toBe(-32020);
    expect(error.message).toContain('Mcp-Name');
  });

  test('version header ≠ _meta version (modern) ⇒ 400 + −32020 naming MCP-Protocol-Version', async () => {
    const res = await post(modernRequest(18, 'tools/list'), { ...modernHeaders('tools/list'), 'mcp-protocol-version': '2099-01-01' });
    expect(res.statusCode).toBe(400);
    const error = rpcError(res);
    expect(error.code).toBe(-32020);
    expect(error.message).toContain('MCP-Protocol-Version');
  });

  test('MCP-Protocol-Version 2025-11-25 after negotiating 2025-06-18 is accepted (the Claude incident)', async () => {
    const init = await post(
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'claude-code', version: '2.1.0' } } },
      { ...POST_HEADERS },
    );
    expect(rpcResult(init).protocolVersion).toBe('2025-06-18');
    const res = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { ...legacyHeaders('2025-11-25'), 'user-agent': 'claude-code/2.1.0' });
    expect(res.statusCode).toBe(200);
    expect((rpcResult(res).tools as unknown[]).length).toBeGreaterThan(0);
  });

  test('a 2026-07-28 header on a legacy (claim-less) request is served as legacy, not refused', async () => {
    const res = await post({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, legacyHeaders(MODERN));
    expect(res.statusCode).toBe(200);
    expect((rpcResult(res).tools as unknown[]).length).toBeGreaterThan(0);
  });

  test('a modern transport (2026-07-28 header + Mcp-Method) without _meta ⇒ 400 + −32602 naming _meta, not a legacy answer', async () => {
    const res = await post({ jsonrpc: '2.0', id: 4, method: 'tools/list' }, modernHeaders('tools/list'));
    expect(res.statusCode).toBe(400);
    const error = rpcError(res);
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('_meta');
    expect(json(res).id).toBe(4);
  });

  test('modern _meta 2026-07-28 beside a legacy 2025-11-25 header is accepted (Claude quirk)', async () => {
    const res = await post(modernRequest(19, 'tools/call', { name: 'echo', arguments: { text: 'quirk' } }, 'claude-ai'), {
      ...modernHeaders('tools/call', 'echo'),
      'mcp-protocol-version': LEGACY,
    });
    expect(res.statusCode).toBe(200);
    const result = rpcResult(res);
    expect(result.resultType).toBe('complete');
    expect(result.structuredContent).toEqual({ text: 'quirk' });
  });
});

describe('HTTP edge', () => {
  test('missing Accept ⇒ 406 naming Accept', async () => {
    const res = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'content-type': 'application/json' });
    expect(res.statusCode).toBe(406);
    expect(rpcError(res).message).toContain('Accept');
  });

  test('Accept without text/event-stream ⇒ 406', async () => {
    const res = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'content-type': 'application/json', accept: 'application/json' });
    expect(res.statusCode).toBe(406);
    expect(rpcError(res).message).toContain('Accept');
  });

  test('wrong Content-Type ⇒ 415 naming Content-Type', async () => {
    const res = await post('{"jsonrpc":"2.0","id":1,"method":"tools/list"}', { ...POST_HEADERS, 'content-type': 'text/plain' });
    expect(res.statusCode).toBe(415);
    expect(rpcError(res).message).toContain('Content-Type');
  });

  test('oversized body ⇒ 413 naming the limit', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x'.repeat(BODY_LIMIT + 1000) } } });
    const res = await post(big);
    expect(res.statusCode).toBe(413);
    const error = rpcError(res);
    expect(error.message).toMatch(/limit|too large|exceeds/i);
    expect(error.message).toContain(String(BODY_LIMIT));
  });

  test('oversized body over a real socket ⇒ fetch reads the 413 JSON-RPC error (not `fetch failed`)', async () => {
    const huge = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x'.repeat(192 * BODY_LIMIT) } } });
    const res = await fetch(`${gw.baseUrl}${URL_DEMO}`, { method: 'POST', headers: POST_HEADERS, body: huge });
    expect(res.status).toBe(413);
    const body = (await res.json()) as { error: { code: number; message: string; data: unknown } };
    expect(body.error.code).toBe(-32600);
    expect(body.error.message).toContain(String(BODY_LIMIT));
    expect(body.error.data).toEqual({ limit: 'bodyLimit', bytes: BODY_LIMIT });
  });

  test('oversized chunked body (no Content-Length) ⇒ 413 once the bytes read pass the limit', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
    const chunks = Math.ceil((BODY_LIMIT * 4) / chunk.length);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < chunks) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const res = await fetch(`${gw.baseUrl}${URL_DEMO}`, { method: 'POST', headers: POST_HEADERS, body, duplex: 'half' } as RequestInit);
    expect(res.status).toBe(413);
    const answer = (await res.json()) as { error: { code: number; data: unknown } };
    expect(answer.error.code).toBe(-32600);
    expect(answer.error.data).toEqual({ limit: 'bodyLimit', bytes: BODY_LIMIT });
  });

  test('oversized body from the SDK 1.x client ⇒ the client reports the 413 and its message', async () => {
    const client = new SdkClient({ name: 'e2e-413', version: '1.0.0' });
    await client.connect(new SdkTransport(new URL(`${gw.baseUrl}${URL_DEMO}`)));
    try {
      const outcome = await client.callTool({ name: 'echo', arguments: { text: 'x'.repeat(192 * BODY_LIMIT) } }).then(
        () => ({ code: 0, message: 'answered' }),
        (err: Error & { code?: unknown }) => ({ code: err.code, message: err.message }),
      );
      expect(outcome.code).toBe(413);
      expect(outcome.message).toContain(`exceeds the limit of ${BODY_LIMIT} bytes`);
    } finally {
      await client.close();
    }
  });

  test('foreign Origin ⇒ 403 naming the Origin', async () => {
    const res = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { ...POST_HEADERS, origin: 'http://evil.example.com' });
    expect(res.statusCode).toBe(403);
    const error = rpcError(res);
    expect(error.message).toContain('Origin');
    expect(error.message).toContain('evil.example.com');
  });

  test('known client Origin (https://claude.ai) and loopback Origin are allowed', async () => {
    for (const origin of ['https://claude.ai', 'http://localhost:6274']) {
      const res = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { ...POST_HEADERS, origin });
      expect(res.statusCode).toBe(200);
    }
  });

  test('foreign Host ⇒ 403 naming the Host', async () => {
    const res = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { ...POST_HEADERS, host: 'evil.example.com' });
    expect(res.statusCode).toBe(403);
    const error = rpcError(res);
    expect(error.message).toContain('Host');
    expect(error.message).toContain('evil.example.com');
  });

  test('unknown tenant ⇒ 404 with a JSON-RPC error body naming the tenant', async () => {
    const res = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { ...POST_HEADERS }, '/t/nobody/mcp');
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    const body = json(res);
    expect(body.jsonrpc).toBe('2.0');
    expect(rpcError(res).message).toContain('nobody');
  });

  test('a notification ⇒ 202 with an empty body (legacy and modern)', async () => {
    const legacy = await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, legacyHeaders());
    expect(legacy.statusCode).toBe(202);
    expect(legacy.body).toBe('');
    const modern = await post(
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: modernMeta() } },
      modernHeaders('notifications/cancelled'),
    );
    expect(modern.statusCode).toBe(202);
    expect(modern.body).toBe('');
  });

  test('GET with the modern version header ⇒ 405 with Allow', async () => {
    const res = await send({ method: 'GET', url: URL_DEMO, headers: { accept: 'text/event-stream', 'mcp-protocol-version': MODERN } });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toMatch(/POST/);
    expect(rpcError(res).message).toMatch(/GET|method not allowed/i);
  });

  test('GET without an event-stream Accept ⇒ 405 with Allow', async () => {
    const res = await send({ method: 'GET', url: URL_DEMO, headers: { accept: 'application/json' } });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toMatch(/POST/);
    expect(rpcError(res).message).toMatch(/text\/event-stream/);
  });

  test('DELETE ⇒ 405 with Allow', async () => {
    const res = await send({ method: 'DELETE', url: URL_DEMO, headers: { 'mcp-session-id': 'abc' } });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toMatch(/POST/);
    expect(res.headers.allow).not.toMatch(/DELETE/);
    expect(rpcError(res).code).toBe(-32600);
  });

  test.each([
    ['no version header', {}],
    ['MCP-Protocol-Version 2025-11-25', { 'mcp-protocol-version': LEGACY }],
  ])('GET with Accept text/event-stream (%s) ⇒ 200 event stream', async (_label, extra) => {
    const abort = new AbortController();
    const res = await fetch(gw.mcpUrl('demo'), { headers: { accept: 'text/event-stream', ...extra }, signal: abort.signal });
    try {
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const reader = res.body!.getReader();
      const first = await reader.read();
      expect(first.done).toBe(false);
      // Only comments (heartbeats) ever travel on this stream: never a JSON-RPC message.
      expect(new TextDecoder().decode(first.value)).toMatch(/^:/);
    } finally {
      abort.abort();
    }
  });
});

describe('legacy GET stream lifetime', () => {
  test('the GET stream carries only heartbeats and ends by itself (bounded lifetime)', async () => {
    const abort = new AbortController();
    const res = await fetch(gw.mcpUrl('demo'), { headers: { accept: 'text/event-stream' }, signal: abort.signal });
    try {
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      // SSE_MAX_LIFETIME_MS is 1 s here; the deadline only guards against a stream that never ends.
      const deadline = Date.now() + 15_000;
      for (;;) {
        if (Date.now() > deadline) throw new Error(`GET stream still open after 15 s: ${text.slice(0, 200)}`);
        const chunk = await reader.read();
        if (chunk.done) break;
        text += decoder.decode(chunk.value, { stream: true });
      }
      expect(text).toContain(': heartbeat');
      // Comments only: no `data:` line ever travels on this stream.
      for (const line of text.split('\n')) expect(line === '' || line.startsWith(':')).toBe(true);
    } finally {
      abort.abort();
    }
  });
});

describe('streaming', () => {
  test('a tool call with a progressToken streams ≥1 progress notification, then the result', async () => {
    const res = await post(
      { jsonrpc: '2.0', id: 21, method: 'tools/call', params: { name: 'count_down', arguments: { from: 3, stepMs: 0 }, _meta: { progressToken: 'p-1' } } },
      legacyHeaders(),
    );
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    const messages = sseMessages(res.body);
    const progress = messages.filter((m) => m.method === 'notifications/progress');
    expect(progress.length).toBeGreaterThanOrEqual(1);
    for (const p of progress) expect((p.params as Json).progressToken).toBe('p-1');
    const values = progress.map((p) => (p.params as { progress: number }).progress);
    expect([...values].sort((a, b) => a - b)).toEqual(values);
    const last = messages[messages.length - 1];
    expect(last.id).toBe(21);
    expect(JSON.stringify((last.result as Json).content)).toContain('counted');
    expect((last.result as Json).isError).toBeUndefined();
    expect(messages.filter((m) => 'id' in m)).toHaveLength(1);
  });

  test('a client that drops a streaming response mid-call leaves the server healthy', async () => {
    const abort = new AbortController();
    const res = await fetch(gw.mcpUrl('demo'), {
      method: 'POST',
      headers: legacyHeaders(),
      body: JSON.stringify({ jsonrpc: '2.0', id: 24, method: 'tools/call', params: { name: 'count_down', arguments: { from: 20, stepMs: 50 }, _meta: { progressToken: 'drop' } } }),
      signal: abort.signal,
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const first = await res.body!.getReader().read();
    expect(new TextDecoder().decode(first.value)).toContain('notifications/');
    abort.abort();
    // The server keeps answering (no crash from writing to the closed stream).
    for (let i = 0; i < 3; i++) {
      const again = await fetch(gw.mcpUrl('demo'), { method: 'POST', headers: legacyHeaders(), body: JSON.stringify({ jsonrpc: '2.0', id: 25 + i, method: 'ping' }) });
      expect(again.status).toBe(200);
      expect(await again.json()).toEqual({ jsonrpc: '2.0', id: 25 + i, result: {} });
    }
  });

  test('a call that emits nothing before its result is plain JSON', async () => {
    const res = await post({ jsonrpc: '2.0', id: 22, method: 'tools/call', params: { name: 'echo', arguments: { text: 'plain' }, _meta: { progressToken: 'p-2' } } }, legacyHeaders());
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(rpcResult(res).structuredContent).toEqual({ text: 'plain' });
  });

  test('modern: progress streams too, and the final result carries resultType', async () => {
    const res = await post(
      modernRequest(23, 'tools/call', { name: 'count_down', arguments: { from: 2, stepMs: 0 }, _meta: { progressToken: 9 } }),
      modernHeaders('tools/call', 'count_down'),
    );
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    const messages = sseMessages(res.body);
    expect(messages.filter((m) => m.method === 'notifications/progress').length).toBeGreaterThanOrEqual(1);
    // No log level opted in ⇒ no notifications/message (2026-07-28 rule).
    expect(messages.filter((m) => m.method === 'notifications/message')).toHaveLength(0);
    expect((messages[messages.length - 1].result as Json).resultType).toBe('complete');
  });
});

/** Bad input at the edge: HTTP-level refusals (body size, media types, methods), the GET / DELETE answers and the GET stream's bounded lifetime. */
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as SdkTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LEGACY, MODERN, POST_HEADERS, json, modernHeaders, modernMeta, rpcError } from './support/harness';
import { BODY_LIMIT, URL_DEMO, legacyHeaders, useBadInputGateway } from './bad-input-gateway';

const edge = useBadInputGateway();
const { send, post } = edge;

describe('HTTP edge', () => {
  test('missing Accept ⇒ 406 naming Accept', async () => {
    const res = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'content-type': 'application/json' });
    expect(res.statusCode).toBe(406);
    expect(rpcError(res).message).toContain('Accept');
  });

  test('Accept without text/event-stream ⇒ 406', async () => {
    const res = await post(
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { 'content-type': 'application/json', accept: 'application/json' },
    );
    expect(res.statusCode).toBe(406);
    expect(rpcError(res).message).toContain('Accept');
  });

  test('wrong Content-Type ⇒ 415 naming Content-Type', async () => {
    const res = await post('{"jsonrpc":"2.0","id":1,"method":"tools/list"}', { ...POST_HEADERS, 'content-type': 'text/plain' });
    expect(res.statusCode).toBe(415);
    expect(rpcError(res).message).toContain('Content-Type');
  });

  test('oversized body ⇒ 413 naming the limit', async () => {
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'x'.repeat(BODY_LIMIT + 1000) } },
    });
    const res = await post(big);
    expect(res.statusCode).toBe(413);
    const error = rpcError(res);
    expect(error.message).toMatch(/limit|too large|exceeds/i);
    expect(error.message).toContain(String(BODY_LIMIT));
  });

  test('oversized body over a real socket ⇒ fetch reads the 413 JSON-RPC error (not `fetch failed`)', async () => {
    const huge = JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'x'.repeat(192 * BODY_LIMIT) } },
    });
    const res = await fetch(`${edge.gw.baseUrl}${URL_DEMO}`, { method: 'POST', headers: POST_HEADERS, body: huge });
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
    const res = await fetch(`${edge.gw.baseUrl}${URL_DEMO}`, {
      method: 'POST',
      headers: POST_HEADERS,
      body,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    const answer = (await res.json()) as { error: { code: number; data: unknown } };
    expect(answer.error.code).toBe(-32600);
    expect(answer.error.data).toEqual({ limit: 'bodyLimit', bytes: BODY_LIMIT });
  });

  test('oversized body from the SDK 1.x client ⇒ the client reports the 413 and its message', async () => {
    const client = new SdkClient({ name: 'e2e-413', version: '1.0.0' });
    await client.connect(new SdkTransport(new URL(`${edge.gw.baseUrl}${URL_DEMO}`)));
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
    const res = await fetch(edge.gw.mcpUrl('demo'), { headers: { accept: 'text/event-stream', ...extra }, signal: abort.signal });
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
    const res = await fetch(edge.gw.mcpUrl('demo'), { headers: { accept: 'text/event-stream' }, signal: abort.signal });
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

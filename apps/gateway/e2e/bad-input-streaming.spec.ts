/** Streaming answers at the edge: progress before the result, and a client that leaves mid-stream. */
import { modernHeaders, modernRequest, rpcResult, sseMessages, type Json } from './support/harness';
import { legacyHeaders, useBadInputGateway } from './bad-input-gateway';

const edge = useBadInputGateway();
const { post } = edge;

describe('streaming', () => {
  test('a tool call with a progressToken streams ≥1 progress notification, then the result', async () => {
    const res = await post(
      {
        jsonrpc: '2.0',
        id: 21,
        method: 'tools/call',
        params: { name: 'count_down', arguments: { from: 3, stepMs: 0 }, _meta: { progressToken: 'p-1' } },
      },
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
    const res = await fetch(edge.gw.mcpUrl('demo'), {
      method: 'POST',
      headers: legacyHeaders(),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 24,
        method: 'tools/call',
        params: { name: 'count_down', arguments: { from: 20, stepMs: 50 }, _meta: { progressToken: 'drop' } },
      }),
      signal: abort.signal,
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const first = await res.body!.getReader().read();
    expect(new TextDecoder().decode(first.value)).toContain('notifications/');
    abort.abort();
    // The server keeps answering (no crash from writing to the closed stream).
    for (let i = 0; i < 3; i++) {
      const again = await fetch(edge.gw.mcpUrl('demo'), {
        method: 'POST',
        headers: legacyHeaders(),
        body: JSON.stringify({ jsonrpc: '2.0', id: 25 + i, method: 'ping' }),
      });
      expect(again.status).toBe(200);
      expect(await again.json()).toEqual({ jsonrpc: '2.0', id: 25 + i, result: {} });
    }
  });

  test('a call that emits nothing before its result is plain JSON', async () => {
    const res = await post(
      {
        jsonrpc: '2.0',
        id: 22,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'plain' }, _meta: { progressToken: 'p-2' } },
      },
      legacyHeaders(),
    );
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

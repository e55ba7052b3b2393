import type { ClassifiedMessage } from '@switchboard/protocol';
import { LEGACY, POST_HEADERS, edgeKit } from './testing/edge-kit';
import { answerMessage } from './answer-message';
import { authenticateRequest, guardRequest } from './edge-guard';
import type { EdgePolicy } from './edge-policy';

const HEADERS = { ...POST_HEADERS, 'mcp-protocol-version': LEGACY };

function answer(item: ClassifiedMessage, policy: Partial<EdgePolicy> = {}, headers: Record<string, string> = HEADERS) {
  const kit = edgeKit({ policy });
  return kit
    .step({ method: 'POST', url: '/t/acme/mcp', headers }, async (call) => {
      guardRequest(call);
      await authenticateRequest(call);
      await answerMessage(call, item);
    })
    .then((res) => ({ res, refusals: kit.refusals }));
}

describe('answerMessage', () => {
  it('answers a request on its own channel (JSON with its length)', async () => {
    const { res } = await answer({
      type: 'request',
      message: { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.body));
    expect(res.json()).toMatchObject({ id: 5, result: { content: [{ type: 'text', text: 'hi' }] } });
  });

  it('acknowledges a notification with 202 and no body', async () => {
    const { res } = await answer({ type: 'notification', message: { jsonrpc: '2.0', method: 'notifications/initialized' } });
    expect(res.statusCode).toBe(202);
    expect(res.body).toBe('');
  });

  it('answers an invalid message 400 with its own error and id', async () => {
    const { res, refusals } = await answer({
      type: 'invalid',
      id: 9,
      error: new (await import('@switchboard/protocol')).McpError(-32600, 'bad member'),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ id: 9, error: { code: -32600, message: 'bad member' } });
    expect(refusals).toHaveLength(1);
  });

  it('refuses a tools/call the caller may not run, before it runs (insufficient_scope)', async () => {
    const policy: Partial<EdgePolicy> = {
      authenticate: () => ({ ok: true, scopes: [] }),
      authorizeTool: () => ({
        ok: false,
        status: 403,
        headers: { 'www-authenticate': 'Bearer error="insufficient_scope"' },
        body: '{"denied":true}',
      }),
    };
    const { res, refusals } = await answer(
      { type: 'request', message: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } } },
      policy,
    );
    expect(res.statusCode).toBe(403);
    expect(res.body).toBe('{"denied":true}');
    expect(refusals).toMatchObject([{ status: 403, outcome: 'insufficient_scope' }]);
  });

  it('routes a client response to nothing waiting as 404 naming the id', async () => {
    const { res } = await answer({ type: 'response', message: { jsonrpc: '2.0', id: 'srv-1', result: {} } });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.message).toContain('No server-to-client request with id "srv-1" is waiting');
  });

  it('refuses client responses at protocol 2026-07-28 (400)', async () => {
    const { res } = await answer(
      { type: 'response', message: { jsonrpc: '2.0', id: 1, result: {} } },
      {},
      { ...POST_HEADERS, 'mcp-protocol-version': '2026-07-28' },
    );
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toBe('JSON-RPC responses are not accepted at protocol 2026-07-28');
  });
});

import { McpError, type JsonRpcRequest } from '@switchboard/protocol';
import { LEGACY, POST_HEADERS, edgeKit, type KitOptions } from './testing/edge-kit';
import { answerRequest, type Answer } from './answer-request';
import { guardRequest } from './edge-guard';
import type { McpRequestInfo } from './mcp-observer';

const CALL: JsonRpcRequest = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { text: 'yo' } } };

async function ask(message: JsonRpcRequest, options: KitOptions = {}, headers: Record<string, string> = {}) {
  const kit = edgeKit(options);
  let answer: Answer | undefined;
  const res = await kit.step(
    { method: 'POST', url: '/t/acme/mcp', headers: { ...POST_HEADERS, 'mcp-protocol-version': LEGACY, ...headers } },
    async (call) => {
      guardRequest(call);
      answer = await answerRequest(call, message, undefined);
    },
  );
  return { answer: answer!, body: JSON.parse(answer!.body.toString()), res };
}

describe('answerRequest', () => {
  it('dispatches a classified request and measures its answer', async () => {
    const { answer, body } = await ask(CALL);
    expect(answer.status).toBe(200);
    expect(answer.length).toBe(Buffer.byteLength(answer.body.toString()));
    expect(body.result.content[0].text).toBe('yo');
  });

  it('tells the observer what it learns and how the request ended', async () => {
    const seen: string[] = [];
    let info: McpRequestInfo | undefined;
    const observe = {
      onRequest: (i: McpRequestInfo) => {
        info = i;
        return {
          classified: (c: { era: string }) => seen.push(`classified ${c.era}`),
          toolFailed: () => seen.push('toolFailed'),
          run: <T>(fn: () => Promise<T>) => (seen.push('run'), fn()),
          end: (r: { httpStatus: number; bytes: number }) => seen.push(`end ${r.httpStatus} ${r.bytes > 0}`),
        };
      },
    };
    await ask(CALL, { policy: { observe } });
    expect(info).toMatchObject({ tenantId: 'acme', method: 'tools/call', name: 'echo', requestId: 3 });
    expect(seen).toEqual(['classified legacy', 'run', 'end 200 true']);
  });

  it('answers a refused admission with its error and status, its headers on the response', async () => {
    const admit = () => ({ error: new McpError(-32000, 'rate limited', undefined, 429), headers: { 'retry-after': '7' } });
    const { answer, body, res } = await ask(CALL, { policy: { admit } });
    expect(answer.status).toBe(429);
    expect(body.error.message).toBe('rate limited');
    // The step's caller sends the answer; the header is already on the response.
    expect(res.headers['retry-after']).toBe('7');
  });

  it('answers a method of the other era 404 at 2026-07-28 (Method not found)', async () => {
    const _meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
    const { answer, body } = await ask(
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { _meta } },
      {},
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'initialize' },
    );
    expect(body.error.code).toBe(-32601);
    expect(answer.status).toBe(404);
  });

  it('aborts a call that outlives the call timeout, as a tool error', async () => {
    const started = performance.now();
    const { body } = await ask({ ...CALL, params: { name: 'echo', arguments: { text: 'slow', waitMs: 5_000 } } }, { callTimeoutMs: 50 });
    expect(performance.now() - started).toBeLessThan(4_000);
    expect(body.result).toMatchObject({ isError: true });
  });

  it('answers an unexpected failure as an internal error without its message', async () => {
    const admit = () => {
      throw new Error('database password in message');
    };
    const { answer, body } = await ask(CALL, { policy: { admit } });
    expect(answer.status).toBe(200);
    expect(body.error).toEqual({ code: -32603, message: 'Internal error' });
  });
});

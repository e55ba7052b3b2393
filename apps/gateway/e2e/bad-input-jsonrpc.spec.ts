/** Bad input at the edge: malformed JSON-RPC, unknown methods and bad params get the right code and a message naming the field. */
import { json, modernHeaders, modernMeta, modernRequest, rpcError, rpcResult, type Json } from './support/harness';
import { legacyHeaders, useBadInputGateway } from './bad-input-gateway';

const edge = useBadInputGateway();
const { post } = edge;

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
    const res = await post(
      { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } },
      legacyHeaders(),
    );
    const error = rpcError(res);
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('no_such_tool');
  });

  test('unknown tool, modern ⇒ −32602 naming the tool', async () => {
    const res = await post(
      modernRequest(9, 'tools/call', { name: 'no_such_tool', arguments: {} }),
      modernHeaders('tools/call', 'no_such_tool'),
    );
    const error = rpcError(res);
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('no_such_tool');
  });

  test('invalid cursor ⇒ −32602 naming the cursor', async () => {
    const res = await post(
      { jsonrpc: '2.0', id: 10, method: 'tools/list', params: { cursor: 'not-a-cursor-we-issued' } },
      legacyHeaders(),
      '/t/big/mcp',
    );
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
    const res = await post(
      { jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'echo', arguments: { text: 12 } } },
      legacyHeaders(),
    );
    expect(res.statusCode).toBe(200);
    const result = rpcResult(res);
    expect(result.isError).toBe(true);
    const text = (result.content as Array<{ type: string; text: string }>).map((c) => c.text).join('\n');
    expect(text).toMatch(/\btext\b/);
    expect(text).toMatch(/string/);
  });

  test('a missing required argument ⇒ an isError result naming the field', async () => {
    const res = await post(
      { jsonrpc: '2.0', id: 12, method: 'tools/call', params: { name: 'add_numbers', arguments: {} } },
      legacyHeaders(),
    );
    const result = rpcResult(res);
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('numbers');
  });
});

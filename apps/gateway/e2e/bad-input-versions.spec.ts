/** Bad input at the edge: protocol version headers the gateway does not speak, or that disagree with the body. */
import { LEGACY, MODERN, POST_HEADERS, json, modernHeaders, modernRequest, rpcError, rpcResult, type Json } from './support/harness';
import { legacyHeaders, useBadInputGateway } from './bad-input-gateway';

const edge = useBadInputGateway();
const { post } = edge;

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
    const res = await post(
      modernRequest(15, 'tools/call', { name: 'echo', arguments: { text: 'x' } }),
      modernHeaders('tools/list', 'echo'),
    );
    expect(res.statusCode).toBe(400);
    const error = rpcError(res);
    expect(error.code).toBe(-32020);
    expect(error.message).toContain('Mcp-Method');
  });

  test('Mcp-Name header ≠ params.name (modern) ⇒ 400 + −32020 naming Mcp-Name', async () => {
    const res = await post(
      modernRequest(16, 'tools/call', { name: 'echo', arguments: { text: 'x' } }),
      modernHeaders('tools/call', 'add_numbers'),
    );
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
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'claude-code', version: '2.1.0' } },
      },
      { ...POST_HEADERS },
    );
    expect(rpcResult(init).protocolVersion).toBe('2025-06-18');
    const res = await post(
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { ...legacyHeaders('2025-11-25'), 'user-agent': 'claude-code/2.1.0' },
    );
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

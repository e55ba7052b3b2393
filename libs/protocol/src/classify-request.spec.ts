import { classifyRequest, type HttpHeaders } from './classify-request';
import { ErrorCode } from './error-codes';
import type { JsonObject, JsonRpcNotification, JsonRpcRequest } from './jsonrpc';
import { McpError } from './mcp-error';

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'conformance-test-client', version: '1.0.0' },
};

function request(method: string, params?: JsonObject, id: string | number = 1): JsonRpcRequest {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
}

function notification(method: string, params?: JsonObject): JsonRpcNotification {
  return params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
}

/** A modern request with the headers the SDK v2 client / conformance harness sends. */
function modern(
  method: string,
  params: JsonObject = {},
  meta: JsonObject = MODERN_META,
): { message: JsonRpcRequest; headers: HttpHeaders } {
  const headers: HttpHeaders = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method };
  const name =
    method === 'resources/read' ? params['uri'] : method === 'tools/call' || method === 'prompts/get' ? params['name'] : undefined;
  if (typeof name === 'string') headers['mcp-name'] = name;
  return { message: request(method, { ...params, _meta: meta }), headers };
}

function rejection(fn: () => unknown): McpError {
  try {
    fn();
  } catch (error) {
    if (error instanceof McpError) return error;
    throw error;
  }
  throw new Error('expected an McpError');
}

describe('classifyRequest — legacy era', () => {
  it('negotiates initialize from params.protocolVersion and reads clientInfo and capabilities', () => {
    const context = classifyRequest(
      request('initialize', {
        protocolVersion: '2025-06-18',
        capabilities: { roots: {} },
        clientInfo: { name: 'claude-ai', version: '0.1.0', title: 'Claude' },
      }),
      {},
    );
    expect(context).toEqual({
      era: 'legacy',
      protocolVersion: '2025-06-18',
      clientInfo: { name: 'claude-ai', version: '0.1.0', title: 'Claude' },
      clientCapabilities: { roots: {} },
    });
  });

  it('answers an unknown requested version with 2025-11-25', () => {
    expect(classifyRequest(request('initialize', { protocolVersion: '2099-01-01' }), {}).protocolVersion).toBe('2025-11-25');
    expect(classifyRequest(request('initialize', { protocolVersion: '2026-07-28' }), {}).protocolVersion).toBe('2025-11-25');
    expect(classifyRequest(request('initialize'), {}).protocolVersion).toBe('2025-11-25');
  });

  it('ignores the header on initialize, even a modern or unknown one', () => {
    expect(
      classifyRequest(request('initialize', { protocolVersion: '2025-03-26' }), { 'mcp-protocol-version': '2026-07-28' }).protocolVersion,
    ).toBe('2025-03-26');
    expect(classifyRequest(request('initialize', { protocolVersion: '2025-03-26' }), { 'mcp-protocol-version': 'garbage' }).era).toBe(
      'legacy',
    );
  });

  it('keeps initialize a handshake when it carries a legacy _meta claim', () => {
    const context = classifyRequest(
      request('initialize', { protocolVersion: '2025-06-18', _meta: { 'io.modelcontextprotocol/protocolVersion': '2025-06-18' } }),
      {},
    );
    expect(context).toMatchObject({ era: 'legacy', protocolVersion: '2025-06-18' });
  });

  it('treats a request without MCP-Protocol-Version as 2025-03-26', () => {
    expect(classifyRequest(request('tools/list'), {})).toEqual({ era: 'legacy', protocolVersion: '2025-03-26' });
    expect(classifyRequest(request('tools/list'), { 'mcp-protocol-version': '  ' }).protocolVersion).toBe('2025-03-26');
  });

  it.each(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'])('takes the header version %s as is (stateless)', (version) => {
    expect(classifyRequest(request('tools/call', { name: 'x' }), { 'mcp-protocol-version': version })).toEqual({
      era: 'legacy',
      protocolVersion: version,
    });
  });

  it('serves a modern header on a claim-less request as 2025-11-25 (Claude Code quirk)', () => {
    expect(classifyRequest(request('tools/list'), { 'mcp-protocol-version': '2026-07-28' })).toEqual({
      era: 'legacy',
      protocolVersion: '2025-11-25',
    });
    expect(classifyRequest(notification('notifications/initialized'), { 'mcp-protocol-version': '2026-07-28' }).protocolVersion).toBe(
      '2025-11-25',
    );
  });

  it('refuses a modern-transport request (modern header + Mcp-Method) without _meta: 400 + -32602 naming _meta', () => {
    const error = rejection(() =>
      classifyRequest(request('tools/list'), { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' }),
    );
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.httpStatus).toBe(400);
    expect(error.message).toContain('_meta');
    expect(error.data).toEqual({ missing: ['_meta'] });
    // A notification carries no request to refuse; it stays answered with 202 as before.
    expect(
      classifyRequest(notification('notifications/initialized'), {
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'notifications/initialized',
      }).era,
    ).toBe('legacy');
  });

  it('rejects an unknown header version with 400 + -32600 naming the header and the supported versions', () => {
    const error = rejection(() => classifyRequest(request('tools/list'), { 'mcp-protocol-version': '2025-01-01' }));
    expect(error.code).toBe(ErrorCode.InvalidRequest);
    expect(error.httpStatus).toBe(400);
    expect(error.message).toContain('MCP-Protocol-Version');
    expect(error.message).toContain('2025-11-25');
    expect(error.data).toEqual({
      supported: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'],
      requested: '2025-01-01',
    });
  });

  it('cuts a huge header value in the error message', () => {
    const error = rejection(() => classifyRequest(request('tools/list'), { 'mcp-protocol-version': 'x'.repeat(5000) }));
    expect(error.message.length).toBeLessThan(300);
  });

  it('reads the progress token from params._meta', () => {
    expect(classifyRequest(request('tools/call', { name: 'x', _meta: { progressToken: 'p1' } }), {}).progressToken).toBe('p1');
    expect(classifyRequest(request('tools/call', { name: 'x', _meta: { progressToken: 7 } }), {}).progressToken).toBe(7);
    expect(classifyRequest(request('tools/call', { name: 'x', _meta: { progressToken: {} } }), {}).progressToken).toBeUndefined();
  });

  it('has no logLevel or clientInfo outside initialize', () => {
    const context = classifyRequest(request('tools/list', { _meta: { 'io.modelcontextprotocol/logLevel': 'debug' } }), {});
    expect(context.logLevel).toBeUndefined();
    expect(context.clientInfo).toBeUndefined();
  });

  it('does not check Mcp-Method or Mcp-Name on legacy traffic', () => {
    expect(classifyRequest(request('tools/call', { name: 'a' }), { 'mcp-method': 'other', 'mcp-name': 'b' }).era).toBe('legacy');
  });

  it('serves a claim-less server/discover without a modern header as legacy (the method is then unknown)', () => {
    expect(classifyRequest(request('server/discover'), {})).toEqual({ era: 'legacy', protocolVersion: '2025-03-26' });
  });
});

describe('classifyRequest — modern era', () => {
  it('recognises the _meta claim and reads clientInfo, capabilities, logLevel and progress token', () => {
    const { message, headers } = modern(
      'tools/call',
      { name: 'get_weather', arguments: {} },
      {
        ...MODERN_META,
        'io.modelcontextprotocol/clientCapabilities': { sampling: {} },
        'io.modelcontextprotocol/logLevel': 'warning',
        progressToken: 'tok',
      },
    );
    expect(classifyRequest(message, headers)).toEqual({
      era: 'modern',
      protocolVersion: '2026-07-28',
      clientInfo: { name: 'conformance-test-client', version: '1.0.0' },
      clientCapabilities: { sampling: {} },
      logLevel: 'warning',
      progressToken: 'tok',
    });
  });

  it('serves a request without clientInfo (a SHOULD, conformance RequestMetaClientInfoOptional)', () => {
    const { message, headers } = modern(
      'server/discover',
      {},
      {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    );
    const context = classifyRequest(message, headers);
    expect(context.era).toBe('modern');
    expect(context.clientInfo).toBeUndefined();
  });

  it('classifies a modern initialize as modern so the transport answers 404 + -32601', () => {
    const { message, headers } = modern('initialize', { protocolVersion: '2025-11-25' });
    expect(classifyRequest(message, headers).era).toBe('modern');
  });

  describe('required _meta keys (400 + -32602, conformance sep-2575-request-meta-invalid-*)', () => {
    it('names both keys when server/discover has no _meta', () => {
      const error = rejection(() =>
        classifyRequest(request('server/discover', {}), { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' }),
      );
      expect(error.code).toBe(ErrorCode.InvalidParams);
      expect(error.httpStatus).toBe(400);
      expect(error.message).toContain('io.modelcontextprotocol/protocolVersion');
      expect(error.message).toContain('io.modelcontextprotocol/clientCapabilities');
    });

    it('names the missing protocolVersion', () => {
      const error = rejection(() =>
        classifyRequest(
          request('server/discover', {
            _meta: { 'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} },
          }),
          { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' },
        ),
      );
      expect(error).toMatchObject({ code: -32602, httpStatus: 400, data: { missing: ['io.modelcontextprotocol/protocolVersion'] } });
    });

    it('names the missing clientCapabilities', () => {
      const error = rejection(() =>
        classifyRequest(request('server/discover', { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } }), {
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'server/discover',
        }),
      );
      expect(error).toMatchObject({ code: -32602, httpStatus: 400, data: { missing: ['io.modelcontextprotocol/clientCapabilities'] } });
    });

    it('treats clientCapabilities beside a modern header as a modern request missing its claim', () => {
      const error = rejection(() =>
        classifyRequest(request('tools/list', { _meta: { 'io.modelcontextprotocol/clientCapabilities': {} } }), {
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/list',
        }),
      );
      expect(error).toMatchObject({ code: -32602, httpStatus: 400, data: { missing: ['io.modelcontextprotocol/protocolVersion'] } });
    });

    it.each([
      ['io.modelcontextprotocol/protocolVersion', 20260728],
      ['io.modelcontextprotocol/clientCapabilities', []],
      ['io.modelcontextprotocol/clientInfo', 'claude'],
      ['io.modelcontextprotocol/logLevel', 'verbose'],
    ])('rejects a malformed %s naming it', (key, value) => {
      const { message, headers } = modern('tools/list', {}, { ...MODERN_META, [key]: value });
      const error = rejection(() => classifyRequest(message, headers));
      expect(error).toMatchObject({ code: -32602, httpStatus: 400 });
      expect(error.message).toContain(key);
    });
  });

  describe('notifications', () => {
    it('needs no headers and no clientCapabilities', () => {
      const context = classifyRequest(
        notification('notifications/cancelled', { requestId: 1, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } }),
        {},
      );
      expect(context).toEqual({ era: 'modern', protocolVersion: '2026-07-28' });
    });

    it('still rejects a mismatching Mcp-Method', () => {
      const message = notification('notifications/cancelled', { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } });
      expect(rejection(() => classifyRequest(message, { 'mcp-method': 'notifications/progress' })).code).toBe(-32020);
    });

    it('serves a claim-less notification as legacy', () => {
      expect(classifyRequest(notification('notifications/initialized'), {})).toEqual({ era: 'legacy', protocolVersion: '2025-03-26' });
    });
  });

  it('does not mutate the message or the headers', () => {
    const { message, headers } = modern('tools/call', { name: 'a' });
    const before = JSON.stringify({ message, headers });
    classifyRequest(message, headers);
    expect(JSON.stringify({ message, headers })).toBe(before);
  });
});

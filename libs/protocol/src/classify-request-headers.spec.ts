import { classifyRequest, type HttpHeaders } from './classify-request';
import { ErrorCode } from './error-codes';
import type { JsonObject, JsonRpcRequest } from './jsonrpc';
import { McpError } from './mcp-error';

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'conformance-test-client', version: '1.0.0' },
};

function request(method: string, params?: JsonObject, id: string | number = 1): JsonRpcRequest {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
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

// The HTTP headers a modern request must carry beside its _meta claim, and what a mismatch gets.
describe('classifyRequest — modern-era headers', () => {
  describe('MCP-Protocol-Version header', () => {
    it('rejects a header that differs from the _meta version with 400 + -32020 (conformance HttpServerHeaderMismatch400)', () => {
      const { message } = modern('server/discover', {}, { ...MODERN_META, 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' });
      const error = rejection(() => classifyRequest(message, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' }));
      expect(error).toMatchObject({ code: ErrorCode.HeaderMismatch, httpStatus: 400 });
      expect(error.message).toContain('MCP-Protocol-Version');
    });

    it('rejects an unknown header beside a modern _meta version with -32020', () => {
      const { message } = modern('tools/list');
      expect(rejection(() => classifyRequest(message, { 'mcp-protocol-version': '2027-01-01', 'mcp-method': 'tools/list' })).code).toBe(
        -32020,
      );
    });

    it('tolerates a legacy header beside a modern _meta version (Claude, anthropics/claude-code#93290)', () => {
      const { message } = modern('tools/list');
      expect(classifyRequest(message, { 'mcp-protocol-version': '2025-11-25', 'mcp-method': 'tools/list' })).toMatchObject({
        era: 'modern',
        protocolVersion: '2026-07-28',
      });
    });

    it('with a legacy header, tolerates absent Mcp-Method and Mcp-Name but still checks present ones', () => {
      const { message } = modern('tools/call', { name: 'get_weather' });
      expect(classifyRequest(message, { 'mcp-protocol-version': '2025-11-25' }).era).toBe('modern');
      expect(rejection(() => classifyRequest(message, { 'mcp-protocol-version': '2025-11-25', 'mcp-method': 'tools/list' })).code).toBe(
        -32020,
      );
      expect(rejection(() => classifyRequest(message, { 'mcp-protocol-version': '2025-11-25', 'mcp-name': 'other' })).code).toBe(-32020);
    });

    it('rejects a missing header on a modern request with 400 + -32020', () => {
      const { message } = modern('tools/list');
      const error = rejection(() => classifyRequest(message, { 'mcp-method': 'tools/list' }));
      expect(error).toMatchObject({ code: -32020, httpStatus: 400 });
      expect(error.message).toContain('MCP-Protocol-Version');
    });

    it('accepts whitespace around the header value', () => {
      const { message } = modern('tools/list');
      expect(classifyRequest(message, { 'mcp-protocol-version': ' 2026-07-28 ', 'mcp-method': 'tools/list' }).era).toBe('modern');
    });
  });

  describe('unsupported _meta version (400 + -32022)', () => {
    it('lists the supported versions and echoes the requested one (conformance ServerUnsupportedVersionError)', () => {
      const { message } = modern('server/discover', {}, { ...MODERN_META, 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' });
      const error = rejection(() => classifyRequest(message, { 'mcp-protocol-version': 'v999.0.0', 'mcp-method': 'server/discover' }));
      expect(error).toMatchObject({
        code: ErrorCode.UnsupportedProtocolVersion,
        httpStatus: 400,
        data: { supported: ['2026-07-28'], requested: 'v999.0.0' },
      });
    });

    it('answers a legacy version inside _meta with -32022 (legacy versions are negotiated by initialize)', () => {
      const { message } = modern('tools/list', {}, { ...MODERN_META, 'io.modelcontextprotocol/protocolVersion': '2025-11-25' });
      const error = rejection(() => classifyRequest(message, { 'mcp-protocol-version': '2025-11-25', 'mcp-method': 'tools/list' }));
      expect(error).toMatchObject({ code: -32022, data: { supported: ['2026-07-28'], requested: '2025-11-25' } });
    });

    it('answers an unsupported _meta version beside a legacy header with -32022, not -32020', () => {
      const { message } = modern('tools/list', {}, { ...MODERN_META, 'io.modelcontextprotocol/protocolVersion': '2027-01-01' });
      expect(rejection(() => classifyRequest(message, { 'mcp-protocol-version': '2025-11-25', 'mcp-method': 'tools/list' })).code).toBe(
        -32022,
      );
    });
  });

  describe('Mcp-Method header (conformance http-header-validation)', () => {
    it('rejects a mismatch with 400 + -32020', () => {
      const { message } = modern('tools/list');
      const error = rejection(() => classifyRequest(message, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'prompts/list' }));
      expect(error).toMatchObject({ code: -32020, httpStatus: 400, data: { header: 'Mcp-Method', received: 'prompts/list' } });
    });

    it('rejects a missing header', () => {
      const { message } = modern('tools/list');
      expect(rejection(() => classifyRequest(message, { 'mcp-protocol-version': '2026-07-28' }))).toMatchObject({
        code: -32020,
        data: { header: 'Mcp-Method', received: null },
      });
    });

    it('compares values case-sensitively', () => {
      const { message } = modern('tools/list');
      expect(rejection(() => classifyRequest(message, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'TOOLS/LIST' })).code).toBe(
        -32020,
      );
    });

    it('checks the method before the version gate, as the SDK v2 ladder does', () => {
      const { message } = modern('tools/list', {}, { ...MODERN_META, 'io.modelcontextprotocol/protocolVersion': 'v9' });
      expect(rejection(() => classifyRequest(message, { 'mcp-protocol-version': 'v9', 'mcp-method': 'prompts/list' })).code).toBe(-32020);
    });
  });

  describe('Mcp-Name header', () => {
    it.each([
      ['tools/call', { name: 'get_weather' }],
      ['prompts/get', { name: 'summary' }],
      ['resources/read', { uri: 'file:///a.txt' }],
    ])('accepts a matching header on %s', (method, params) => {
      const { message, headers } = modern(method, params);
      expect(classifyRequest(message, headers).era).toBe('modern');
    });

    it('rejects a mismatching name with 400 + -32020', () => {
      const { message } = modern('tools/call', { name: 'get_weather' });
      const error = rejection(() =>
        classifyRequest(message, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'wrong_tool_name' }),
      );
      expect(error).toMatchObject({ code: -32020, httpStatus: 400, data: { header: 'Mcp-Name', received: 'wrong_tool_name' } });
      expect(error.message).toContain('params.name');
    });

    it('rejects a missing name when the body has one', () => {
      const { message } = modern('resources/read', { uri: 'file:///a' });
      const error = rejection(() => classifyRequest(message, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'resources/read' }));
      expect(error).toMatchObject({ code: -32020, data: { header: 'Mcp-Name', received: null } });
      expect(error.message).toContain('params.uri');
    });

    it('accepts whitespace around the name (conformance ServerAcceptsWhitespaceHeaderValue)', () => {
      const { message } = modern('tools/call', { name: 'get_weather' });
      expect(
        classifyRequest(message, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': '  get_weather  ' }).era,
      ).toBe('modern');
    });

    it('decodes the Base64 sentinel before comparing', () => {
      const { message } = modern('prompts/get', { name: 'résumé ☕' });
      const encoded = `=?base64?${Buffer.from('résumé ☕', 'utf8').toString('base64')}?=`;
      expect(classifyRequest(message, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'prompts/get', 'mcp-name': encoded }).era).toBe(
        'modern',
      );
    });

    it('rejects an invalid Base64 sentinel', () => {
      const { message } = modern('tools/call', { name: 'Hello' });
      expect(
        rejection(() =>
          classifyRequest(message, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': '=?base64?SGVsbG8?=' }),
        ).code,
      ).toBe(-32020);
    });

    it('accepts raw UTF-8 bytes that Node hands over as latin1', () => {
      const { message } = modern('tools/call', { name: 'café' });
      const asLatin1 = Buffer.from('café', 'utf8').toString('latin1');
      expect(classifyRequest(message, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': asLatin1 }).era).toBe(
        'modern',
      );
    });

    it('leaves a body without a string name to params validation', () => {
      const { message } = modern('tools/call', { arguments: {} });
      expect(classifyRequest(message, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call' }).era).toBe('modern');
    });

    it('requires no Mcp-Name on other methods', () => {
      const { message } = modern('tools/list');
      expect(
        classifyRequest(message, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list', 'mcp-name': 'anything' }).era,
      ).toBe('modern');
    });
  });
});

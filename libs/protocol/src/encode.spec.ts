import { encodeError, encodeNotification, encodeResult, encodeResultBytes } from './encode';
import { ErrorCode } from './error-codes';
import { McpError } from './mcp-error';

describe('encodeResult', () => {
  it('writes the envelope in jsonrpc, id, result order', () => {
    expect(encodeResult(1, { tools: [] })).toBe('{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}');
  });

  it('quotes and escapes string ids', () => {
    expect(JSON.parse(encodeResult('a"b', {}))).toEqual({ jsonrpc: '2.0', id: 'a"b', result: {} });
  });

  it('writes an empty object for an undefined result', () => {
    expect(JSON.parse(encodeResult(2, undefined))).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
  });
});

describe('encodeError', () => {
  it('uses the McpError code, message and data', () => {
    const error = new McpError(ErrorCode.UnsupportedProtocolVersion, 'nope', { supported: ['2026-07-28'], requested: 'x' }, 400);
    expect(JSON.parse(encodeError(5, error))).toEqual({
      jsonrpc: '2.0',
      id: 5,
      error: { code: -32022, message: 'nope', data: { supported: ['2026-07-28'], requested: 'x' } },
    });
  });

  it('writes a null id and leaves out absent data', () => {
    expect(encodeError(null, { code: -32700, message: 'Parse error' })).toBe(
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}',
    );
  });

  it('keeps data of a plain error object', () => {
    expect(JSON.parse(encodeError('r', { code: -32602, message: 'm', data: [1] })).error.data).toEqual([1]);
  });

  it('never leaks the stack or the HTTP status of an McpError', () => {
    const parsed = JSON.parse(encodeError(1, new McpError(-32600, 'bad', undefined, 400)));
    expect(Object.keys(parsed.error)).toEqual(['code', 'message']);
  });
});

describe('encodeResultBytes', () => {
  it('wraps precompiled bytes byte-for-byte', () => {
    const bytes = Buffer.from('{"tools":[{"name":"a"}],"resultType":"complete"}');
    const out = encodeResultBytes(42, bytes);
    expect(out.toString('utf8')).toBe('{"jsonrpc":"2.0","id":42,"result":{"tools":[{"name":"a"}],"resultType":"complete"}}');
  });

  it('encodes string ids as JSON strings', () => {
    expect(JSON.parse(encodeResultBytes('id-"1"', Buffer.from('{}')).toString('utf8'))).toEqual({
      jsonrpc: '2.0',
      id: 'id-"1"',
      result: {},
    });
  });

  it('sizes multi-byte string ids correctly', () => {
    const out = encodeResultBytes('ид-☕', Buffer.from('{"a":1}'));
    expect(JSON.parse(out.toString('utf8'))).toEqual({ jsonrpc: '2.0', id: 'ид-☕', result: { a: 1 } });
    expect(out.toString('utf8').endsWith('{"a":1}}')).toBe(true);
  });

  it('does not parse or re-serialise the result bytes', () => {
    // Spacing inside the precompiled bytes survives untouched, which a re-serialisation would drop.
    const bytes = Buffer.from('{ "a" : 1 }');
    expect(encodeResultBytes(1, bytes).toString('utf8')).toBe('{"jsonrpc":"2.0","id":1,"result":{ "a" : 1 }}');
  });

  it('keeps multi-byte UTF-8 intact', () => {
    const bytes = Buffer.from('{"d":"café ✓"}');
    expect(JSON.parse(encodeResultBytes(1, bytes).toString('utf8')).result.d).toBe('café ✓');
  });
});

describe('encodeNotification', () => {
  it('writes method and params', () => {
    expect(JSON.parse(encodeNotification('notifications/progress', { progressToken: 't', progress: 1 }))).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 't', progress: 1 },
    });
  });

  it('leaves out absent params', () => {
    expect(encodeNotification('notifications/tools/list_changed')).toBe('{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}');
  });
});

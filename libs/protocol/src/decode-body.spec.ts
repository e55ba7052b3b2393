import { decodeBody, type ClassifiedMessage } from './decode-body';
import { ErrorCode } from './error-codes';
import { McpError } from './mcp-error';

function single(raw: string | Buffer): ClassifiedMessage {
  const decoded = decodeBody(raw);
  if (decoded.kind !== 'single') throw new Error(`expected a single message, got ${decoded.kind}`);
  return decoded.message;
}

function thrown(fn: () => unknown): McpError {
  try {
    fn();
  } catch (error) {
    if (error instanceof McpError) return error;
    throw error;
  }
  throw new Error('expected an McpError');
}

function invalid(raw: string): Extract<ClassifiedMessage, { type: 'invalid' }> {
  const message = single(raw);
  if (message.type !== 'invalid') throw new Error(`expected invalid, got ${message.type}`);
  return message;
}

describe('decodeBody', () => {
  it('classifies a request and keeps id, method and params', () => {
    expect(single('{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":"a"}}')).toEqual({
      type: 'request',
      message: { jsonrpc: '2.0', id: 7, method: 'tools/list', params: { cursor: 'a' } },
    });
  });

  it('accepts a Buffer body, a string id and a request without params', () => {
    expect(single(Buffer.from('{"jsonrpc":"2.0","id":"abc","method":"ping"}'))).toEqual({
      type: 'request',
      message: { jsonrpc: '2.0', id: 'abc', method: 'ping' },
    });
  });

  it('tolerates a UTF-8 byte order mark', () => {
    expect(single(Buffer.from('\ufeff{"jsonrpc":"2.0","id":1,"method":"ping"}', 'utf8')).type).toBe('request');
  });

  it('classifies a message without id as a notification', () => {
    expect(single('{"jsonrpc":"2.0","method":"notifications/initialized"}')).toEqual({
      type: 'notification',
      message: { jsonrpc: '2.0', method: 'notifications/initialized' },
    });
  });

  it('classifies result and error responses', () => {
    expect(single('{"jsonrpc":"2.0","id":3,"result":{"ok":true}}')).toEqual({
      type: 'response',
      message: { jsonrpc: '2.0', id: 3, result: { ok: true } },
    });
    expect(single('{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"x","data":{"a":1}}}')).toEqual({
      type: 'response',
      message: { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'x', data: { a: 1 } } },
    });
  });

  it('answers malformed JSON with -32700 and HTTP 400', () => {
    const error = thrown(() => decodeBody('{"jsonrpc":"2.0",'));
    expect(error.code).toBe(ErrorCode.ParseError);
    expect(error.httpStatus).toBe(400);
    expect(error.message).toMatch(/^Parse error/);
  });

  it('answers an empty body with -32700 naming it', () => {
    const error = thrown(() => decodeBody(''));
    expect(error.code).toBe(ErrorCode.ParseError);
    expect(error.message).toContain('empty body');
  });

  it('answers an empty batch with -32600 and HTTP 400', () => {
    const error = thrown(() => decodeBody('[]'));
    expect(error.code).toBe(ErrorCode.InvalidRequest);
    expect(error.httpStatus).toBe(400);
    expect(error.message).toContain('empty batch');
  });

  it.each(['null', '42', '"text"', 'true'])('answers a %s body with -32600 and HTTP 400', (raw) => {
    const error = thrown(() => decodeBody(raw));
    expect(error.code).toBe(ErrorCode.InvalidRequest);
    expect(error.httpStatus).toBe(400);
  });

  it('decodes a batch element by element, invalid ones included', () => {
    const decoded = decodeBody('[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},5]');
    expect(decoded.kind).toBe('batch');
    if (decoded.kind !== 'batch') return;
    expect(decoded.messages.map((m) => m.type)).toEqual(['request', 'notification', 'invalid']);
  });

  it('rejects a missing jsonrpc member and keeps the id', () => {
    const message = invalid('{"id":9,"method":"ping"}');
    expect(message.id).toBe(9);
    expect(message.error.code).toBe(ErrorCode.InvalidRequest);
    expect(message.error.httpStatus).toBe(400);
    expect(message.error.message).toContain('jsonrpc');
  });

  it('rejects jsonrpc "1.0" naming the field', () => {
    expect(invalid('{"jsonrpc":"1.0","id":"x","method":"ping"}')).toMatchObject({
      id: 'x',
      error: { message: expect.stringContaining('jsonrpc') },
    });
  });

  it('rejects a non-string method naming the field', () => {
    expect(invalid('{"jsonrpc":"2.0","id":1,"method":5}')).toMatchObject({
      id: 1,
      error: { code: -32600, message: expect.stringContaining('method') },
    });
  });

  it('rejects a null id on a request', () => {
    const message = invalid('{"jsonrpc":"2.0","id":null,"method":"ping"}');
    expect(message.id).toBeNull();
    expect(message.error.message).toContain('null');
  });

  it.each(['{"a":1}', '[1]', 'true'])('rejects the id %s with a null id in the error', (id) => {
    const message = invalid(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`);
    expect(message.id).toBeNull();
    expect(message.error.message).toContain('id');
  });

  it.each(['"str"', '5', 'null', 'true'])('rejects params %s naming the field', (params) => {
    const message = invalid(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":${params}}`);
    expect(message.id).toBe(2);
    expect(message.error.code).toBe(ErrorCode.InvalidRequest);
    expect(message.error.message).toContain('params');
  });

  it('rejects positional (array) params with -32602, as MCP has named params only', () => {
    const message = invalid('{"jsonrpc":"2.0","id":2,"method":"tools/list","params":[1]}');
    expect(message.error.code).toBe(ErrorCode.InvalidParams);
    expect(message.error.httpStatus).toBe(400);
    expect(message.id).toBe(2);
  });

  it('rejects an object that is neither a request nor a response', () => {
    expect(invalid('{"jsonrpc":"2.0","id":4}').error.message).toContain('method');
  });

  it('rejects a response with both result and error', () => {
    expect(invalid('{"jsonrpc":"2.0","id":4,"result":{},"error":{"code":1,"message":"m"}}').id).toBe(4);
  });

  it('rejects malformed responses naming the field', () => {
    expect(invalid('{"jsonrpc":"2.0","result":{}}').error.message).toContain('id');
    expect(invalid('{"jsonrpc":"2.0","id":null,"result":{}}').error.message).toContain('id');
    expect(invalid('{"jsonrpc":"2.0","id":1,"result":5}').error.message).toContain('result');
    expect(invalid('{"jsonrpc":"2.0","id":1,"error":"bad"}').error.message).toContain('error');
    expect(invalid('{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}').error.message).toContain('error.code');
    expect(invalid('{"jsonrpc":"2.0","id":1,"error":{"code":1}}').error.message).toContain('error.message');
  });

  it('drops unknown top-level members from the classified message', () => {
    expect(single('{"jsonrpc":"2.0","id":1,"method":"ping","extra":true}')).toEqual({
      type: 'request',
      message: { jsonrpc: '2.0', id: 1, method: 'ping' },
    });
  });
});

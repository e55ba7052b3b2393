import { ErrorCode } from './error-codes';
import { McpError } from './mcp-error';

describe('McpError', () => {
  it('defaults to HTTP 200 and leaves data out of the wire form when absent', () => {
    const error = new McpError(ErrorCode.InvalidParams, 'bad cursor');
    expect(error.httpStatus).toBe(200);
    expect(error.toJSON()).toEqual({ code: -32602, message: 'bad cursor' });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('McpError');
  });

  it('carries data, the HTTP status and the cause', () => {
    const cause = new Error('root');
    const error = new McpError(ErrorCode.HeaderMismatch, 'mismatch', { header: 'Mcp-Name' }, 400, { cause });
    expect(error.toJSON()).toEqual({ code: -32020, message: 'mismatch', data: { header: 'Mcp-Name' } });
    expect(error.httpStatus).toBe(400);
    expect(error.cause).toBe(cause);
  });

  it('uses distinct codes for every wire error', () => {
    const codes = Object.values(ErrorCode);
    expect(new Set(codes).size).toBe(codes.length);
  });
});

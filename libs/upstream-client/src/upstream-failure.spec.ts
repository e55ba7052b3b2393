import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { NetGuardError, ResponseTooLargeError } from '@switchboard/net-guard';
import { UpstreamProtocolError, UpstreamResponseBrokenError } from './upstream-errors';
import { classifyUpstreamFailure, discoveryKind, isModernRefusal } from './upstream-failure';

const wrap = (cause: unknown, message = 'SDK error') => Object.assign(new Error(message), { cause });
const kindOf = (err: unknown) => classifyUpstreamFailure(err).kind;

describe('classifyUpstreamFailure', () => {
  it('finds an SSRF refusal anywhere in the cause chain, before anything else', () => {
    const guard = Object.create(NetGuardError.prototype) as NetGuardError;
    Object.assign(guard, { message: 'url: resolves to a private address' });
    expect(classifyUpstreamFailure(wrap(wrap(guard), 'HTTP 401'))).toEqual({ kind: 'refused-url', error: guard });
  });

  it('names the byte limit it found in the chain', () => {
    const big = new ResponseTooLargeError(1024, 'event', 'http://u');
    expect(classifyUpstreamFailure(wrap(big, 'discovery page too large'))).toEqual({ kind: 'too-large', error: big });
  });

  it.each([
    ['SDK "Connection closed"', new McpError(-32000, 'Connection closed'), 'closed'],
    ['SDK request timeout', new McpError(-32001, 'Request timed out'), 'timeout'],
    ['an AbortSignal timeout', new DOMException('timed out', 'TimeoutError'), 'timeout'],
    ['an abort', new DOMException('aborted', 'AbortError'), 'aborted'],
    ['a response broken mid-way', new UpstreamResponseBrokenError('reset'), 'broken'],
    ['an answer that is not MCP', new UpstreamProtocolError('no result'), 'invalid'],
    ['HTTP 503', new StreamableHTTPError(503, 'Error POSTing to endpoint'), 'http'],
    ['HTTP 401', new StreamableHTTPError(401, 'Error POSTing to endpoint'), 'auth'],
    ['an unexpected content type', new StreamableHTTPError(-1, 'Unexpected content type: text/html'), 'invalid'],
    ['a non-JSON body', new SyntaxError('Unexpected token < in JSON'), 'invalid'],
    ['an SSE status', Object.assign(new Error('SSE error: Non-200 status code (502)'), { name: 'SseError', code: 502 }), 'http'],
    ['SDK v2 request timeout', Object.assign(new Error('Request timed out'), { code: 'REQUEST_TIMEOUT' }), 'timeout'],
    ['a JSON-RPC error answer', new McpError(-32602, 'Invalid params'), 'answer'],
    ['an upstream-defined -32000 answer', new McpError(-32000, 'Quota exceeded'), 'answer'],
    ['an error that says nothing', new Error('boom'), 'unknown'],
  ])('%s', (_what, err, kind) => {
    expect(kindOf(err)).toBe(kind);
  });

  it('reads third-party messages: a rejected credential, silence and a network failure', () => {
    expect(kindOf(Object.assign(new Error('Streamable HTTP error'), { code: 401 }))).toBe('auth');
    expect(kindOf(new Error('Error POSTing to endpoint (HTTP 403): Forbidden'))).toBe('auth');
    expect(kindOf(wrap(Object.assign(new Error('The operation was aborted'), { name: 'AbortError' })))).toBe('timeout');
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    expect(classifyUpstreamFailure(wrap(wrap(refused, 'fetch failed')))).toEqual({ kind: 'network', error: refused });
  });
});

describe('discovery', () => {
  it('reads an abort as its own deadline and a broken body as an outage', () => {
    expect(discoveryKind('aborted')).toBe('timeout');
    expect(discoveryKind('broken')).toBe('network');
  });

  it('tries the legacy handshake only after an answer of the wrong protocol', () => {
    expect(isModernRefusal(new Error('Method not found: server/discover'))).toBe(true);
    expect(isModernRefusal(Object.assign(new Error('HTTP 405'), { code: 405 }))).toBe(true);
    expect(isModernRefusal(new McpError(-32601, 'Method not found'))).toBe(true);
    expect(isModernRefusal(new StreamableHTTPError(401, 'Error POSTing to endpoint'))).toBe(false);
    expect(isModernRefusal(new DOMException('aborted', 'AbortError'))).toBe(false);
    expect(isModernRefusal(Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } }))).toBe(false);
  });
});

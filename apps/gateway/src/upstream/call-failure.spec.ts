import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError as SdkMcpError } from '@modelcontextprotocol/sdk/types.js';
import { NetGuardError, ResponseTooLargeError } from '@switchboard/net-guard';
import { GatewayError } from './gateway-errors';
import { UpstreamResponseBrokenError } from '@switchboard/upstream-client';
import { classifyCallFailure, countsAgainstUpstream, upstreamError } from './call-failure';

describe('classifyCallFailure', () => {
  it.each([
    [
      'SDK "Connection closed" (what concurrent callers saw when a shared connection dropped)',
      new SdkMcpError(-32000, 'Connection closed'),
      'closed',
      true,
    ],
    ['SDK request timeout', new SdkMcpError(-32001, 'Request timed out'), 'timeout', true],
    ['an AbortSignal timeout', new DOMException('timed out', 'TimeoutError'), 'timeout', true],
    ['an oversized response', new ResponseTooLargeError(1024, 'response', 'http://u'), 'too-large', true],
    ['a response broken mid-way', new UpstreamResponseBrokenError('reset'), 'broken', true],
    ['HTTP 503', new StreamableHTTPError(503, 'Error POSTing to endpoint'), 'http', true],
    ['HTTP 401', new StreamableHTTPError(401, 'Error POSTing to endpoint'), 'auth', true],
    ['a non-JSON body', new SyntaxError('Unexpected token < in JSON'), 'invalid', true],
    ['an unexpected content type', new StreamableHTTPError(-1, 'Unexpected content type: text/html'), 'invalid', true],
    ['connection refused', Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } }), 'network', true],
    ['the SSRF guard', new NetGuardError('NET_GUARD_BLOCKED_ADDRESS', 'blocked'), 'refused-url', true],
    ['a JSON-RPC error answer', new SdkMcpError(-32602, 'Invalid params'), 'answer', false],
    ['an upstream-defined -32000 answer', new SdkMcpError(-32000, 'Quota exceeded'), 'answer', false],
    ['an error that says nothing (below HTTP)', new Error('socket hang up'), 'network', true],
    ["the gateway's own refusal", new GatewayError('GW_TENANT_INFLIGHT_LIMIT', 'over', { upstream: 'u' }), 'gateway', false],
  ])('%s', (_what, err, kind, counts) => {
    const k = classifyCallFailure(err, false);
    expect(k).toBe(kind);
    expect(countsAgainstUpstream(k)).toBe(counts);
  });

  it('a client that gave up is not the upstream failing', () => {
    expect(classifyCallFailure(new DOMException('aborted', 'AbortError'), true)).toBe('cancelled');
    // The SDK turns an aborted request into its own -32001 "timeout": still the client's doing, not counted.
    expect(classifyCallFailure(new SdkMcpError(-32001, 'client closed the connection'), true)).toBe('cancelled');
    expect(countsAgainstUpstream('cancelled')).toBe(false);
  });
});

describe('upstreamError', () => {
  it('codes each kind of failure, with structured details and the original error as cause', () => {
    const big = new ResponseTooLargeError(1024, 'event', 'http://u');
    expect(upstreamError('too-large', big, 'h', 1000)).toMatchObject({
      code: 'GW_UPSTREAM_TOO_LARGE',
      message:
        'Upstream server h sent a server-sent event larger than 1024 bytes; the call was stopped (limit limits.upstreamResponseBytes = 1024)',
      details: { upstream: 'h', limit: 'upstreamResponseBytes', maxBytes: 1024 },
      cause: big,
    });
    expect(upstreamError('timeout', new Error('t'), 'h', 1500)).toMatchObject({
      code: 'GW_UPSTREAM_TIMEOUT',
      details: { upstream: 'h', timeoutMs: 1500 },
      message: 'Upstream server h did not answer within 1500 ms',
    });
    expect(upstreamError('auth', new StreamableHTTPError(401, 'Error POSTing to endpoint'), 'h', 1)).toMatchObject({
      code: 'GW_UPSTREAM_PROTOCOL',
      details: { upstream: 'h', status: 401 },
    });
    expect(upstreamError('http', new StreamableHTTPError(503, 'Error POSTing to endpoint'), 'h', 1).details).toEqual({
      upstream: 'h',
      status: 503,
    });
    expect(
      upstreamError('network', Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } }), 'h', 1),
    ).toMatchObject({ code: 'GW_UPSTREAM_UNREACHABLE', message: 'Upstream server h is unavailable (ECONNREFUSED)' });
    expect(upstreamError('refused-url', new NetGuardError('NET_GUARD_BLOCKED_ADDRESS', 'blocked'), 'h', 1).code).toBe(
      'GW_UPSTREAM_URL_REFUSED',
    );
    const refusal = new GatewayError('GW_CIRCUIT_OPEN', 'open', { upstream: 'h' });
    expect(upstreamError('gateway', refusal, 'h', 1)).toBe(refusal);
  });
});

import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError as SdkMcpError } from '@modelcontextprotocol/sdk/types.js';
import { NetGuardError, ResponseTooLargeError } from '@switchboard/net-guard';
import { CircuitBreaker } from './circuit-breaker';
import { classifyUpstreamError, countsAgainstUpstream, GatewayRefusal, UpstreamBrokenError } from './upstream-failure';

describe('classifyUpstreamError', () => {
  it.each([
    ['SDK "Connection closed" (what concurrent callers saw when a shared connection dropped)', new SdkMcpError(-32000, 'Connection closed'), 'closed', true],
    ['SDK request timeout', new SdkMcpError(-32001, 'Request timed out'), 'timeout', true],
    ['an AbortSignal timeout', new DOMException('timed out', 'TimeoutError'), 'timeout', true],
    ['an oversized response', new ResponseTooLargeError(1024, 'response', 'http://u'), 'too-large', true],
    ['a response broken mid-way', new UpstreamBrokenError('reset'), 'broken', true],
    ['HTTP 503', new StreamableHTTPError(503, 'Error POSTing to endpoint'), 'http', true],
    ['HTTP 401', new StreamableHTTPError(401, 'Error POSTing to endpoint'), 'http', true],
    ['a non-JSON body', new SyntaxError('Unexpected token < in JSON'), 'invalid', true],
    ['an unexpected content type', new StreamableHTTPError(-1, 'Unexpected content type: text/html'), 'invalid', true],
    ['connection refused', Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } }), 'network', true],
    ['the SSRF guard', new NetGuardError('NET_GUARD_BLOCKED_ADDRESS', 'blocked'), 'refused-url', true],
    ['a JSON-RPC error answer', new SdkMcpError(-32602, 'Invalid params'), 'answer', false],
    ['an upstream-defined -32000 answer', new SdkMcpError(-32000, 'Quota exceeded'), 'answer', false],
    ["the gateway's own refusal", new GatewayRefusal('TENANT_INFLIGHT_LIMIT', 'over'), 'gateway', false],
  ])('%s', (_what, err, kind, counts) => {
    const k = classifyUpstreamError(err, false);
    expect(k).toBe(kind);
    expect(countsAgainstUpstream(k)).toBe(counts);
  });

  it('a client that gave up is not the upstream failing', () => {
    expect(classifyUpstreamError(new DOMException('aborted', 'AbortError'), true)).toBe('cancelled');
    // The SDK turns an aborted request into its own -32001 "timeout": still the client's doing, not counted.
    expect(classifyUpstreamError(new SdkMcpError(-32001, 'client closed the connection'), true)).toBe('cancelled');
    expect(countsAgainstUpstream('cancelled')).toBe(false);
  });
});

describe('CircuitBreaker with concurrent callers', () => {
  /** What the pool does around each call: pass, await the call, report how it ended. */
  async function guarded(breaker: CircuitBreaker, call: () => Promise<void>): Promise<'ok' | 'failed' | 'refused'> {
    if (!breaker.tryPass()) return 'refused';
    try {
      await call();
      breaker.success();
      return 'ok';
    } catch (err) {
      if (countsAgainstUpstream(classifyUpstreamError(err, false))) breaker.failure();
      else breaker.release();
      return 'failed';
    }
  }

  it('opens when 8 concurrent calls fail, however their failures interleave', async () => {
    let now = 0;
    const breaker = new CircuitBreaker({ failureThreshold: 5, openMs: 1000, now: () => now });
    // All 8 pass before any fails; one fails with a reset, the other 7 with the "Connection closed" the SDK reports after it.
    let fail!: () => void;
    const gate = new Promise<void>((resolve) => (fail = resolve));
    const calls = Array.from({ length: 8 }, (_, i) =>
      guarded(breaker, async () => {
        await gate;
        await Promise.resolve();
        throw i === 0 ? new UpstreamBrokenError('reset') : new SdkMcpError(-32000, 'Connection closed');
      }),
    );
    fail();
    expect(await Promise.all(calls)).toEqual(Array(8).fill('failed'));
    expect(breaker.state).toBe('open');
    expect(await guarded(breaker, async () => undefined)).toBe('refused');

    // Half-open: of 8 concurrent callers exactly one is the trial; its success closes the circuit.
    now = 1000;
    let release!: () => void;
    const trialGate = new Promise<void>((resolve) => (release = resolve));
    const half = Array.from({ length: 8 }, () => guarded(breaker, () => trialGate));
    release();
    const outcomes = await Promise.all(half);
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'refused')).toHaveLength(7);
    expect(breaker.state).toBe('closed');
  });

  it('a cancelled half-open trial frees the trial slot instead of closing or re-opening', async () => {
    let now = 0;
    const breaker = new CircuitBreaker({ failureThreshold: 1, openMs: 1000, now: () => now });
    await guarded(breaker, async () => Promise.reject(new SdkMcpError(-32001, 'timeout')));
    now = 1000;
    expect(await guarded(breaker, async () => Promise.reject(new GatewayRefusal('TENANT_INFLIGHT_LIMIT', 'x')))).toBe('failed');
    expect(breaker.state).toBe('half-open');
    expect(await guarded(breaker, async () => undefined)).toBe('ok');
    expect(breaker.state).toBe('closed');
  });
});

import { McpError as SdkMcpError } from '@modelcontextprotocol/sdk/types.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { NetGuardError, ResponseTooLargeError } from '@switchboard/net-guard';
import { UpstreamProtocolError, UpstreamResponseBrokenError } from '@switchboard/upstream-client';
import { GatewayError } from './gateway-errors';

/**
 * What went wrong with an upstream call, as the breaker and the error message need it:
 * - `answer`: the upstream answered with a JSON-RPC error (it is alive; not a failure);
 * - `timeout`, `too-large`, `broken` (response cut mid-way), `closed` (SDK connection closed
 *   by the far side), `http` (non-2xx status), `invalid` (not MCP JSON-RPC), `network`
 *   (refused / reset / DNS), `refused-url` (the SSRF guard): transport failures, counted;
 * - `cancelled`: the client gave up; `gateway`: the gateway's own doing (its refusal, a
 *   connection it closed) — neither counts against the upstream.
 */
export type UpstreamFailureKind = 'answer' | 'timeout' | 'too-large' | 'broken' | 'closed' | 'http' | 'invalid' | 'network' | 'refused-url' | 'cancelled' | 'gateway';

/** A response body that broke mid-way (the upstream crashed or reset the connection). */
export class UpstreamBrokenError extends Error {
  override readonly name = 'UpstreamBrokenError';
}

const SDK_CONNECTION_CLOSED = -32000;
const SDK_REQUEST_TIMEOUT = -32001;

/** Classifies an error thrown by an upstream call (either SDK line, our fetch wrappers, the SSRF guard). */
export function classifyUpstreamError(err: unknown, clientCancelled: boolean): UpstreamFailureKind {
  if (err instanceof GatewayError) return 'gateway';
  // The client gave up first: whatever the SDK made of the abort (it reports it as its own request timeout), it is not the upstream's failure.
  if (clientCancelled) return 'cancelled';
  if (err instanceof ResponseTooLargeError) return 'too-large';
  if (err instanceof UpstreamBrokenError || err instanceof UpstreamResponseBrokenError) return 'broken';
  if (err instanceof UpstreamProtocolError) return 'invalid';
  if (err instanceof NetGuardError) return 'refused-url';
  const e = err as { name?: string; code?: unknown; message?: string; cause?: unknown } | undefined;
  if (e?.name === 'TimeoutError') return 'timeout';
  if (err instanceof StreamableHTTPError) return e?.code === -1 ? 'invalid' : 'http';
  if (err instanceof SdkMcpError || isModernProtocolError(e)) {
    const code = e?.code as number;
    if (code === SDK_REQUEST_TIMEOUT) return 'timeout';
    if (code === SDK_CONNECTION_CLOSED && /connection closed/i.test(e?.message ?? '')) return 'closed';
    return 'answer';
  }
  if (e?.name === 'AbortError') return 'cancelled';
  if (e?.name === 'SyntaxError' || e?.name === 'ZodError' || /unexpected content type|invalid json/i.test(e?.message ?? '')) return 'invalid';
  if (e?.name === 'SseError' || /status code (\d+)|non-200/i.test(e?.message ?? '')) return 'http';
  return 'network';
}

/** Whether a failure of this kind counts against the upstream's circuit breaker. */
export function countsAgainstUpstream(kind: UpstreamFailureKind): boolean {
  return kind !== 'answer' && kind !== 'cancelled' && kind !== 'gateway';
}

function isModernProtocolError(e: { name?: string; code?: unknown } | undefined): boolean {
  // SDK v2 protocol errors carry the numeric JSON-RPC code (its HTTP errors carry none in that range).
  return !!e && typeof e.code === 'number' && e.code <= -32000 && e.code >= -32768 && e.name !== 'StreamableHTTPError';
}

/**
 * The coded gateway error for a classified upstream failure of server `upstream`, the original
 * error as its cause (a gateway refusal is already coded and passes as it is).
 */
export function upstreamError(kind: UpstreamFailureKind, cause: unknown, upstream: string, timeoutMs: number): GatewayError {
  if (cause instanceof GatewayError) return cause;
  const name = `Upstream server ${upstream}`;
  const e = cause as Error & { code?: unknown };
  const coded = (code: ConstructorParameters<typeof GatewayError>[0], message: string, details: Record<string, unknown> = {}) =>
    new GatewayError(code, message, { upstream, ...details }, { cause });
  switch (kind) {
    case 'too-large': {
      const big = cause as ResponseTooLargeError;
      if (big.unit === 'stream') {
        return coded('GW_UPSTREAM_TOO_LARGE', `${name} streamed more than ${big.maxBytes} bytes of events for one call; the call was stopped (limit UPSTREAM_CALL_STREAM_MAX_BYTES = ${big.maxBytes})`, { limit: 'UPSTREAM_CALL_STREAM_MAX_BYTES', maxBytes: big.maxBytes });
      }
      const what = big.unit === 'event' ? 'sent a server-sent event larger than' : 'answered more than';
      return coded('GW_UPSTREAM_TOO_LARGE', `${name} ${what} ${big.maxBytes} bytes; the call was stopped (limit limits.upstreamResponseBytes = ${big.maxBytes})`, { limit: 'upstreamResponseBytes', maxBytes: big.maxBytes });
    }
    case 'timeout':
      return coded('GW_UPSTREAM_TIMEOUT', `${name} did not answer within ${timeoutMs} ms`, { timeoutMs });
    case 'answer':
      return coded('GW_UPSTREAM_ERROR', `${name} returned an error: ${e.message}`, { upstreamCode: e.code });
    case 'cancelled':
      return coded('GW_CALL_CANCELLED', `The call to ${upstream} was cancelled by the client`);
    case 'broken':
      return coded('GW_UPSTREAM_BROKEN', `${name} failed mid-response: ${e.message}`);
    case 'closed':
      return coded('GW_UPSTREAM_UNREACHABLE', `${name} closed the connection before answering`);
    case 'http':
      return coded('GW_UPSTREAM_PROTOCOL', `${name} answered with an HTTP error (${summarize(e)})`, typeof e.code === 'number' && e.code > 0 ? { status: e.code } : {});
    case 'invalid':
      return coded('GW_UPSTREAM_PROTOCOL', `${name} answered with something that is not MCP JSON-RPC (${summarize(e)})`);
    case 'refused-url':
      return coded('GW_UPSTREAM_URL_REFUSED', `${name} is not reachable: ${e.message}`);
    default:
      return coded('GW_UPSTREAM_UNREACHABLE', `${name} is unavailable (${summarize(e)})`);
  }
}

/** A short reason: the network error code when there is one, else the message cut to 160 characters. */
export function summarize(err: Error | undefined): string {
  const cause = (err as { cause?: { code?: string } } | undefined)?.cause;
  if (cause?.code) return cause.code;
  const msg = err?.message ?? 'unknown error';
  return msg.length > 160 ? `${msg.slice(0, 157)}...` : msg;
}

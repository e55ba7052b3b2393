import { McpError as SdkMcpError } from '@modelcontextprotocol/sdk/types.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { NetGuardError, ResponseTooLargeError } from '@switchboard/net-guard';

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

/** A refusal or failure the gateway itself caused (fair-share caps, open circuit, its own closed connection). */
export class GatewayRefusal extends Error {
  override readonly name = 'GatewayRefusal';
  constructor(
    /** Stable code: `TENANT_INFLIGHT_LIMIT`, `UPSTREAM_QUEUE_FULL`, `UPSTREAM_SLOT_WAIT`, `CIRCUIT_OPEN`, `GATEWAY_CLOSED_CONNECTION`. */
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A response body that broke mid-way (the upstream crashed or reset the connection). */
export class UpstreamBrokenError extends Error {
  override readonly name = 'UpstreamBrokenError';
}

const SDK_CONNECTION_CLOSED = -32000;
const SDK_REQUEST_TIMEOUT = -32001;

/** Classifies an error thrown by an upstream call (either SDK line, our fetch wrappers, the SSRF guard). */
export function classifyUpstreamError(err: unknown, clientCancelled: boolean): UpstreamFailureKind {
  if (err instanceof GatewayRefusal) return 'gateway';
  if (err instanceof ResponseTooLargeError) return 'too-large';
  if (err instanceof UpstreamBrokenError) return 'broken';
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
  if (clientCancelled || e?.name === 'AbortError') return 'cancelled';
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

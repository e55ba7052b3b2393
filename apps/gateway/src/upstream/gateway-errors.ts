import type { ToolCallResult } from '@switchboard/catalog';
import { ErrorCode, McpError } from '@switchboard/protocol';

/**
 * Every failure the gateway reports for a call it routes upstream, by stable code. `rpc` is the
 * JSON-RPC error code a resources/read or prompts/get failure answers with; a tools/call
 * failure is an `isError` result instead (MCP: tool errors are results the model can see).
 */
export const GATEWAY_ERRORS = {
  /** The upstream did not answer within the route's timeout. */
  GW_UPSTREAM_TIMEOUT: { rpc: ErrorCode.InternalError },
  /** Connection refused / reset, DNS, or the upstream closed the connection before answering. */
  GW_UPSTREAM_UNREACHABLE: { rpc: ErrorCode.InternalError },
  /** The SSRF guard refused the upstream's URL (or a redirect target). */
  GW_UPSTREAM_URL_REFUSED: { rpc: ErrorCode.InternalError },
  /** An HTTP error status, or an answer that is not MCP JSON-RPC. */
  GW_UPSTREAM_PROTOCOL: { rpc: ErrorCode.InternalError },
  /** The response (or one server-sent event) crossed `limits.upstreamResponseBytes`. */
  GW_UPSTREAM_TOO_LARGE: { rpc: ErrorCode.InternalError },
  /** The response broke off mid-way. */
  GW_UPSTREAM_BROKEN: { rpc: ErrorCode.InternalError },
  /** The upstream answered with a JSON-RPC error (resources/prompts relay it as it came). */
  GW_UPSTREAM_ERROR: { rpc: ErrorCode.InternalError },
  /** The upstream's circuit is open after repeated failures. */
  GW_CIRCUIT_OPEN: { rpc: ErrorCode.InternalError },
  /** Every concurrency slot of the upstream is busy and its queue is full, or the wait for a slot timed out. */
  GW_UPSTREAM_OVERLOADED: { rpc: ErrorCode.InternalError },
  /** The tenant already has `limits.maxInflight` upstream calls in flight in this replica. */
  GW_TENANT_INFLIGHT_LIMIT: { rpc: ErrorCode.InternalError },
  /** The gateway closed its connection while the call was in flight (shutdown, a replaced credential). */
  GW_CONNECTION_CLOSED: { rpc: ErrorCode.InternalError },
  /** The tenant's callers with their own upstream session (clients declaring roots) are at the per-replica cap, all busy. */
  GW_CALLER_SESSIONS_LIMIT: { rpc: ErrorCode.InternalError },
  /** The client cancelled the call. */
  GW_CALL_CANCELLED: { rpc: ErrorCode.InternalError },
  /** Per-user connector: the user has no linked account (`details.linkUrl` says where to link it). */
  GW_CONNECTOR_NOT_LINKED: { rpc: ErrorCode.InvalidRequest },
  /** Per-user connector: the call carried no signed-in user. */
  GW_CONNECTOR_SIGN_IN_REQUIRED: { rpc: ErrorCode.InvalidRequest },
  /** Per-user connector: the vault or the upstream's AS could not answer now. */
  GW_CONNECTOR_UNAVAILABLE: { rpc: ErrorCode.InvalidRequest },
  /** Per-user connector: obtaining the user's token from their enterprise identity was refused (the message names who refused and why). */
  GW_CONNECTOR_EXCHANGE_REFUSED: { rpc: ErrorCode.InvalidRequest },
} as const satisfies Record<string, { rpc: number }>;

export type GatewayErrorCode = keyof typeof GATEWAY_ERRORS;

/** A coded gateway failure: a readable message, structured details (always `upstream`) and the original error as `cause`. */
export class GatewayError extends Error {
  override readonly name = 'GatewayError';
  constructor(
    readonly code: GatewayErrorCode,
    message: string,
    readonly details: { upstream: string } & Record<string, unknown>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The one mapping of a gateway failure to a tools/call result: `isError`, the code first in the text and in `_meta["switchboard/error"]`. */
export function toolErrorResult(err: GatewayError): ToolCallResult {
  return {
    isError: true,
    content: [{ type: 'text', text: `${err.code}: ${err.message}` }],
    _meta: { 'switchboard/error': { code: err.code, ...err.details } },
  };
}

/**
 * The one mapping of a gateway failure to a resources/read or prompts/get JSON-RPC error, the
 * code in `error.data.code`. An upstream's own JSON-RPC error is relayed with its code, message
 * and data (it is the upstream's answer, not the gateway's failure).
 */
export function wireError(err: GatewayError): McpError {
  if (err.code === 'GW_UPSTREAM_ERROR') {
    const e = err.cause as { code: number; message: string; data?: unknown };
    // The SDK client puts "MCP error <code>: " before the message it received; the client's SDK adds its own.
    return new McpError(e.code, e.message.replace(/^(MCP error -?\d+: )+/, ''), e.data);
  }
  return new McpError(GATEWAY_ERRORS[err.code].rpc, `${err.code}: ${err.message}`, { code: err.code, ...err.details });
}

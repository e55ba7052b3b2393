import { ResponseTooLargeError } from '@switchboard/net-guard';
import { classifyUpstreamFailure, type UpstreamFailureKind } from '@switchboard/upstream-client';
import { GatewayError } from './gateway-errors';
import type { GuardRefusal } from './upstream-guards';

/**
 * An upstream call's failure as the breaker and the error message need it: the library's
 * {@link UpstreamFailureKind}, plus `cancelled` (the client gave up) and `gateway` (the gateway's
 * own refusal, or a connection it closed itself), neither of which counts against the upstream.
 */
export type CallFailureKind = Exclude<UpstreamFailureKind, 'aborted' | 'unknown'> | 'cancelled' | 'gateway';

/** Classifies an error thrown by an upstream call; an abort the gateway did not cause is the client's. */
export function classifyCallFailure(err: unknown, clientCancelled: boolean): CallFailureKind {
  if (err instanceof GatewayError) return 'gateway';
  // The client gave up first: whatever the SDK made of the abort (it reports it as its own request timeout), it is not the upstream's failure.
  if (clientCancelled) return 'cancelled';
  const kind = classifyUpstreamFailure(err).kind;
  // An error that says nothing more came from below HTTP: the upstream is unreachable.
  return kind === 'aborted' ? 'cancelled' : kind === 'unknown' ? 'network' : kind;
}

/** Whether a failure of this kind counts against the upstream's circuit breaker. */
export function countsAgainstUpstream(kind: CallFailureKind): boolean {
  return kind !== 'answer' && kind !== 'cancelled' && kind !== 'gateway';
}

/**
 * The coded gateway error for a classified upstream failure of server `upstream`, the original
 * error as its cause (a gateway refusal is already coded and passes as it is).
 */
export function upstreamError(kind: CallFailureKind, cause: unknown, upstream: string, timeoutMs: number): GatewayError {
  if (cause instanceof GatewayError) return cause;
  const name = `Upstream server ${upstream}`;
  const e = cause as Error & { code?: unknown };
  const coded = (code: ConstructorParameters<typeof GatewayError>[0], message: string, details: Record<string, unknown> = {}) =>
    new GatewayError(code, message, { upstream, ...details }, { cause });
  switch (kind) {
    case 'too-large': {
      const found = cause instanceof ResponseTooLargeError ? undefined : classifyUpstreamFailure(cause);
      const big = found?.kind === 'too-large' ? found.error : (cause as ResponseTooLargeError);
      if (big.unit === 'stream') {
        return coded(
          'GW_UPSTREAM_TOO_LARGE',
          `${name} streamed more than ${big.maxBytes} bytes of events for one call; the call was stopped (limit UPSTREAM_CALL_STREAM_MAX_BYTES = ${big.maxBytes})`,
          { limit: 'UPSTREAM_CALL_STREAM_MAX_BYTES', maxBytes: big.maxBytes },
        );
      }
      const what = big.unit === 'event' ? 'sent a server-sent event larger than' : 'answered more than';
      return coded(
        'GW_UPSTREAM_TOO_LARGE',
        `${name} ${what} ${big.maxBytes} bytes; the call was stopped (limit limits.upstreamResponseBytes = ${big.maxBytes})`,
        { limit: 'upstreamResponseBytes', maxBytes: big.maxBytes },
      );
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
    case 'auth':
    case 'http':
      return coded(
        'GW_UPSTREAM_PROTOCOL',
        `${name} answered with an HTTP error (${summarize(e)})`,
        typeof e.code === 'number' && e.code > 0 ? { status: e.code } : {},
      );
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

/** The bounds a refused call was admitted under, as its refusal names them. */
interface RefusedCall {
  readonly ctx: { readonly tenantId: string };
  readonly maxConcurrency: number;
  readonly maxQueue: number;
  readonly timeoutMs: number;
  readonly timedOut: boolean;
}

/** The coded error of a call its upstream's guards did not run: open circuit, full queue, or a slot wait that ended. */
export function refusalError(r: GuardRefusal, upstream: string, call: RefusedCall): GatewayError {
  const { maxConcurrency, maxQueue, timeoutMs } = call;
  if (r.kind === 'circuit-open') {
    return new GatewayError(
      'GW_CIRCUIT_OPEN',
      `Upstream server ${upstream} is temporarily unavailable (circuit open after repeated failures; retrying in ${Math.ceil(r.retryInMs / 1000)} s)`,
      { upstream, retryInMs: r.retryInMs },
    );
  }
  if (r.kind === 'queue-full') {
    const msg = `too many calls to this upstream from tenant ${call.ctx.tenantId} (${maxConcurrency} in flight and ${maxQueue} waiting; limit maxConcurrency = ${maxConcurrency}); retry later`;
    return new GatewayError('GW_UPSTREAM_OVERLOADED', `The gateway refused this call to ${upstream}: ${msg}`, {
      upstream,
      reason: 'queue-full',
      maxConcurrency,
      maxQueue,
    });
  }
  if (call.timedOut)
    return new GatewayError(
      'GW_UPSTREAM_OVERLOADED',
      `The gateway refused this call to ${upstream}: waited ${timeoutMs} ms for one of this upstream's concurrency slots (all busy)`,
      { upstream, reason: 'slot-wait', timeoutMs },
      { cause: r.reason },
    );
  // The client left while waiting for a slot: neither the upstream's failure nor worth a warning.
  return new GatewayError('GW_CALL_CANCELLED', `The call to ${upstream} was cancelled by the client`, { upstream }, { cause: r.reason });
}

import type { InvokeContext } from '@switchboard/mcp-http';
import type { UpstreamConnection } from '@switchboard/upstream-client';
import { classifyCallFailure, type CallFailureKind } from './call-failure';
import type { GuardLimits } from './upstream-guards';

/** What a request's fetches need to know about the call that made them (carried by AsyncLocalStorage through the SDK). */
export interface CallScope {
  readonly maxBytes: number;
  /** Largest event-stream answer in total (a connection's own scope has none: its legacy SSE stream is shared by calls). */
  readonly maxStreamBytes: number | undefined;
  /** Relays an upstream's server→client request to this call's client (legacy clients that declared the capability). */
  readonly askClient: InvokeContext['askClient'] | undefined;
  /** Fails the call at once with the cause (an oversized or broken response) instead of waiting for its timeout. */
  fail(err: Error): void;
  /**
   * The call's own signal, given to its fetches instead of the SDK transport's long-lived one:
   * every fetch leaves an abort listener on its signal until the request is collected, so on a
   * shared signal each call would cost more than the last.
   */
  readonly signal: AbortSignal | undefined;
}

/** The pool's bounds a call falls back to where its route sets none (the pool's options carry them). */
export interface CallDefaults {
  readonly timeoutMs: number;
  readonly maxConcurrency: number;
  /** Calls waiting for a slot; default the concurrency. */
  readonly maxQueue?: number;
  readonly maxStreamBytes?: number;
}

/** The connection state a call's failure is read against. */
interface CallConnection {
  /** Set when the gateway closed the connection itself (a call then failing with "Connection closed" is ours). */
  closedByGateway?: boolean;
}

/**
 * One upstream call's scope and its single AbortController for its three ends — the client's
 * cancellation, the timeout, a failure found while reading (oversized, broken) — which is cheaper
 * per call than `AbortSignal.timeout` + `any()`. It is also its guard's limits.
 */
export class UpstreamCall implements CallScope, GuardLimits {
  readonly abort = new AbortController();
  readonly signal: AbortSignal;
  readonly askClient: InvokeContext['askClient'] | undefined;
  timedOut = false;
  /** The connection the call last ran on, and its client (to forget an expired session). */
  connection: CallConnection | undefined;
  client: UpstreamConnection | undefined;
  /** Set when the call was failed by what its fetches read: the abort's reason is the real cause. */
  private failure: { reason: unknown } | undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly onClientAbort = (): void => this.abort.abort(this.ctx.signal.reason);

  readonly timeoutMs: number;
  readonly maxStreamBytes: number | undefined;
  readonly maxConcurrency: number;
  readonly maxQueue: number;

  /** `maxBytes` is the tenant's response bound; the rest are the route's, else the pool's `defaults`. */
  constructor(
    readonly ctx: InvokeContext,
    route: { readonly timeoutMs?: number; readonly maxConcurrency?: number },
    defaults: CallDefaults,
    readonly maxBytes: number,
  ) {
    this.timeoutMs = route.timeoutMs ?? defaults.timeoutMs;
    this.maxStreamBytes = defaults.maxStreamBytes;
    this.maxConcurrency = route.maxConcurrency ?? defaults.maxConcurrency;
    this.maxQueue = defaults.maxQueue ?? this.maxConcurrency;
    this.signal = this.abort.signal;
    this.askClient = ctx.askClient;
    this.timer = setTimeout(timeOut, this.timeoutMs, this);
    this.timer.unref();
    if (ctx.signal.aborted) this.onClientAbort();
    else ctx.signal.addEventListener('abort', this.onClientAbort, { once: true });
  }

  fail(err: unknown): void {
    if (this.signal.aborted) return;
    this.failure = { reason: err };
    this.abort.abort(err);
  }

  /** The SDK rejects an aborted request with its own timeout error carrying the reason as text: the abort's reason is the cause. */
  classify(err: unknown): { kind: CallFailureKind; cause: unknown } {
    const cause: unknown = this.failure ? this.failure.reason : err;
    const kind = this.timedOut && !this.failure ? 'timeout' : classifyCallFailure(cause, this.ctx.signal.aborted && !this.timedOut);
    return { kind: kind === 'closed' && this.connection?.closedByGateway ? 'gateway' : kind, cause };
  }

  end(): void {
    clearTimeout(this.timer);
    this.ctx.signal.removeEventListener('abort', this.onClientAbort);
  }
}

function timeOut(call: UpstreamCall): void {
  call.timedOut = true;
  call.abort.abort(new DOMException(`The operation was aborted due to timeout (${call.timeoutMs} ms)`, 'TimeoutError'));
}

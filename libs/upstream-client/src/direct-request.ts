import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { ResponseTooLargeError } from '@switchboard/net-guard';
import { createParser, type EventSourceParser } from 'eventsource-parser';
import { Agent, type Dispatcher } from 'undici';
import type { LookupFunction } from 'node:net';
import { UpstreamProtocolError, UpstreamRedirectedError, UpstreamResponseBrokenError } from './upstream-errors';

/**
 * Events of direct requests' event-stream answers in this process: `parsed` as JSON, `skipped`
 * unparsed (notifications of a call that no longer relays them); `paused` reads stopped to
 * repay a tenant's notification share. Read by tests and benches.
 */
export const directEventCounts = { parsed: 0, skipped: 0, paused: 0 };

/** A keep-alive connection pool for direct requests (undici's). */
export type UpstreamDispatcher = Dispatcher;

/**
 * One tenant's keep-alive connection pool for direct requests. `lookup` is the SSRF-guarded one
 * for tenant-registered upstreams: every socket's address is checked when it connects.
 */
export function upstreamDispatcher(lookup?: LookupFunction): Dispatcher {
  return new Agent({ keepAliveTimeout: 10_000, ...(lookup ? { connect: { lookup } } : {}) });
}

export interface DirectSession {
  url: URL;
  /** The upstream's own credential and headers, already stripped of forbidden ones. */
  headers: Record<string, string>;
  /** Read per request: the SDK transport may re-learn them. */
  sessionId(): string | undefined;
  protocolVersion(): string | undefined;
  dispatcher: Dispatcher;
  /** Answers the upstream's server→client requests arriving on a call's event stream. */
  answer(method: string, params: Record<string, unknown>): Promise<unknown>;
}

export interface DirectCallOptions {
  signal: AbortSignal;
  /** Largest body, or (event stream) largest single event, in bytes. */
  maxBytes: number;
  onprogress?: (p: { progress: number; total?: number; message?: string }) => void;
  /** Other notifications the upstream sends on this call's event stream (logging messages, resource updates). */
  onnotification?: (method: string, params: Record<string, unknown>) => void;
  /** Extra `params._meta` entries (trace context); a progress token is added when `onprogress` is set. */
  meta?: Record<string, unknown>;
  /** Extra request headers (trace context). */
  headers?: Record<string, string>;
  /** Largest event-stream answer in total bytes (every event and the answer); past it the call fails with a {@link ResponseTooLargeError} of unit `stream`. */
  maxStreamBytes?: number;
  /**
   * Whether the call still relays the upstream's notifications (false once its notification
   * byte budget is spent): when not, notification events are skipped without being parsed.
   */
  relaying?: () => boolean;
  /**
   * Meters the bytes of each notification event the upstream sends (relayed or skipped) and
   * answers how many ms reading should pause to repay what is over the caller's share: the
   * socket is then not read, so a flooding upstream is slowed by TCP instead of costing CPU.
   */
  pace?: (bytes: number) => number;
}

/** Ids of direct requests: far from the SDK client's own counter on the same session (which starts at 0). */
let nextId = 1_000_000_000;

const CANCEL_TIMEOUT_MS = 2_000;

/**
 * One MCP request as a direct HTTP POST on the session the SDK client opened (its
 * `Mcp-Session-Id` and negotiated version), without the SDK's per-call machinery: one body
 * read counted against `maxBytes` (declared length refused before reading), one JSON parse,
 * and the answer's `result` returned as is. An event-stream answer is read event by event
 * (each bounded), relaying progress and the upstream's server→client requests until the
 * answer arrives. Failures are thrown as the SDK would throw them (`StreamableHTTPError`
 * with the HTTP status — 404 means the session expired —, `McpError` for a JSON-RPC error)
 * or as {@link ResponseTooLargeError}, {@link UpstreamResponseBrokenError},
 * {@link UpstreamProtocolError}, {@link UpstreamRedirectedError}; an abort (timeout,
 * cancellation) rejects with the signal's reason and tells the upstream
 * `notifications/cancelled`.
 */
export function directRequest(session: DirectSession, method: string, params: Record<string, unknown>, opts: DirectCallOptions): Promise<Record<string, unknown>> {
  const id = nextId++;
  const meta = opts.onprogress ? { ...opts.meta, progressToken: id } : opts.meta;
  const message = { jsonrpc: '2.0', id, method, params: meta && Object.keys(meta).length > 0 ? { ...params, _meta: { ...(params._meta as object), ...meta } } : params };
  return new Promise<Record<string, unknown>>((resolve, reject) => {
    const handler = new AnswerHandler(session, id, opts, resolve, (err) => {
      // Sent or maybe sent: a stray cancellation of an id the upstream never saw is ignored there.
      if (opts.signal.aborted) {
        cancelUpstream(session, id, opts.signal.reason);
        reject(opts.signal.reason);
      } else reject(err);
    });
    dispatch(session, message, handler, opts.headers);
  });
}

function requestHeaders(session: DirectSession, extra: Record<string, string> | undefined): Record<string, string> {
  const headers: Record<string, string> = { ...session.headers, ...extra, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const sid = session.sessionId();
  if (sid) headers['mcp-session-id'] = sid;
  const version = session.protocolVersion();
  if (version) headers['mcp-protocol-version'] = version;
  return headers;
}

/**
 * One POST through undici's `dispatch` with our own handler: no response stream, body
 * readable or per-request abort-listener wrapper (half the client CPU of `request()` here).
 */
function dispatch(session: DirectSession, message: object, handler: Dispatcher.DispatchHandler, extra?: Record<string, string>): void {
  const { origin, path } = targetOf(session.url);
  session.dispatcher.dispatch({ origin, path, method: 'POST', headers: requestHeaders(session, extra), body: JSON.stringify(message) }, handler);
}

/**
 * A session URL's origin and path, read once (a session's URL is never changed): URL getters build
 * a fresh string on every read, which undici's per-origin client lookup then hashes again.
 */
const targets = new WeakMap<URL, { origin: string; path: string }>();

function targetOf(url: URL): { origin: string; path: string } {
  let target = targets.get(url);
  if (target === undefined) {
    target = { origin: url.origin, path: url.pathname + url.search };
    targets.set(url, target);
  }
  return target;
}

/** A POST whose answer is not read (a notification, our answer to the upstream's request): settles when it is done. */
function postAndForget(session: DirectSession, message: object, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    let controller: Dispatcher.DispatchController | undefined;
    const onAbort = (): void => controller?.abort(signal.reason as Error);
    const done = (): void => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    dispatch(session, message, {
      onRequestStart: (c) => {
        controller = c;
        if (signal.aborted) c.abort(signal.reason as Error);
      },
      // undici calls every response callback: the body is read and dropped.
      onResponseStart: () => undefined,
      onResponseData: () => undefined,
      onResponseEnd: done,
      onResponseError: done,
    });
  });
}

/** Best effort, bounded: the upstream may stop working on a call nobody waits for any more. */
function cancelUpstream(session: DirectSession, requestId: number, why: unknown): void {
  const text = why instanceof Error ? why.message : String(why ?? 'cancelled');
  void postAndForget(session, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: text.slice(0, 200) } }, AbortSignal.timeout(CANCEL_TIMEOUT_MS));
}

/** Bytes of an error status's body kept for the message. */
const ERROR_TEXT_BYTES = 4096;

/**
 * Reads the answer to request `id` as undici delivers it: a JSON body collected and counted
 * (a declared length over `maxBytes` refused before a byte is read), an event stream split
 * into bounded events (progress relayed, server→client requests answered) until the answer,
 * an error status's first bytes for its message. Settles once; anything after is dropped.
 */
class AnswerHandler implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private mode: 'json' | 'events' | 'error' | 'drop' = 'drop';
  private status = 0;
  private chunks: Buffer[] = [];
  private size = 0;
  private events: EventSourceParser | undefined;
  private readonly decoder = new TextDecoder();
  private started = false;
  private settled = false;
  /** Bytes of the event stream so far (against `maxStreamBytes`). */
  private streamed = 0;
  /** Our answers to the upstream's requests, in order. */
  private answering: Promise<void> = Promise.resolve();
  /** Pause owed after the chunk being read (see {@link DirectCallOptions.pace}), and the timer of the one in progress. */
  private pauseMs = 0;
  private resumeTimer: NodeJS.Timeout | undefined;
  private readonly onAbort = (): void => this.controller?.abort(this.opts.signal.reason as Error);

  constructor(
    private readonly session: DirectSession,
    private readonly id: number,
    private readonly opts: DirectCallOptions,
    private readonly resolve: (r: Record<string, unknown>) => void,
    private readonly reject: (err: unknown) => void,
  ) {
    opts.signal.addEventListener('abort', this.onAbort, { once: true });
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.opts.signal.aborted) controller.abort(this.opts.signal.reason as Error);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, status: number, headers: Record<string, string | string[] | undefined>): void {
    this.started = true;
    this.status = status;
    if (status >= 300 && status < 400) return this.stop(new UpstreamRedirectedError(`the upstream redirected the call (HTTP ${status})`));
    if (status < 200 || status >= 300) {
      this.mode = 'error';
      return;
    }
    const type = String(headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type === 'application/json') {
      const declared = Number(headers['content-length']);
      if (Number.isFinite(declared) && declared > this.opts.maxBytes) return this.stop(new ResponseTooLargeError(this.opts.maxBytes, 'response', this.session.url.href));
      this.mode = 'json';
      return;
    }
    if (type === 'text/event-stream') {
      this.mode = 'events';
      // The SDK's own parser (CR, LF and CRLF lines, multi-line data); one event's buffered data
      // is bounded by `maxBytes` characters, past which the stream is refused.
      const href = this.session.url.href;
      this.events = createParser({
        onEvent: (event) => this.onEvent(event.data),
        onError: () => this.stop(new ResponseTooLargeError(this.opts.maxBytes, 'event', href)),
        maxBufferSize: this.opts.maxBytes,
      });
      return;
    }
    this.fail(status === 202 ? new UpstreamProtocolError('the upstream accepted the request (HTTP 202) without answering it') : new StreamableHTTPError(-1, `Unexpected content type: ${String(headers['content-type'] ?? '')}`));
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled && this.mode !== 'error') return;
    if (this.mode === 'json') {
      if (this.size + chunk.length > this.opts.maxBytes) return this.stop(new ResponseTooLargeError(this.opts.maxBytes, 'response', this.session.url.href));
      this.size += chunk.length;
      this.chunks.push(chunk);
    } else if (this.mode === 'events') {
      this.streamed += chunk.length;
      if (this.opts.maxStreamBytes !== undefined && this.streamed > this.opts.maxStreamBytes) return this.stop(new ResponseTooLargeError(this.opts.maxStreamBytes, 'stream', this.session.url.href));
      try {
        this.events!.feed(this.decoder.decode(chunk, { stream: true }));
      } catch (err) {
        this.stop(err);
      }
      if (this.pauseMs > 0) this.pause();
    } else if (this.mode === 'error' && this.size < ERROR_TEXT_BYTES) {
      const part = chunk.subarray(0, ERROR_TEXT_BYTES - this.size);
      this.size += part.length;
      this.chunks.push(part);
    }
  }

  onResponseEnd(): void {
    const body = (): Buffer => (this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size));
    if (this.mode === 'error') return this.fail(new StreamableHTTPError(this.status, `Error POSTing to endpoint: ${body().toString('utf8')}`));
    if (this.settled) return this.cleanup();
    if (this.mode === 'json') {
      try {
        this.succeed(answerOf(parse(body()), this.id));
      } catch (err) {
        this.fail(err);
      }
      return;
    }
    this.fail(new UpstreamResponseBrokenError('the response broke off mid-way (the event stream ended before the answer)'));
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    if (this.settled) return this.cleanup();
    if (this.opts.signal.aborted) return this.fail(this.opts.signal.reason);
    // Before the status line: the request failed (refused, reset, DNS); after it: the body broke.
    this.fail(this.started ? new UpstreamResponseBrokenError(`the response broke off mid-way (${reason(err)})`, { cause: err }) : err);
  }

  private onEvent(data: string): void {
    // Events after the answer in the same chunk are not wanted.
    if (this.settled || data === '') return;
    // An event that arrived whole within one read is not caught by the parser's buffer bound.
    if (data.length > this.opts.maxBytes) throw new ResponseTooLargeError(this.opts.maxBytes, 'event', this.session.url.href);
    const relaying = this.opts.relaying?.() !== false;
    const notification = !relaying || this.opts.pace !== undefined ? NOTIFICATION_HEAD.test(data) : false;
    if (notification) this.owe(data.length);
    // A notification this call would drop anyway (its notification budget is spent, or it is
    // progress nobody asked for) is not parsed: a flooding upstream costs only its framing.
    if (!relaying ? notification : !this.opts.onprogress && PROGRESS_HEAD.test(data)) {
      directEventCounts.skipped += 1;
      return;
    }
    directEventCounts.parsed += 1;
    const m = parse(data) as Record<string, unknown> | null;
    if (!m || typeof m !== 'object' || Array.isArray(m)) throw new UpstreamProtocolError('an event of the answer is not a JSON-RPC message');
    if (typeof m.method === 'string') {
      if (m.id === undefined) {
        // Written in another member order than the head test expects: metered all the same.
        if (!notification) this.owe(data.length);
        if (m.method === 'notifications/progress') progress(m.params, this.id, this.opts);
        else if (isRecord(m.params)) this.opts.onnotification?.(m.method, m.params);
        return;
      }
      this.answering = this.answering.then(() => answerServerRequest(this.session, m, this.opts.signal));
      return;
    }
    if (m.id === this.id) {
      // The answer: the rest of the stream is not needed (a stream held open cannot hold the socket).
      this.succeed(resultOf(m));
      this.controller?.abort(new Error('answer received'));
    }
  }

  /** Settles with `err` and stops reading (the connection is closed: what is left is not wanted). */
  private stop(err: unknown): void {
    this.fail(err);
    this.controller?.abort(err instanceof Error ? err : new Error(String(err)));
  }

  private succeed(result: Record<string, unknown>): void {
    if (this.settled) return;
    this.settled = true;
    this.cleanup();
    this.resolve(result);
  }

  private fail(err: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.mode = this.mode === 'error' ? 'drop' : this.mode;
    this.cleanup();
    this.reject(err);
  }

  private cleanup(): void {
    this.opts.signal.removeEventListener('abort', this.onAbort);
    this.chunks = [];
    if (this.resumeTimer !== undefined) clearTimeout(this.resumeTimer);
  }

  private owe(bytes: number): void {
    if (this.opts.pace) this.pauseMs = Math.max(this.pauseMs, this.opts.pace(bytes));
  }

  /** Stops reading the socket for the pause owed (the call's own timeout still runs). */
  private pause(): void {
    const ms = this.pauseMs;
    this.pauseMs = 0;
    const controller = this.controller;
    if (this.settled || !controller || this.resumeTimer !== undefined) return;
    controller.pause();
    directEventCounts.paused += 1;
    this.resumeTimer = setTimeout(() => {
      this.resumeTimer = undefined;
      if (!this.settled) controller.resume();
    }, ms);
  }
}

/**
 * The head of a JSON-RPC notification as encoders write it (`jsonrpc` first or absent, then
 * `method`). A message with a `method` member is never the answer, and `notifications/*` are
 * not requests we answer, so skipping one that matches loses nothing the call needs; one
 * written in another member order is parsed as before (and bounded by `maxStreamBytes`).
 */
const NOTIFICATION_HEAD = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"method"\s*:\s*"notifications\//;
/** The same head for `notifications/progress`: without a progress handler, the only notification skipped (others may be relayed another way). */
const PROGRESS_HEAD = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"method"\s*:\s*"notifications\/progress"/;

/** The network error code when there is one (ECONNRESET, UND_ERR_SOCKET), else the message. */
function reason(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown } | null;
  return typeof e?.code === 'string' ? e.code : String(e?.message ?? err).slice(0, 160);
}

function parse(bytes: Buffer | string): unknown {
  try {
    return JSON.parse(typeof bytes === 'string' ? bytes : bytes.toString('utf8'));
  } catch (err) {
    throw new UpstreamProtocolError(`the answer is not JSON (${(err as Error).message})`, { cause: err });
  }
}

/** The `result` of the JSON-RPC response to request `id`; its `error` thrown as an McpError. */
function answerOf(message: unknown, id: number): Record<string, unknown> {
  const m = (Array.isArray(message) && message.length === 1 ? message[0] : message) as Record<string, unknown> | null;
  if (!m || typeof m !== 'object' || Array.isArray(m) || m.jsonrpc !== '2.0') throw new UpstreamProtocolError('the answer is not a JSON-RPC 2.0 message');
  if (m.id !== id) throw new UpstreamProtocolError(`the answer is for another request (id ${JSON.stringify(m.id)?.slice(0, 40)}, expected ${id})`);
  return resultOf(m);
}

function resultOf(m: Record<string, unknown>): Record<string, unknown> {
  if (m.error !== undefined) {
    const e = m.error as { code?: unknown; message?: unknown; data?: unknown } | null;
    if (!e || typeof e.code !== 'number' || !Number.isInteger(e.code) || typeof e.message !== 'string') throw new UpstreamProtocolError('the answer has a malformed JSON-RPC error');
    throw new McpError(e.code, e.message, e.data);
  }
  const r = m.result;
  if (!r || typeof r !== 'object' || Array.isArray(r)) throw new UpstreamProtocolError('the answer has no result object');
  return r as Record<string, unknown>;
}

function progress(params: unknown, id: number, opts: DirectCallOptions): void {
  const p = params as { progressToken?: unknown; progress?: unknown; total?: unknown; message?: unknown } | null;
  if (!p || p.progressToken !== id || typeof p.progress !== 'number') return;
  opts.onprogress?.({ progress: p.progress, ...(typeof p.total === 'number' ? { total: p.total } : {}), ...(typeof p.message === 'string' ? { message: p.message } : {}) });
}

/** The upstream asked the client something mid-call (elicitation, sampling, roots): answered on the session. */
async function answerServerRequest(session: DirectSession, m: Record<string, unknown>, signal: AbortSignal): Promise<void> {
  let reply: Record<string, unknown>;
  try {
    reply = { jsonrpc: '2.0', id: m.id, result: await session.answer(m.method as string, (m.params ?? {}) as Record<string, unknown>) };
  } catch (err) {
    const c = (err as { code?: unknown } | null)?.code;
    const code = typeof c === 'number' && Number.isInteger(c) ? c : -32603;
    reply = { jsonrpc: '2.0', id: m.id, error: { code, message: err instanceof Error ? err.message : String(err) } };
  }
  await postAndForget(session, reply, signal);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

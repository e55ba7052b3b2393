import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { ResponseTooLargeError } from '@switchboard/net-guard';
import { createParser, type EventSourceParser } from 'eventsource-parser';
import type { Dispatcher } from 'undici';
import { answerServerRequest } from './direct-post';
import { directEventCounts, type DirectCallOptions, type DirectSession } from './direct-session';
import { UpstreamProtocolError, UpstreamRedirectedError, UpstreamResponseBrokenError } from './upstream-errors';

/** Bytes of an error status's body kept for the message. */
const ERROR_TEXT_BYTES = 4096;

/**
 * Reads the answer to request `id` as undici delivers it: a JSON body collected and counted
 * (a declared length over `maxBytes` refused before a byte is read), an event stream split
 * into bounded events (progress relayed, server→client requests answered) until the answer,
 * an error status's first bytes for its message. Settles once; anything after is dropped.
 */
export class AnswerHandler implements Dispatcher.DispatchHandler {
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

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    status: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    this.started = true;
    this.status = status;
    if (status >= 300 && status < 400) return this.stop(new UpstreamRedirectedError(`the upstream redirected the call (HTTP ${status})`));
    if (status < 200 || status >= 300) {
      this.mode = 'error';
      return;
    }
    const type = String(headers['content-type'] ?? '')
      .split(';')[0]!
      .trim()
      .toLowerCase();
    if (type === 'application/json') {
      const declared = Number(headers['content-length']);
      if (Number.isFinite(declared) && declared > this.opts.maxBytes)
        return this.stop(new ResponseTooLargeError(this.opts.maxBytes, 'response', this.session.url.href));
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
    this.fail(
      status === 202
        ? new UpstreamProtocolError('the upstream accepted the request (HTTP 202) without answering it')
        : new StreamableHTTPError(-1, `Unexpected content type: ${String(headers['content-type'] ?? '')}`),
    );
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled && this.mode !== 'error') return;
    if (this.mode === 'json') {
      if (this.size + chunk.length > this.opts.maxBytes)
        return this.stop(new ResponseTooLargeError(this.opts.maxBytes, 'response', this.session.url.href));
      this.size += chunk.length;
      this.chunks.push(chunk);
    } else if (this.mode === 'events') {
      this.streamed += chunk.length;
      if (this.opts.maxStreamBytes !== undefined && this.streamed > this.opts.maxStreamBytes)
        return this.stop(new ResponseTooLargeError(this.opts.maxStreamBytes, 'stream', this.session.url.href));
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
    if (this.mode === 'error')
      return this.fail(new StreamableHTTPError(this.status, `Error POSTing to endpoint: ${body().toString('utf8')}`));
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
    if (!m || typeof m !== 'object' || Array.isArray(m))
      throw new UpstreamProtocolError('an event of the answer is not a JSON-RPC message');
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
  if (!m || typeof m !== 'object' || Array.isArray(m) || m.jsonrpc !== '2.0')
    throw new UpstreamProtocolError('the answer is not a JSON-RPC 2.0 message');
  if (m.id !== id)
    throw new UpstreamProtocolError(`the answer is for another request (id ${JSON.stringify(m.id)?.slice(0, 40)}, expected ${id})`);
  return resultOf(m);
}

function resultOf(m: Record<string, unknown>): Record<string, unknown> {
  if (m.error !== undefined) {
    const e = m.error as { code?: unknown; message?: unknown; data?: unknown } | null;
    if (!e || typeof e.code !== 'number' || !Number.isInteger(e.code) || typeof e.message !== 'string')
      throw new UpstreamProtocolError('the answer has a malformed JSON-RPC error');
    throw new McpError(e.code, e.message, e.data);
  }
  const r = m.result;
  if (!r || typeof r !== 'object' || Array.isArray(r)) throw new UpstreamProtocolError('the answer has no result object');
  return r as Record<string, unknown>;
}

function progress(params: unknown, id: number, opts: DirectCallOptions): void {
  const p = params as { progressToken?: unknown; progress?: unknown; total?: unknown; message?: unknown } | null;
  if (!p || p.progressToken !== id || typeof p.progress !== 'number') return;
  opts.onprogress?.({
    progress: p.progress,
    ...(typeof p.total === 'number' ? { total: p.total } : {}),
    ...(typeof p.message === 'string' ? { message: p.message } : {}),
  });
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { ResponseTooLargeError } from '@switchboard/net-guard';
import { Agent, type Dispatcher } from 'undici';
import type { LookupFunction } from 'node:net';

/** A response body that broke off before the answer (reset, crash, an event stream that ended early). */
export class UpstreamResponseBrokenError extends Error {
  override readonly name = 'UpstreamResponseBrokenError';
}

/** An answer that is not the MCP JSON-RPC it should be (wrong shape, wrong id, not JSON). */
export class UpstreamProtocolError extends Error {
  override readonly name = 'UpstreamProtocolError';
}

/** The upstream answered with a redirect: the call goes through the SDK path, which follows it (guarded). */
export class UpstreamRedirectedError extends Error {
  override readonly name = 'UpstreamRedirectedError';
}

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
  /** Extra `params._meta` entries (trace context); a progress token is added when `onprogress` is set. */
  meta?: Record<string, unknown>;
  /** Extra request headers (trace context). */
  headers?: Record<string, string>;
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
export async function directRequest(session: DirectSession, method: string, params: Record<string, unknown>, opts: DirectCallOptions): Promise<Record<string, unknown>> {
  const id = nextId++;
  const meta = opts.onprogress ? { ...opts.meta, progressToken: id } : opts.meta;
  const message = { jsonrpc: '2.0', id, method, params: meta && Object.keys(meta).length > 0 ? { ...params, _meta: { ...(params._meta as object), ...meta } } : params };
  try {
    const res = await post(session, message, opts.signal, opts.headers);
    return await readAnswer(session, res, id, opts);
  } catch (err) {
    // Sent or maybe sent: a stray cancellation of an id the upstream never saw is ignored there.
    if (opts.signal.aborted) {
      cancelUpstream(session, id, opts.signal.reason);
      throw opts.signal.reason;
    }
    throw err;
  }
}

function requestHeaders(session: DirectSession, extra: Record<string, string> | undefined): Record<string, string> {
  const headers: Record<string, string> = { ...session.headers, ...extra, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const sid = session.sessionId();
  if (sid) headers['mcp-session-id'] = sid;
  const version = session.protocolVersion();
  if (version) headers['mcp-protocol-version'] = version;
  return headers;
}

function post(session: DirectSession, message: object, signal: AbortSignal | undefined, extra?: Record<string, string>): Promise<Dispatcher.ResponseData> {
  return session.dispatcher.request({
    origin: session.url.origin,
    path: session.url.pathname + session.url.search,
    method: 'POST',
    headers: requestHeaders(session, extra),
    body: JSON.stringify(message),
    ...(signal ? { signal } : {}),
  });
}

/** Best effort, bounded: the upstream may stop working on a call nobody waits for any more. */
function cancelUpstream(session: DirectSession, requestId: number, reason: unknown): void {
  const text = reason instanceof Error ? reason.message : String(reason ?? 'cancelled');
  const note = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: text.slice(0, 200) } };
  post(session, note, AbortSignal.timeout(CANCEL_TIMEOUT_MS))
    .then((r) => r.body.dump())
    .catch(() => undefined);
}

async function readAnswer(session: DirectSession, res: Dispatcher.ResponseData, id: number, opts: DirectCallOptions): Promise<Record<string, unknown>> {
  const status = res.statusCode;
  if (status >= 300 && status < 400) {
    await res.body.dump();
    throw new UpstreamRedirectedError(`the upstream redirected the call (HTTP ${status})`);
  }
  if (status < 200 || status >= 300) {
    const text = await readAll(res, 4096, session.url.href, true).then((b) => b.toString('utf8'), () => '');
    throw new StreamableHTTPError(status, `Error POSTing to endpoint: ${text}`);
  }
  const type = String(res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json') return answerOf(parse(await readAll(res, opts.maxBytes, session.url.href)), id);
  if (type === 'text/event-stream') return readEventStream(session, res, id, opts);
  await res.body.dump();
  if (status === 202) throw new UpstreamProtocolError('the upstream accepted the request (HTTP 202) without answering it');
  throw new StreamableHTTPError(-1, `Unexpected content type: ${String(res.headers['content-type'] ?? '')}`);
}

/**
 * The whole body, refused past `maxBytes` (a declared length before reading a byte);
 * `truncate` keeps the first bytes instead. Read with stream events, not an async iterator
 * (which costs an end-of-stream watcher and several promises per response).
 */
function readAll(res: Dispatcher.ResponseData, maxBytes: number, href: string, truncate = false): Promise<Buffer> {
  const declared = Number(res.headers['content-length']);
  if (!truncate && Number.isFinite(declared) && declared > maxBytes) {
    res.body.destroy();
    return Promise.reject(new ResponseTooLargeError(maxBytes, 'response', href));
  }
  const body = res.body;
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const whole = (): Buffer => (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    const onData = (chunk: Buffer): void => {
      if (size + chunk.length > maxBytes) {
        body.off('data', onData);
        body.off('error', onError);
        body.on('error', () => undefined);
        body.destroy();
        if (truncate) resolve(whole());
        else reject(new ResponseTooLargeError(maxBytes, 'response', href));
        return;
      }
      size += chunk.length;
      chunks.push(chunk);
    };
    const onError = (err: Error): void => reject(new UpstreamResponseBrokenError(`the response broke off mid-way (${reason(err)})`, { cause: err }));
    body.on('data', onData);
    body.once('end', () => resolve(whole()));
    body.once('error', onError);
  });
}

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

const LF = 0x0a;

/** Reads an event-stream answer: progress relayed, server→client requests answered, until the response for `id`. */
async function readEventStream(session: DirectSession, res: Dispatcher.ResponseData, id: number, opts: DirectCallOptions): Promise<Record<string, unknown>> {
  const events = new EventSplitter(opts.maxBytes, session.url.href);
  try {
    for await (const chunk of res.body) {
      for (const data of events.push(chunk as Buffer)) {
        const answer = await onEvent(session, data, id, opts);
        if (answer) {
          res.body.destroy();
          return answer;
        }
      }
    }
  } catch (err) {
    res.body.destroy();
    if (err instanceof ResponseTooLargeError || err instanceof McpError || err instanceof UpstreamProtocolError || opts.signal.aborted) throw err;
    throw new UpstreamResponseBrokenError(`the response broke off mid-way (${reason(err)})`, { cause: err });
  }
  throw new UpstreamResponseBrokenError('the response broke off mid-way (the event stream ended before the answer)');
}

async function onEvent(session: DirectSession, data: string, id: number, opts: DirectCallOptions): Promise<Record<string, unknown> | undefined> {
  if (data === '') return undefined;
  const m = parse(data) as Record<string, unknown> | null;
  if (!m || typeof m !== 'object' || Array.isArray(m)) throw new UpstreamProtocolError('an event of the answer is not a JSON-RPC message');
  if (typeof m.method === 'string') {
    if (m.id === undefined) {
      if (m.method === 'notifications/progress') progress(m.params, id, opts);
      return undefined;
    }
    await answerServerRequest(session, m, opts.signal);
    return undefined;
  }
  if (m.id === id) return resultOf(m);
  return undefined;
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
  const res = await post(session, reply, signal);
  await res.body.dump();
}

/**
 * Splits an event stream into its events' `data` (multi-line data joined with `\n`), each
 * event bounded to `maxBytes`; comments and other fields are skipped.
 */
class EventSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private data: string[] = [];
  private eventBytes = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly href: string,
  ) {}

  push(chunk: Buffer): string[] {
    const out: string[] = [];
    let start = 0;
    for (let i = chunk.indexOf(LF); i !== -1; i = chunk.indexOf(LF, start)) {
      this.grow(i - start);
      const line = this.takeLine(chunk.subarray(start, i));
      start = i + 1;
      if (line === '') {
        if (this.data.length > 0) out.push(this.data.join('\n'));
        this.data = [];
        this.eventBytes = 0;
      } else if (line.startsWith('data:')) {
        this.data.push(line.charCodeAt(5) === 0x20 ? line.slice(6) : line.slice(5));
      }
    }
    if (start < chunk.length) {
      this.grow(chunk.length - start);
      this.pending.push(chunk.subarray(start));
      this.pendingBytes += chunk.length - start;
    }
    return out;
  }

  private grow(n: number): void {
    this.eventBytes += n;
    if (this.eventBytes > this.maxBytes) throw new ResponseTooLargeError(this.maxBytes, 'event', this.href);
  }

  private takeLine(tail: Buffer): string {
    let bytes = tail;
    if (this.pending.length > 0) {
      bytes = Buffer.concat([...this.pending, tail], this.pendingBytes + tail.length);
      this.pending = [];
      this.pendingBytes = 0;
    }
    const end = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
    return bytes.toString('utf8', 0, end);
  }
}

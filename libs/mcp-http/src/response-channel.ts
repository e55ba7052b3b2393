import { DEFAULT_NOTIFY_MAX_BYTES_PER_CALL } from './byte-budgets';
import type { EdgeCall } from './edge-call';
import { SplicedResult, answerLength, type EncodedAnswer } from './encoded-answer';
import type { StreamEventStore } from './stream-event-store';

/** Makes a channel's SSE stream resumable: every event gets a sealed id and is stored. */
export interface ResumableStream {
  store: StreamEventStore;
  tenantId: string;
  streamId: string;
  /** The wire id of event `seq` (sealed: unguessable, bound to the tenant). */
  eventId(seq: number): string;
  /** The `retry:` hint sent with the priming event, in ms. */
  retryMs: number;
}

const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/**
 * The answer to one POSTed request: JSON by default, switched to an SSE stream the first time
 * the call emits a notification (progress, log) before its result. The switch happens before
 * any byte was written, so clients that never see notifications always get plain JSON.
 */
export class ResponseChannel {
  private streaming = false;
  private ended = false;
  private extraHeaders: Record<string, string> | undefined;
  private resume: ResumableStream | undefined;
  private seq = 0;
  private closed = false;
  /** Notification bytes this call has relayed; past the budget the rest are dropped (an upstream could flood them). */
  private notified = 0;
  private overBudget = false;

  constructor(
    private readonly call: EdgeCall,
    private readonly notifyBudget = DEFAULT_NOTIFY_MAX_BYTES_PER_CALL,
  ) {}

  get isStreaming(): boolean {
    return this.streaming;
  }

  /** True once the SSE stream is stored for resumption: a client that drops it may come back with `Last-Event-ID`, so the call goes on. */
  get isResumable(): boolean {
    return this.streaming && this.resume !== undefined;
  }

  /** Stores this request's SSE events for `Last-Event-ID` resumption (only before the stream starts). */
  enableResume(resume: ResumableStream): void {
    if (!this.streaming) this.resume = resume;
  }

  /** False once this call's notifications are dropped (over its byte budget, or the call ended): an upstream's need not even be parsed. */
  get relaying(): boolean {
    return !this.overBudget && !this.ended;
  }

  /** A resumable stream can be closed early (SEP-1699 polling). */
  get canResume(): boolean {
    return this.resume !== undefined && !this.ended;
  }

  /** Starts the stream (priming event) if needed and ends it for the client; later events go to the store only. */
  closeStream(): void {
    if (!this.resume || this.ended) return;
    if (!this.streaming) this.start();
    this.closed = true;
    this.call.res.end();
  }

  /** Adds a response header (e.g. `Mcp-Session-Id`); only effective before the first byte is written. */
  setHeader(name: string, value: string): void {
    this.extraHeaders = { ...this.extraHeaders, [name]: value };
  }

  /**
   * Sends an encoded JSON-RPC message (notification, or a server→client request) on the
   * request's stream. Notifications count against the call's byte budget: past it they are
   * dropped (progress and log messages are advisory) after one warning naming the budget;
   * server→client requests always go (the call waits on them; they are bounded per round).
   */
  notify(encoded: string): void {
    if (this.ended) return;
    if (isNotification(encoded)) {
      if (this.overBudget) return;
      this.notified += Buffer.byteLength(encoded);
      if (this.notified > this.notifyBudget) {
        this.overBudget = true;
        encoded = JSON.stringify({
          jsonrpc: '2.0',
          method: 'notifications/message',
          params: {
            level: 'warning',
            logger: 'switchboard',
            data: `This call's notifications passed the byte budget NOTIFY_MAX_BYTES_PER_CALL (${this.notifyBudget} bytes); later ones are dropped`,
          },
        });
      }
    }
    if (!this.streaming) this.start();
    this.write(`${this.nextId(encoded, false)}event: message\ndata: ${encoded}\n\n`);
  }

  private start(): void {
    this.call.hijack();
    this.call.res.writeHead(200, this.extraHeaders ? { ...SSE_HEADERS, ...this.extraHeaders } : SSE_HEADERS);
    this.streaming = true;
    if (this.resume) {
      // SEP-1699 priming event: an id (and reconnection hint) before anything else.
      this.resume.store.append(this.resume.tenantId, this.resume.streamId, 0, '', false);
      this.write(`id: ${this.resume.eventId(0)}\nretry: ${this.resume.retryMs}\ndata: \n\n`);
    }
  }

  /** `id:` line of the next event (stored first), or nothing when the stream is not resumable. */
  private nextId(data: string, final: boolean): string {
    if (!this.resume) return '';
    this.seq += 1;
    this.resume.store.append(this.resume.tenantId, this.resume.streamId, this.seq, data, final);
    return `id: ${this.resume.eventId(this.seq)}\n`;
  }

  /** Writes to the client unless it left (a resumable stream's events still reach the store). */
  private write(chunk: string): void {
    if (!this.closed && !this.call.res.destroyed) this.call.res.write(chunk);
  }

  /** Sends the final response (JSON body, or the last SSE event followed by the end of the stream); `length` is the body's, when the caller has it. */
  finish(body: EncodedAnswer, status = 200, length?: number): void {
    if (this.ended) return;
    this.ended = true;
    const raw = this.call.res;
    if (this.streaming) {
      const id = this.resume ? this.nextId(body.toString(), true) : '';
      if (this.closed || raw.destroyed) return;
      raw.write(`${id}event: message\ndata: `);
      writeAnswer(raw, body);
      raw.end('\n\n');
      return;
    }
    // Straight to the socket: the body is final JSON (often precompiled bytes), so Fastify's
    // onSend/serialisation pipeline has nothing to add on this hot path.
    this.call.hijack();
    const headers = { 'content-type': 'application/json', 'content-length': length ?? answerLength(body) };
    raw.writeHead(status, this.extraHeaders ? { ...headers, ...this.extraHeaders } : headers);
    if (body instanceof SplicedResult) {
      // Node corks the socket on the first write until the next tick: the parts leave in one writev.
      body.writeTo(raw);
      raw.end();
    } else {
      raw.end(body);
    }
  }
}

function writeAnswer(out: { write(chunk: string | Buffer): unknown }, body: EncodedAnswer): void {
  if (body instanceof SplicedResult) body.writeTo(out);
  else out.write(body);
}

/** A notification (no id) as encoded by encodeNotification: its method comes right after the version. */
function isNotification(encoded: string): boolean {
  return encoded.startsWith('{"jsonrpc":"2.0","method":"notifications/');
}

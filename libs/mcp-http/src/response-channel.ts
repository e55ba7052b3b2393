import type { FastifyReply } from 'fastify';

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

  constructor(private readonly reply: FastifyReply) {}

  get isStreaming(): boolean {
    return this.streaming;
  }

  /** Adds a response header (e.g. `Mcp-Session-Id`); only effective before the first byte is written. */
  setHeader(name: string, value: string): void {
    this.extraHeaders = { ...this.extraHeaders, [name]: value };
  }

  /** Sends an encoded JSON-RPC message (notification, or a server→client request) on the request's stream. */
  notify(encoded: string): void {
    if (this.ended) return;
    if (!this.streaming) {
      this.reply.hijack();
      this.reply.raw.writeHead(200, this.extraHeaders ? { ...SSE_HEADERS, ...this.extraHeaders } : SSE_HEADERS);
      this.streaming = true;
    }
    this.reply.raw.write(`event: message\ndata: ${encoded}\n\n`);
  }

  /** Sends the final response (JSON body, or the last SSE event followed by the end of the stream). */
  finish(body: string | Buffer, status = 200): void {
    if (this.ended) return;
    this.ended = true;
    if (this.streaming) {
      this.reply.raw.write('event: message\ndata: ');
      this.reply.raw.write(body);
      this.reply.raw.end('\n\n');
      return;
    }
    // Straight to the socket: the body is final JSON (often precompiled bytes), so Fastify's
    // onSend/serialisation pipeline has nothing to add on this hot path.
    this.reply.hijack();
    const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
    this.reply.raw.writeHead(status, this.extraHeaders ? { ...headers, ...this.extraHeaders } : headers);
    this.reply.raw.end(body);
  }
}

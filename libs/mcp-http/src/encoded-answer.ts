import type { JsonRpcId } from '@switchboard/protocol';

const RESULT_PREFIX = '{"jsonrpc":"2.0","id":';
const RESULT_KEY = ',"result":';
const CLOSE = '}';

/**
 * A JSON-RPC result around precompiled result bytes, kept in its parts: the envelope head
 * (with the request's id) and the shared bytes. The socket takes the parts as they are (one
 * corked writev), so a tools/list page is never copied into a fresh per-request buffer; only
 * consumers that need one piece (a batch, a stored SSE event, captured usage) join them.
 */
export class SplicedResult {
  readonly head: string;
  /** Bytes on the wire. */
  readonly length: number;

  constructor(
    id: JsonRpcId,
    readonly bytes: Buffer,
    /** More shared result bytes after `bytes` (a catalog's own page tail after a shared page body). */
    readonly tail?: Buffer,
  ) {
    this.head = `${RESULT_PREFIX}${typeof id === 'number' ? String(id) : JSON.stringify(id)}${RESULT_KEY}`;
    this.length = Buffer.byteLength(this.head) + bytes.length + (tail?.length ?? 0) + 1;
  }

  toBuffer(): Buffer {
    const parts = [Buffer.from(this.head), this.bytes];
    if (this.tail) parts.push(this.tail);
    parts.push(Buffer.from(CLOSE));
    return Buffer.concat(parts, this.length);
  }

  toString(): string {
    return this.toBuffer().toString('utf8');
  }

  /** Writes the parts to `out` (a response whose headers are already set, or an open SSE stream). */
  writeTo(out: { write(chunk: string | Buffer): unknown }): void {
    out.write(this.head);
    out.write(this.bytes);
    if (this.tail) out.write(this.tail);
    out.write(CLOSE);
  }
}

/** One encoded JSON-RPC answer: text, bytes, or a result spliced around precompiled bytes. */
export type EncodedAnswer = string | Buffer | SplicedResult;

/** Its length on the wire in bytes. */
export function answerLength(answer: EncodedAnswer): number {
  return answer instanceof SplicedResult ? answer.length : Buffer.byteLength(answer);
}

/** The answer as one Buffer (joins a spliced result). */
export function answerBuffer(answer: EncodedAnswer): Buffer {
  if (answer instanceof SplicedResult) return answer.toBuffer();
  return Buffer.isBuffer(answer) ? answer : Buffer.from(answer);
}

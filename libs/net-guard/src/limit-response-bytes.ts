import type { GuardedFetch } from './guarded-fetch';
import { ResponseTooLargeError } from './response-too-large-error';

/** How one response is bounded, decided when its request starts. */
export interface ResponseByteLimit {
  /** Largest body (or, for `text/event-stream`, largest single event) in bytes. */
  maxBytes: number;
  /**
   * Event streams only: largest whole stream in bytes (every event), so an upstream that keeps
   * streaming events under `maxBytes` is stopped too (unit `stream`); absent ⇒ unbounded.
   */
  maxStreamBytes?: number;
  /** Called once when the limit is crossed (the body then errors with the same error). */
  onExceeded?: (err: ResponseTooLargeError) => void;
  /** Called once when the body breaks mid-way (connection reset, upstream crash). */
  onBroken?: (err: unknown) => void;
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * Wraps a fetch so every response body is counted while it streams: past `maxBytes` the
 * upstream request is aborted (the socket is destroyed, nothing more is buffered) and the body
 * errors with a `ResponseTooLargeError`, so whatever reads it — the SDK transports, discovery —
 * stops at the bound instead of buffering an unbounded answer. Event streams are bounded per
 * event (a long-lived stream may carry many small events), other bodies as a whole.
 */
export function limitResponseBytes(
  inner: GuardedFetch,
  limitFor: (url: string | URL, init?: RequestInit) => ResponseByteLimit,
): GuardedFetch {
  return async (url, init) => {
    const limit = limitFor(url, init);
    const res = await inner(url, init);
    if (!res.body) return res;
    const eventStream = (res.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream');
    const declared = Number(res.headers.get('content-length'));
    const href = String(url);
    if (!eventStream && Number.isFinite(declared) && declared > limit.maxBytes) {
      // Refused before reading a byte: the upstream announced more than we accept.
      await res.body.cancel().catch(() => undefined);
      const err = new ResponseTooLargeError(limit.maxBytes, 'response', href);
      limit.onExceeded?.(err);
      throw err;
    }
    const reader = res.body.getReader();
    let count = 0;
    let total = 0;
    // Event streams: bytes of the current event, and whether the current line is still empty (a blank line ends an event).
    let lineEmpty = true;
    let done = false;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (err) {
          done = true;
          limit.onBroken?.(err);
          controller.error(err);
          return;
        }
        if (chunk.done) {
          done = true;
          controller.close();
          return;
        }
        const bytes = chunk.value;
        let over: 'response' | 'event' | 'stream' | undefined;
        if (eventStream) {
          total += bytes.length;
          if (limit.maxStreamBytes !== undefined && total > limit.maxStreamBytes) over = 'stream';
          else
            for (let i = 0; i < bytes.length; i++) {
              const b = bytes[i];
              if (b === LF) {
                if (lineEmpty) count = 0;
                lineEmpty = true;
              } else if (b !== CR) {
                lineEmpty = false;
                if (++count > limit.maxBytes) {
                  over = 'event';
                  break;
                }
              }
            }
        } else {
          count += bytes.length;
          if (count > limit.maxBytes) over = 'response';
        }
        if (over !== undefined) {
          done = true;
          const err = new ResponseTooLargeError(over === 'stream' ? limit.maxStreamBytes! : limit.maxBytes, over, href);
          await reader.cancel(err).catch(() => undefined);
          limit.onExceeded?.(err);
          controller.error(err);
          return;
        }
        controller.enqueue(bytes);
      },
      async cancel(reason) {
        if (!done) await reader.cancel(reason).catch(() => undefined);
      },
    });
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

import type { GuardedFetch } from '@switchboard/net-guard';
import { UpstreamStreamTooLongError } from './direct-request';

/** How one request's event-stream answer is bounded in total, decided when it starts (undefined: not bounded). */
export interface StreamByteLimit {
  maxBytes: number;
  /** Called once when the bound is crossed (the body then errors with the same error). */
  onExceeded?: (err: UpstreamStreamTooLongError) => void;
}

/**
 * Wraps a fetch so an event-stream answer (the SDK transports' path for a call's progress, logs
 * and answer) is counted as a whole: past `maxBytes` the body is cancelled — the upstream
 * request ends — and errors with an {@link UpstreamStreamTooLongError}. The per-event bound is
 * net-guard's `limitResponseBytes`; this one stops a stream of many events. Other bodies pass
 * untouched.
 */
export function limitStreamBytes(inner: GuardedFetch, limitFor: () => StreamByteLimit | undefined): GuardedFetch {
  return async (url, init) => {
    const limit = limitFor();
    const res = await inner(url, init);
    if (!limit || !res.body || !(res.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream')) return res;
    const reader = res.body.getReader();
    let count = 0;
    let done = false;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (err) {
          done = true;
          controller.error(err);
          return;
        }
        if (chunk.done) {
          done = true;
          controller.close();
          return;
        }
        count += chunk.value.length;
        if (count > limit.maxBytes) {
          done = true;
          const err = new UpstreamStreamTooLongError(limit.maxBytes, String(url));
          await reader.cancel(err).catch(() => undefined);
          limit.onExceeded?.(err);
          controller.error(err);
          return;
        }
        controller.enqueue(chunk.value);
      },
      async cancel(reason) {
        if (!done) await reader.cancel(reason).catch(() => undefined);
      },
    });
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

import { ResponseTooLargeError } from './response-too-large-error';

/** A fetch as our outbound callers (openid-client, oidc-provider) type it. */
export type FetchLike<U extends string | URL = string | URL> = (url: U, init: RequestInit) => Promise<Response>;

export interface FetchBounds {
  /** Whole exchange, body included. */
  timeoutMs: number;
  /** Largest body read. */
  maxBytes: number;
}

/**
 * Wraps a fetch so one exchange ends within `timeoutMs`, body included, and never reads more
 * than `maxBytes`: the answer is buffered here, so a slow or endless body fails inside this call
 * with a `TimeoutError` or `ResponseTooLargeError` instead of tying up whoever reads it. The
 * deadline is enforced on the reader too, so it holds even when the inner fetch ignores `signal`.
 */
export function boundedFetch<U extends string | URL>(
  inner: FetchLike<U>,
  bounds: FetchBounds,
): (url: U, init?: RequestInit) => Promise<Response> {
  return async (url, init = {}) => {
    const deadline = AbortSignal.timeout(bounds.timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    const res = await untilAborted(inner(url, { ...init, signal }), signal);
    const declared = Number(res.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > bounds.maxBytes) {
      await res.body?.cancel().catch(() => undefined);
      throw new ResponseTooLargeError(bounds.maxBytes, 'response', String(url));
    }
    const body = res.body ? await readCapped(res.body, bounds.maxBytes, signal, String(url)) : null;
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

async function readCapped(
  stream: ReadableStream<Uint8Array>,
  maxBytes: number,
  signal: AbortSignal,
  url: string,
): Promise<Uint8Array<ArrayBuffer>> {
  const reader = stream.getReader();
  const onAbort = (): void => void reader.cancel(signal.reason).catch(() => undefined);
  signal.addEventListener('abort', onAbort, { once: true });
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      signal.throwIfAborted();
      const { done, value } = await reader.read();
      signal.throwIfAborted();
      if (done) break;
      size += value.length;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw new ResponseTooLargeError(maxBytes, 'response', url);
      }
      chunks.push(value);
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** The promise, or the signal's reason as soon as it aborts (an inner fetch may not listen). */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e as Error);
      },
    );
  });
}

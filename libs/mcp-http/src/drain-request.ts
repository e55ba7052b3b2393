import type { IncomingMessage } from 'node:http';

/** Most bytes of a refused upload read and thrown away before answering (above it the socket is closed). */
export const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;
/** Longest wait for a refused upload to finish before answering anyway. */
export const DRAIN_TIMEOUT_MS = 10_000;

/**
 * Reads and discards what is left of a request body the server refused (413), up to
 * `limitBytes` and `timeoutMs`. Answering while the client still uploads makes the socket
 * close under the client's feet: undici (Node's `fetch`, used by the SDK clients) then
 * reports `fetch failed` instead of the 413 it was sent. Resolves `true` when the body ended
 * within the bounds, `false` when a bound was hit (the caller answers and closes).
 */
export function drainRequest(req: IncomingMessage, limitBytes = DRAIN_LIMIT_BYTES, timeoutMs = DRAIN_TIMEOUT_MS): Promise<boolean> {
  if (req.complete || req.readableEnded || req.destroyed) return Promise.resolve(!req.destroyed);
  return new Promise((resolve) => {
    let seen = 0;
    const finish = (drained: boolean): void => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onError);
      resolve(drained);
    };
    const onData = (chunk: Buffer): void => {
      seen += chunk.length;
      if (seen > limitBytes) finish(false);
    };
    const onEnd = (): void => finish(true);
    const onError = (): void => finish(false);
    const timer = setTimeout(() => finish(false), timeoutMs);
    timer.unref();
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onError);
    req.once('close', onError);
    req.resume();
  });
}

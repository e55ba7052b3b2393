import type { Dispatcher } from 'undici';
import type { DirectSession } from './direct-session';

const CANCEL_TIMEOUT_MS = 2_000;

function requestHeaders(session: DirectSession, extra: Record<string, string> | undefined): Record<string, string> {
  const headers: Record<string, string> = {
    ...session.headers,
    ...extra,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  const sid = session.sessionId();
  if (sid) headers['mcp-session-id'] = sid;
  const version = session.protocolVersion();
  if (version) headers['mcp-protocol-version'] = version;
  return headers;
}

/**
 * One POST through undici's `dispatch` with our own handler: no response stream, body
 * readable or per-request abort-listener wrapper, which `request()` would add to every call.
 */
export function dispatch(
  session: DirectSession,
  message: object,
  handler: Dispatcher.DispatchHandler,
  extra?: Record<string, string>,
): void {
  const { origin, path } = targetOf(session.url);
  session.dispatcher.dispatch(
    { origin, path, method: 'POST', headers: requestHeaders(session, extra), body: JSON.stringify(message) },
    handler,
  );
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
export function postAndForget(session: DirectSession, message: object, signal: AbortSignal): Promise<void> {
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
export function cancelUpstream(session: DirectSession, requestId: number, why: unknown): void {
  const text = why instanceof Error ? why.message : String(why ?? 'cancelled');
  void postAndForget(
    session,
    { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: text.slice(0, 200) } },
    AbortSignal.timeout(CANCEL_TIMEOUT_MS),
  );
}

/** The upstream asked the client something mid-call (elicitation, sampling, roots): answered on the session. */
export async function answerServerRequest(session: DirectSession, m: Record<string, unknown>, signal: AbortSignal): Promise<void> {
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

import type { LookupFunction } from 'node:net';
import { Agent, type Dispatcher } from 'undici';
import { AnswerHandler } from './answer-handler';
import { cancelUpstream, dispatch } from './direct-post';
import type { DirectCallOptions, DirectSession } from './direct-session';

export { directEventCounts } from './direct-session';

/** A keep-alive connection pool for direct requests (undici's). */
export type UpstreamDispatcher = Dispatcher;

/**
 * One tenant's keep-alive connection pool for direct requests. `lookup` is the SSRF-guarded one
 * for tenant-registered upstreams: every socket's address is checked when it connects.
 */
export function upstreamDispatcher(lookup?: LookupFunction): Dispatcher {
  return new Agent({ keepAliveTimeout: 10_000, ...(lookup ? { connect: { lookup } } : {}) });
}

/** Ids of direct requests: far from the SDK client's own counter on the same session (which starts at 0). */
let nextId = 1_000_000_000;

/**
 * One MCP request as a direct HTTP POST on the session the SDK client opened, without the SDK's
 * per-call machinery; the answer is read by {@link AnswerHandler}. Failures are thrown as the SDK
 * would throw them (404 means the session expired) or as this library's errors; an abort rejects
 * with the signal's reason and tells the upstream `notifications/cancelled`.
 */
export function directRequest(
  session: DirectSession,
  method: string,
  params: Record<string, unknown>,
  opts: DirectCallOptions,
): Promise<Record<string, unknown>> {
  const id = nextId++;
  const meta = opts.onprogress ? { ...opts.meta, progressToken: id } : opts.meta;
  const message = {
    jsonrpc: '2.0',
    id,
    method,
    params: meta && Object.keys(meta).length > 0 ? { ...params, _meta: { ...(params._meta as object), ...meta } } : params,
  };
  return new Promise<Record<string, unknown>>((resolve, reject) => {
    const handler = new AnswerHandler(session, id, opts, resolve, (err) => {
      // Sent or maybe sent: a stray cancellation of an id the upstream never saw is ignored there.
      if (opts.signal.aborted) {
        cancelUpstream(session, id, opts.signal.reason);
        reject(opts.signal.reason);
      } else reject(err);
    });
    dispatch(session, message, handler, opts.headers);
  });
}

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
export function directRequest(session: DirectSession, method: string, params: Record<string, unknown>, opts: DirectCallOptions): Promise<Record<string, unknown>> {
  const id = nextId++;
  const meta = opts.onprogress ? { ...opts.meta, progressToken: id } : opts.meta;
  const message = { jsonrpc: '2.0', id, method, params: meta && Object.keys(meta).length > 0 ? { ...params, _meta: { ...(params._meta as object), ...meta } } : params };
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

import { ErrorCode, McpError } from '@switchboard/protocol';
import { drainRequest } from './drain-request';
import type { EdgeCall } from './edge-call';
import type { RouteFailure } from './request-body';

/** A body over the limit or a step that threw: a JSON-RPC error with the right status, never an HTML page or a hung socket. */
export async function answerFailure(call: EdgeCall, failure: RouteFailure): Promise<void> {
  const edge = call.edge;
  const status = failure.statusCode;
  if (status === 413) {
    // Read the rest of the upload first (bounded): a fetch client still sending its body would
    // otherwise see the socket close and report `fetch failed` instead of this 413.
    const drained = await drainRequest(call.raw);
    if (!drained) call.setHeader('connection', 'close');
    const limit = edge.bodyLimit;
    return edge.refuse(
      call,
      413,
      new McpError(ErrorCode.InvalidRequest, `Request body exceeds the limit of ${limit} bytes`, { limit: 'bodyLimit', bytes: limit }),
    );
  }
  if (status >= 400 && status < 500) return edge.refuse(call, status, new McpError(ErrorCode.InvalidRequest, failure.message));
  call.log.error({ err: failure.cause ?? failure }, 'unhandled error in MCP route');
  return edge.refuse(call, 500, new McpError(ErrorCode.InternalError, 'Internal error'));
}

/** A step that threw, as a failure answered by {@link answerFailure}. */
export function crashed(err: unknown): RouteFailure {
  return { statusCode: 500, message: err instanceof Error ? err.message : String(err), cause: err };
}

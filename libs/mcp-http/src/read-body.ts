import { ErrorCode, McpError, decodeBody, type DecodedBody } from '@switchboard/protocol';
import type { EdgeCall } from './edge-call';

const JSON_MEDIA_TYPE = /^application\/json\s*(;|$)/i;

/**
 * Step 3 of a POST: media type, Accept, a non-empty body, and its JSON-RPC decoding. Answers
 * (415, 406, 400, −32700) and returns undefined when the body cannot be served.
 */
export function readBody(call: EdgeCall): DecodedBody | undefined {
  const edge = call.edge;
  const contentType = call.header('content-type');
  if (!contentType || !JSON_MEDIA_TYPE.test(contentType)) {
    edge.refuse(call, 415, new McpError(ErrorCode.InvalidRequest, 'Content-Type must be application/json'));
    return undefined;
  }
  if (!acceptsBoth(call.header('accept'))) {
    edge.refuse(call, 406, new McpError(ErrorCode.InvalidRequest, 'Accept must list both application/json and text/event-stream'));
    return undefined;
  }
  if (call.body.length === 0) {
    edge.refuse(call, 400, new McpError(ErrorCode.ParseError, 'Parse error: empty body'));
    return undefined;
  }
  try {
    return decodeBody(call.body);
  } catch (err) {
    edge.refuseWire(call, err);
    return undefined;
  }
}

function acceptsBoth(accept: string | undefined): boolean {
  if (!accept) return false;
  const a = accept.toLowerCase();
  if (a.includes('*/*')) return true;
  return (a.includes('application/json') || a.includes('application/*')) && (a.includes('text/event-stream') || a.includes('text/*'));
}

import type { EdgeReply, EdgeRequest } from './edge-http';
import { ErrorCode, McpError, decodeBody, type DecodedBody } from '@switchboard/protocol';
import { header, type McpEdge } from './mcp-edge';
import type { McpTarget } from './mcp-target';

const JSON_MEDIA_TYPE = /^application\/json\s*(;|$)/i;

/**
 * Step 3 of a POST: media type, Accept, a non-empty body, and its JSON-RPC decoding. Answers
 * (415, 406, 400, −32700) and returns undefined when the body cannot be served.
 */
export function readBody(edge: McpEdge, req: EdgeRequest, reply: EdgeReply, target: McpTarget): DecodedBody | undefined {
  const contentType = header(req, 'content-type');
  if (!contentType || !JSON_MEDIA_TYPE.test(contentType)) {
    edge.refuse(req, reply, 415, target.tenantId, new McpError(ErrorCode.InvalidRequest, 'Content-Type must be application/json'));
    return undefined;
  }
  if (!acceptsBoth(header(req, 'accept'))) {
    edge.refuse(req, reply, 406, target.tenantId, new McpError(ErrorCode.InvalidRequest, 'Accept must list both application/json and text/event-stream'));
    return undefined;
  }
  const body = req.body;
  if (!Buffer.isBuffer(body) || body.length === 0) {
    edge.refuse(req, reply, 400, target.tenantId, new McpError(ErrorCode.ParseError, 'Parse error: empty body'));
    return undefined;
  }
  try {
    return decodeBody(body);
  } catch (err) {
    edge.refuseWire(req, reply, target.tenantId, err);
    return undefined;
  }
}

function acceptsBoth(accept: string | undefined): boolean {
  if (!accept) return false;
  const a = accept.toLowerCase();
  if (a.includes('*/*')) return true;
  return (a.includes('application/json') || a.includes('application/*')) && (a.includes('text/event-stream') || a.includes('text/*'));
}

import type { EdgeReply, EdgeRequest } from './edge-http';
import { DEFAULT_HEADERLESS_VERSION, ErrorCode, McpError, encodeError, type ClassifiedMessage } from '@switchboard/protocol';
import { answerRequest } from './answer-request';
import { answerBuffer, type EncodedAnswer } from './encoded-answer';
import { toolDenied } from './edge-guard';
import { header, sendError, type McpEdge } from './mcp-edge';
import type { AuthGranted, McpTarget } from './mcp-target';

const OPEN_BRACKET = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE_BRACKET = Buffer.from(']');

/**
 * Step 5 (a batch, 2025-03-26 only): members answered in order, bounded in count before
 * anything runs and in combined response bytes while they run.
 */
export async function answerBatch(edge: McpEdge, req: EdgeRequest, reply: EdgeReply, target: McpTarget, items: ClassifiedMessage[], auth: AuthGranted | undefined): Promise<void> {
  const version = header(req, 'mcp-protocol-version') ?? DEFAULT_HEADERLESS_VERSION;
  if (version !== '2025-03-26') {
    return edge.refuse(req, reply, 400, target.tenantId, new McpError(ErrorCode.InvalidRequest, `JSON-RPC batches are only allowed at protocol version 2025-03-26, not ${version}`));
  }
  // Counted before anything is dispatched: an oversized batch costs nothing but its parse.
  const maxItems = target.limits?.batchMaxItems ?? edge.batchMaxItems;
  if (items.length > maxItems) {
    const error = new McpError(ErrorCode.InvalidRequest, `Batch of ${items.length} messages exceeds the limit of ${maxItems} (batchMaxItems)`, { limit: 'batchMaxItems', max: maxItems, count: items.length });
    return edge.refuse(req, reply, 400, target.tenantId, error);
  }
  const maxBytes = target.limits?.batchMaxResponseBytes ?? edge.batchMaxResponseBytes;
  const parts: Buffer[] = [];
  // Brackets and commas included, so the bound is on what would go on the wire.
  let bytes = 2;
  let observed = false;
  for (const item of items) {
    let part: EncodedAnswer;
    if (item.type === 'invalid') part = encodeError(item.id, item.error);
    else if (item.type !== 'request') continue;
    else if (item.message.method === 'initialize') part = encodeError(item.message.id, new McpError(ErrorCode.InvalidRequest, 'initialize must not be part of a batch'));
    else if (toolDenied(edge, target, item.message, auth)) {
      // A member refused for scope is a refusal like a single request's 403: a span and a metric.
      edge.refused(req, reply, target.tenantId, 'insufficient_scope', 403);
      part = encodeError(item.message.id, new McpError(ErrorCode.InvalidRequest, 'insufficient_scope: the access token does not cover this tool'));
    } else {
      observed = true;
      part = (await answerRequest(edge, { req, reply, target, message: item.message, channel: undefined, auth })).body;
    }
    const buf = answerBuffer(part);
    bytes += buf.length + (parts.length > 0 ? 1 : 0);
    if (bytes > maxBytes) {
      // What was built so far is dropped at once, and the members after it never run.
      parts.length = 0;
      const error = new McpError(ErrorCode.InvalidRequest, `Batch response exceeds the limit of ${maxBytes} bytes (batchMaxResponseBytes); send fewer requests per batch`, { limit: 'batchMaxResponseBytes', max: maxBytes });
      // Members already answered have their own spans; only a batch that ran nothing is a refusal.
      if (observed) sendError(reply, 400, null, error);
      else edge.refuse(req, reply, 400, target.tenantId, error);
      return;
    }
    parts.push(buf);
  }
  if (parts.length === 0) {
    void reply.code(202).send();
    return;
  }
  const chunks: Buffer[] = [OPEN_BRACKET];
  for (let i = 0; i < parts.length; i++) {
    if (i > 0) chunks.push(COMMA);
    chunks.push(parts[i]!);
  }
  chunks.push(CLOSE_BRACKET);
  void reply.code(200).header('content-type', 'application/json').send(Buffer.concat(chunks));
}


import { DEFAULT_HEADERLESS_VERSION, ErrorCode, McpError, encodeError, type ClassifiedMessage } from '@switchboard/protocol';
import { answerRequest } from './answer-request';
import { answerBuffer, type EncodedAnswer } from './encoded-answer';
import { toolDenied } from './edge-guard';
import type { EdgeCall } from './edge-call';
import { sendError } from './mcp-edge';

const OPEN_BRACKET = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE_BRACKET = Buffer.from(']');

/**
 * Step 4 (a batch, 2025-03-26 only): members answered in order, bounded in count before
 * anything runs and in combined response bytes while they run.
 */
export async function answerBatch(call: EdgeCall, items: ClassifiedMessage[]): Promise<void> {
  const { edge, target } = call;
  const version = call.header('mcp-protocol-version') ?? DEFAULT_HEADERLESS_VERSION;
  if (version !== '2025-03-26') {
    return edge.refuse(
      call,
      400,
      new McpError(ErrorCode.InvalidRequest, `JSON-RPC batches are only allowed at protocol version 2025-03-26, not ${version}`),
    );
  }
  // Counted before anything is dispatched: an oversized batch costs nothing but its parse.
  const maxItems = target.limits?.batchMaxItems ?? edge.batchMaxItems;
  if (items.length > maxItems) {
    const error = new McpError(
      ErrorCode.InvalidRequest,
      `Batch of ${items.length} messages exceeds the limit of ${maxItems} (batchMaxItems)`,
      { limit: 'batchMaxItems', max: maxItems, count: items.length },
    );
    return edge.refuse(call, 400, error);
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
    else if (item.message.method === 'initialize')
      part = encodeError(item.message.id, new McpError(ErrorCode.InvalidRequest, 'initialize must not be part of a batch'));
    else if (toolDenied(call, item.message)) {
      // A member refused for scope is a refusal like a single request's 403: a span and a metric.
      edge.refused(call, 'insufficient_scope', 403);
      part = encodeError(
        item.message.id,
        new McpError(ErrorCode.InvalidRequest, 'insufficient_scope: the access token does not cover this tool'),
      );
    } else {
      observed = true;
      part = (await answerRequest(call, item.message, undefined)).body;
    }
    const buf = answerBuffer(part);
    bytes += buf.length + (parts.length > 0 ? 1 : 0);
    if (bytes > maxBytes) {
      // What was built so far is dropped at once, and the members after it never run.
      parts.length = 0;
      const error = new McpError(
        ErrorCode.InvalidRequest,
        `Batch response exceeds the limit of ${maxBytes} bytes (batchMaxResponseBytes); send fewer requests per batch`,
        { limit: 'batchMaxResponseBytes', max: maxBytes },
      );
      // Members already answered have their own spans; only a batch that ran nothing is a refusal.
      if (observed) sendError(call, 400, null, error);
      else edge.refuse(call, 400, error);
      return;
    }
    parts.push(buf);
  }
  if (parts.length === 0) {
    call.code(202).send();
    return;
  }
  const chunks: Buffer[] = [OPEN_BRACKET];
  for (let i = 0; i < parts.length; i++) {
    if (i > 0) chunks.push(COMMA);
    chunks.push(parts[i]!);
  }
  chunks.push(CLOSE_BRACKET);
  call.code(200).setHeader('content-type', 'application/json').send(Buffer.concat(chunks));
}

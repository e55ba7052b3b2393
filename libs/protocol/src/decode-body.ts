import type { JsonRpcId, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from './jsonrpc';
import type { McpError } from './mcp-error';

/** One element of a POST body, classified by envelope shape. */
export type ClassifiedMessage =
  | { type: 'request'; message: JsonRpcRequest }
  | { type: 'notification'; message: JsonRpcNotification }
  | { type: 'response'; message: JsonRpcResponse }
  /** Not a valid envelope: answer `error` (-32600, message naming the field) with `id` when one could be read. */
  | { type: 'invalid'; id: JsonRpcId | null; error: McpError };

export type DecodedBody =
  | { kind: 'single'; message: ClassifiedMessage }
  | { kind: 'batch'; messages: ClassifiedMessage[] };

/**
 * Parses and classifies a POST body.
 * @throws McpError -32700 (httpStatus 400) for malformed JSON; -32600 (400) for an empty batch
 * or a body that is neither an object nor an array.
 */
export function decodeBody(raw: string | Buffer): DecodedBody {
  void raw;
  throw new Error('not implemented');
}

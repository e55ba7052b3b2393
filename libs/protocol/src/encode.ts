import type { JsonRpcId } from './jsonrpc';
import type { McpError } from './mcp-error';

/** `{"jsonrpc":"2.0","id":<id>,"result":<result>}` as a string. */
export function encodeResult(id: JsonRpcId, result: unknown): string {
  void id; void result;
  throw new Error('not implemented');
}

/** An error response; `id` is null when the request id could not be read. */
export function encodeError(id: JsonRpcId | null, error: McpError | { code: number; message: string; data?: unknown }): string {
  void id; void error;
  throw new Error('not implemented');
}

/** Hot path: wraps precompiled result bytes in an envelope without re-serialising them. */
export function encodeResultBytes(id: JsonRpcId, resultBytes: Buffer): Buffer {
  void id; void resultBytes;
  throw new Error('not implemented');
}

/** A JSON-RPC notification as a string. */
export function encodeNotification(method: string, params?: Record<string, unknown>): string {
  void method; void params;
  throw new Error('not implemented');
}

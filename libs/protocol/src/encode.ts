import type { JsonRpcErrorObject, JsonRpcId } from './jsonrpc';
import { McpError } from './mcp-error';

const RESULT_PREFIX = Buffer.from('{"jsonrpc":"2.0","id":');
const RESULT_KEY = Buffer.from(',"result":');
const CLOSE_BRACE = 0x7d;

/** `{"jsonrpc":"2.0","id":<id>,"result":<result>}` as a string. */
export function encodeResult(id: JsonRpcId, result: unknown): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${JSON.stringify(result ?? {})}}`;
}

/** An error response; `id` is null when the request id could not be read. */
export function encodeError(id: JsonRpcId | null, error: McpError | { code: number; message: string; data?: unknown }): string {
  const body: JsonRpcErrorObject =
    error instanceof McpError
      ? error.toJSON()
      : error.data === undefined
        ? { code: error.code, message: error.message }
        : { code: error.code, message: error.message, data: error.data };
  return JSON.stringify({ jsonrpc: '2.0', id, error: body });
}

/**
 * Hot path: wraps precompiled result bytes in an envelope without re-serialising them.
 * `resultBytes` must already be one JSON object (as the catalog compiler stores it). One
 * allocation, four copies: prefix, id JSON, the bytes, `}`.
 */
export function encodeResultBytes(id: JsonRpcId, resultBytes: Buffer): Buffer {
  const idJson = typeof id === 'number' ? String(id) : JSON.stringify(id);
  const idLength = Buffer.byteLength(idJson, 'utf8');
  const out = Buffer.allocUnsafe(RESULT_PREFIX.length + idLength + RESULT_KEY.length + resultBytes.length + 1);
  let offset = RESULT_PREFIX.copy(out, 0);
  offset += out.write(idJson, offset, 'utf8');
  offset += RESULT_KEY.copy(out, offset);
  offset += resultBytes.copy(out, offset);
  out[offset] = CLOSE_BRACE;
  return out;
}

/** A JSON-RPC notification as a string. */
export function encodeNotification(method: string, params?: Record<string, unknown>): string {
  return JSON.stringify(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
}

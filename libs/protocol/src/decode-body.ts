import type { JsonRpcId, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from './jsonrpc';
import { isJsonObject } from './jsonrpc';
import { ErrorCode } from './error-codes';
import { McpError } from './mcp-error';

/** One element of a POST body, classified by envelope shape. */
export type ClassifiedMessage =
  | { type: 'request'; message: JsonRpcRequest }
  | { type: 'notification'; message: JsonRpcNotification }
  | { type: 'response'; message: JsonRpcResponse }
  /** Not a valid envelope: answer `error` (-32600, message naming the field) with `id` when one could be read. */
  | { type: 'invalid'; id: JsonRpcId | null; error: McpError };

export type DecodedBody = { kind: 'single'; message: ClassifiedMessage } | { kind: 'batch'; messages: ClassifiedMessage[] };

const BOM = 0xfeff;

/**
 * Parses and classifies a POST body.
 * @throws McpError -32700 (httpStatus 400) for malformed JSON; -32600 (400) for an empty batch
 * or a body that is neither an object nor an array.
 *
 * Invalid elements are returned as `{ type: 'invalid' }` (never thrown) so a batch can answer
 * each element; their errors carry httpStatus 400 (−32600, or −32602 for array `params`,
 * which JSON-RPC allows but MCP does not). Whether a batch is allowed at all is the caller's
 * decision (2025-03-26 only).
 */
export function decodeBody(raw: string | Buffer): DecodedBody {
  let text = typeof raw === 'string' ? raw : raw.toString('utf8');
  if (text.charCodeAt(0) === BOM) text = text.slice(1);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    const detail = text.trim() === '' ? 'empty body' : cause instanceof Error ? cause.message : 'malformed JSON';
    throw new McpError(ErrorCode.ParseError, `Parse error: ${detail}`, undefined, 400, { cause });
  }
  if (Array.isArray(value)) {
    if (value.length === 0) {
      throw new McpError(ErrorCode.InvalidRequest, 'Invalid Request: empty batch', undefined, 400);
    }
    return { kind: 'batch', messages: value.map(classifyMessage) };
  }
  if (isJsonObject(value)) return { kind: 'single', message: classifyMessage(value) };
  throw new McpError(ErrorCode.InvalidRequest, 'Invalid Request: the body must be a JSON-RPC object or a batch array', undefined, 400);
}

function classifyMessage(value: unknown): ClassifiedMessage {
  if (!isJsonObject(value)) return invalid(null, 'Invalid Request: a batch element must be a JSON-RPC object');
  const hasId = 'id' in value;
  const id = value['id'];
  const readableId = isId(id) ? id : null;
  if (value['jsonrpc'] !== '2.0') return invalid(readableId, 'Invalid Request: jsonrpc must be "2.0"');

  if ('method' in value) {
    const method = value['method'];
    if (typeof method !== 'string') return invalid(readableId, 'Invalid Request: method must be a string');
    const params = value['params'];
    if (params !== undefined && !isJsonObject(params)) {
      if (Array.isArray(params)) {
        return {
          type: 'invalid',
          id: readableId,
          error: new McpError(
            ErrorCode.InvalidParams,
            'Invalid params: params must be an object (MCP uses named parameters)',
            undefined,
            400,
          ),
        };
      }
      return invalid(readableId, 'Invalid Request: params must be an object');
    }
    if (!hasId) {
      const message: JsonRpcNotification = params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
      return { type: 'notification', message };
    }
    if (id === null) return invalid(null, 'Invalid Request: id must not be null on a request');
    if (readableId === null) return invalid(null, 'Invalid Request: id must be a string or a number');
    const message: JsonRpcRequest =
      params === undefined ? { jsonrpc: '2.0', id: readableId, method } : { jsonrpc: '2.0', id: readableId, method, params };
    return { type: 'request', message };
  }

  const hasResult = 'result' in value;
  const hasError = 'error' in value;
  if (!hasResult && !hasError) return invalid(readableId, 'Invalid Request: method is missing (and it is not a response)');
  if (hasResult && hasError) return invalid(readableId, 'Invalid Request: a response must not carry both result and error');
  if (!hasId) return invalid(null, 'Invalid Request: id is missing on a response');
  if (hasResult) {
    if (readableId === null) return invalid(null, 'Invalid Request: id must be a string or a number');
    const result = value['result'];
    if (!isJsonObject(result)) return invalid(readableId, 'Invalid Request: result must be an object');
    return { type: 'response', message: { jsonrpc: '2.0', id: readableId, result } };
  }
  if (id !== null && readableId === null) return invalid(null, 'Invalid Request: id must be a string, a number or null');
  const error = value['error'];
  if (!isJsonObject(error)) return invalid(readableId, 'Invalid Request: error must be an object');
  const code = error['code'];
  if (typeof code !== 'number' || !Number.isInteger(code)) return invalid(readableId, 'Invalid Request: error.code must be an integer');
  if (typeof error['message'] !== 'string') return invalid(readableId, 'Invalid Request: error.message must be a string');
  const errorObject =
    error['data'] === undefined ? { code, message: error['message'] } : { code, message: error['message'], data: error['data'] };
  return { type: 'response', message: { jsonrpc: '2.0', id: readableId, error: errorObject } };
}

function invalid(id: JsonRpcId | null, message: string): ClassifiedMessage {
  return { type: 'invalid', id, error: new McpError(ErrorCode.InvalidRequest, message, undefined, 400) };
}

function isId(value: unknown): value is JsonRpcId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { stripForbiddenHeaders, type GuardedFetch } from '@switchboard/net-guard';
import { isJsonObject, LATEST_MODERN_VERSION } from '@switchboard/protocol';
import { UpstreamProtocolError } from './upstream-errors';

/** The tasks extension's key (SEP-2663) under `capabilities.extensions`. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** Methods a 2026-07-28 upstream's own tasks are driven with (`tools/call` creates one). */
export type ModernTaskMethod = 'tools/call' | 'tasks/get' | 'tasks/update' | 'tasks/cancel';
/** Largest answer read when the caller gave no bound (the pool always gives one). */
const DEFAULT_MAX_BYTES = 1024 * 1024;

export interface ModernTaskTarget {
  url: string;
  headers?: Record<string, string>;
  fetch?: GuardedFetch;
  clientInfo: { name: string; version: string };
  /** The connection's own declared capabilities; the tasks extension is added to them. */
  capabilities: Record<string, object>;
}

let nextId = 1;

/**
 * One request of the tasks extension to a 2026-07-28 upstream, declaring the extension in the
 * request's `_meta` client capabilities: a `tools/call` the upstream may answer with a
 * `CreateTaskResult`, or `tasks/get` / `tasks/update` / `tasks/cancel`. A raw POST, not the
 * SDK v2 client, because that client refuses a `resultType: "task"` answer. The result comes
 * back as sent (its `resultType` kept); a JSON-RPC error is thrown as an McpError whatever the
 * HTTP status (2026-07-28 servers answer errors with 4xx).
 */
export async function modernTaskRequest(
  target: ModernTaskTarget,
  method: ModernTaskMethod,
  params: Record<string, unknown>,
  opts: { timeout: number; signal?: AbortSignal; maxBytes?: number },
): Promise<Record<string, unknown>> {
  const id = nextId++;
  const caps = target.capabilities;
  const extensions = isJsonObject(caps.extensions) ? caps.extensions : {};
  const meta = {
    ...(isJsonObject(params._meta) ? params._meta : {}),
    'io.modelcontextprotocol/protocolVersion': LATEST_MODERN_VERSION,
    'io.modelcontextprotocol/clientInfo': target.clientInfo,
    'io.modelcontextprotocol/clientCapabilities': { ...caps, extensions: { ...extensions, [TASKS_EXTENSION]: {} } },
  };
  // SEP-2243: Mcp-Name carries the tool name, or (tasks/*) the task id the body names.
  const name = method === 'tools/call' ? params.name : params.taskId;
  const headers: Record<string, string> = {
    ...stripForbiddenHeaders(target.headers),
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': LATEST_MODERN_VERSION,
    'mcp-method': method,
    ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
  };
  const signal = AbortSignal.any([AbortSignal.timeout(opts.timeout), ...(opts.signal ? [opts.signal] : [])]);
  const doFetch: GuardedFetch = target.fetch ?? ((url, init) => fetch(url, init));
  const res = await doFetch(target.url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } }),
    signal,
  });
  const text = await boundedText(res, opts.maxBytes ?? DEFAULT_MAX_BYTES);
  const type = res.headers.get('content-type') ?? '';
  const message = type.includes('text/event-stream') ? answerInEvents(text, id) : parseJson(text, res.status);
  return resultOf(message, res.status);
}

async function boundedText(res: Response, maxBytes: number): Promise<string> {
  if (!res.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > maxBytes) throw new UpstreamProtocolError(`the upstream's answer is larger than ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string, status: number): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UpstreamProtocolError(`the upstream answered HTTP ${status} without a JSON-RPC message`);
  }
}

/** The JSON-RPC response to `id` among an event stream's `data:` events (notifications are skipped). */
function answerInEvents(text: string, id: number): unknown {
  for (const event of text.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).trimStart())
      .join('\n');
    if (data === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      continue;
    }
    if (isJsonObject(parsed) && parsed.id === id) return parsed;
  }
  throw new UpstreamProtocolError('the upstream ended its event stream without answering');
}

function resultOf(message: unknown, status: number): Record<string, unknown> {
  if (!isJsonObject(message)) throw new UpstreamProtocolError(`the upstream answered HTTP ${status} without a JSON-RPC message`);
  const error = message.error;
  if (error !== undefined) {
    const e = isJsonObject(error) ? error : {};
    if (typeof e.code !== 'number' || !Number.isInteger(e.code) || typeof e.message !== 'string')
      throw new UpstreamProtocolError('the answer has a malformed JSON-RPC error');
    throw new McpError(e.code, e.message.slice(0, 1024), e.data);
  }
  if (!isJsonObject(message.result)) throw new UpstreamProtocolError(`the upstream answered HTTP ${status} without a result object`);
  return message.result as Record<string, unknown>;
}

/**
 * One MCP request as the gateway reports it to the registry's usage store (JSON in the
 * `usageStreamKey` Redis stream, many per entry). Short keys: this travels for every request.
 */
export interface UsageRecord {
  /** Epoch ms when the request ended. */
  t: number;
  tenant: string;
  method: string;
  /** Tool / prompt name or resource URI (template) the catalog knows; the method for lists; `?` for unknown names. */
  tool: string;
  /** Catalog server id (`local` for in-process routes, `-` for lists / unknown). */
  server: string;
  /** `sub:<OAuth sub>`, `client:<id>` or `ip:<address>`. */
  subject: string;
  client?: string;
  surface: string;
  outcome: 'ok' | 'error' | 'tool_error' | 'rate_limited';
  code?: number;
  /** Duration in ms. */
  ms: number;
  in: number;
  out: number;
  /** Captured (redacted, truncated) arguments / result, only for tenants that opted in. */
  args?: unknown;
  result?: unknown;
}

/** Upper bounds (ms) of the usage latency histogram; the last bucket is +Inf. */
export const USAGE_LATENCY_BUCKETS_MS = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000] as const;

/** The Redis stream gateways append usage batches to and the registry drains (under the shared namespace). */
export function usageStreamKey(namespace = ''): string {
  return `${namespace}sb:usage`;
}

/**
 * A record's JSON, byte for byte what `JSON.stringify(record)` gives (same key order, absent
 * optional fields left out), written field by field: `JSON.stringify` of the whole object took
 * V8's generic serializer (about 9k instructions a record, the largest single cost of metering),
 * and even `JSON.stringify` of one string is a runtime call. Strings that need no escaping (every
 * id and name in practice) are quoted as they are; any other goes through `JSON.stringify`, as do
 * captured `args` / `result`.
 */
export function encodeUsageRecord(r: UsageRecord): string {
  let out = `{"t":${num(r.t)},"tenant":${str(r.tenant)},"method":${str(r.method)},"tool":${str(r.tool)},"server":${str(r.server)},"subject":${str(r.subject)}`;
  if (r.client !== undefined) out += `,"client":${str(r.client)}`;
  out += `,"surface":${str(r.surface)},"outcome":${str(r.outcome)}`;
  if (r.code !== undefined) out += `,"code":${num(r.code)}`;
  out += `,"ms":${num(r.ms)},"in":${num(r.in)},"out":${num(r.out)}`;
  if (r.args !== undefined) out += capturedField('args', r.args);
  if (r.result !== undefined) out += capturedField('result', r.result);
  return `${out}}`;
}

/** A JSON string literal: as is between quotes unless a character needs escaping (a control character, a double quote, a backslash or any surrogate: JSON.stringify decides those). */
function str(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return JSON.stringify(s);
  }
  return `"${s}"`;
}

/** JSON's number text: a non-finite number is `null`, as JSON.stringify writes it. */
function num(n: number): string {
  return Number.isFinite(n) ? `${n}` : 'null';
}

/** A captured value JSON.stringify would leave out (a function, a symbol) is left out here too. */
function capturedField(name: string, value: unknown): string {
  const json = JSON.stringify(value);
  return json === undefined ? '' : `,"${name}":${json}`;
}

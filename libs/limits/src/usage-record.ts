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

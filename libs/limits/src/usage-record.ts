/**
 * One MCP request as the registry's usage store takes it. Gateways send records in compact
 * binary batches (`UsageBatchWriter`, many per entry of the `usageStreamKey` Redis stream); gateways from
 * before the batch format sent a JSON array of these.
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

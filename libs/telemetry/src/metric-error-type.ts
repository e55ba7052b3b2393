/** JSON-RPC codes kept as their own `error.type` metric value; any other code is `_OTHER` (the semconv fallback). */
const METRIC_CODES: ReadonlySet<number> = new Set([-32700, -32600, -32601, -32602, -32603, -32002, -32029, -32042]);

/**
 * The `error.type` of an MCP duration metric: '' on success, `tool_error` for a tool result
 * with `isError`, the JSON-RPC code for the common codes, else `_OTHER` — at most 10 values,
 * so the latency histogram's series stay bounded (the span keeps the exact code).
 */
export function metricErrorType(errorCode: number | undefined, toolError: boolean): string {
  if (errorCode !== undefined) return METRIC_CODES.has(errorCode) ? String(errorCode) : '_OTHER';
  return toolError ? 'tool_error' : '';
}

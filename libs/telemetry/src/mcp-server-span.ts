import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, trace, type Context, type Link, type Span } from '@opentelemetry/api';
import { extractTraceContext } from './extract-trace-context';
import { switchboardMetrics } from './switchboard-metrics';

/** What the transport knows when an MCP request starts (mirrors `McpRequestInfo` of @switchboard/mcp-http). */
export interface McpSpanInfo {
  tenantId: string;
  method: string;
  /** Tool / prompt name, only when the catalog knows it (an unknown name must not become a label). */
  name: string | undefined;
  headers: Record<string, string | string[] | undefined>;
}

/** A started MCP SERVER span plus its metrics; structurally an `McpRequestObservation` of @switchboard/mcp-http. */
export interface McpServerSpan {
  readonly span: Span;
  /** Era, protocol version and surface, once the transport has classified the request. */
  classified(info: { era: string; protocolVersion: string; surfaceId: string }): void;
  /** The tool answered with `isError: true` (outcome `tool_error`). */
  toolFailed(): void;
  /** Runs the dispatch with this span active, so upstream CLIENT spans become its children. */
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** Ends the span and records the request; `errorCode` is the JSON-RPC error code when the answer was an error. */
  end(result: { errorCode: number | undefined; httpStatus: number }): void;
}

export interface McpServerSpanOptions {
  /**
   * `trust`: a client-sent `traceparent` becomes the parent (the client's trace continues).
   * `link`: the span starts a new trace and links to the client's context (a public client
   * cannot choose our trace ids or sampling).
   */
  clientContext: 'trust' | 'link';
  /** Record the `mcp_server_*` metrics (default true). Internal MCP servers (the chain-reader) pass false so dashboards count client traffic once. */
  metrics?: boolean;
}

/** MCP methods kept as-is in span names and labels; anything else is `other` (bounded cardinality). */
const KNOWN_METHODS: ReadonlySet<string> = new Set([
  'initialize', 'server/discover', 'ping', 'tools/list', 'tools/call', 'resources/list', 'resources/templates/list', 'resources/read',
  'resources/subscribe', 'resources/unsubscribe', 'prompts/list', 'prompts/get', 'completion/complete', 'logging/setLevel',
  'tasks/get', 'tasks/update', 'tasks/cancel', 'tasks/list',
]);

/**
 * Starts the SERVER span of one MCP request, named after the method (`tools/call get_uniswap_v3_pool`),
 * with tenant, surface, era, protocol version, tool, outcome and JSON-RPC error code as
 * attributes, and records `mcp_server_requests_total`, `mcp_server_request_duration_seconds` and
 * `mcp_server_errors_total` when it ends.
 */
export function mcpServerSpan(info: McpSpanInfo, options: McpServerSpanOptions): McpServerSpan {
  const started = performance.now();
  const method = KNOWN_METHODS.has(info.method) ? info.method : 'other';
  const tool = info.name ?? '';
  const client = extractTraceContext(info.headers);
  const clientSpan = trace.getSpanContext(client);
  // An MCP request is an entry point: its span is a root, or the client's child when trusted.
  // Never the ambient context: the http instrumentation runs ignored paths (the MCP routes)
  // with tracing suppressed, which would silently drop this span.
  let parent: Context = ROOT_CONTEXT;
  const links: Link[] = [];
  if (clientSpan) {
    if (options.clientContext === 'trust') parent = client;
    else links.push({ context: clientSpan, attributes: { 'switchboard.link.reason': 'client traceparent (untrusted)' } });
  }
  const span = trace.getTracer('switchboard').startSpan(
    info.name ? `${method} ${info.name}` : method,
    {
      kind: SpanKind.SERVER,
      links,
      attributes: {
        'mcp.method.name': method,
        'switchboard.tenant.id': info.tenantId,
        ...(info.name ? (method === 'tools/call' ? { 'gen_ai.tool.name': info.name } : { 'mcp.prompt.name': info.name }) : {}),
      },
    },
    parent,
  );
  const active = trace.setSpan(parent, span);
  let era = '';
  let version = '';
  let surface = '';
  let toolError = false;
  return {
    span,
    classified(c) {
      era = c.era;
      version = c.protocolVersion;
      surface = c.surfaceId;
      span.setAttributes({ 'switchboard.era': era, 'mcp.protocol.version': version, 'switchboard.surface': surface });
    },
    toolFailed() {
      toolError = true;
    },
    run(fn) {
      return context.with(active, fn);
    },
    end(result) {
      // −32029 (ErrorCode.RateLimited): refused by a rate limit or quota, not a failure of the request.
      const outcome = result.errorCode === -32029 ? 'rate_limited' : result.errorCode !== undefined ? 'error' : toolError ? 'tool_error' : 'ok';
      span.setAttribute('switchboard.outcome', outcome);
      span.setAttribute('http.response.status_code', result.httpStatus);
      if (result.errorCode !== undefined) {
        span.setAttribute('rpc.jsonrpc.error_code', result.errorCode);
        span.setAttribute('error.type', String(result.errorCode));
        span.setStatus({ code: SpanStatusCode.ERROR });
      } else if (toolError) {
        span.setAttribute('error.type', 'tool_error');
      }
      span.end();
      if (options.metrics === false) return;
      const m = switchboardMetrics().mcp;
      const labels = { tenant: info.tenantId, method, tool, surface, outcome };
      m.requests.add(1, { ...labels, era, protocol_version: version });
      m.duration.record((performance.now() - started) / 1000, labels);
      if (outcome !== 'ok') m.errors.add(1, { tenant: info.tenantId, method, tool, surface, error_code: errorCodeLabel(result.errorCode) });
    },
  };
}

/** JSON-RPC reserved codes (−32768…−32000) are kept; an upstream's own codes collapse to `other`; tool errors are `0`. */
function errorCodeLabel(code: number | undefined): string {
  if (code === undefined) return '0';
  return code >= -32768 && code <= -32000 ? String(code) : 'other';
}

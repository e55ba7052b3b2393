import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  context,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
} from '@opentelemetry/api';
import { extractTraceContext } from './extract-trace-context';
import { LabelCache } from './label-cache';
import { metricErrorType } from './metric-error-type';
import { SeriesBudget } from './series-budget';
import { switchboardMetrics } from './switchboard-metrics';

/** What the transport knows when an MCP request starts (mirrors `McpRequestInfo` of @switchboard/mcp-http). */
export interface McpSpanInfo {
  tenantId: string;
  method: string;
  /** Tool / prompt name, only when the catalog knows it (an unknown name must not become a label). */
  name: string | undefined;
  headers: Record<string, string | string[] | undefined>;
  /** The JSON-RPC `id` (`jsonrpc.request.id`). */
  requestId?: string | number | null;
  /** The request params: `params._meta` may carry the caller's W3C trace context (semconv MCP context propagation). */
  params?: Record<string, unknown>;
  /** The client address after trusted proxies (`client.address`). */
  clientIp?: string;
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
   * `trust`: a client-sent trace context (`params._meta.traceparent`, else the `traceparent`
   * header) becomes the parent (the client's trace continues).
   * `link`: the span starts a new trace and links to the client's context (a public client
   * cannot choose our trace ids or sampling).
   */
  clientContext: 'trust' | 'link';
  /** Record the `mcp_server_*` metrics (default true). Internal MCP servers (the chain-reader) pass false so dashboards count client traffic once. */
  metrics?: boolean;
}

/** MCP methods kept as-is in span names and labels; anything else is `other` (bounded cardinality). */
const KNOWN_METHODS: ReadonlySet<string> = new Set([
  'initialize',
  'server/discover',
  'ping',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
  'tasks/get',
  'tasks/update',
  'tasks/cancel',
  'tasks/list',
]);

interface SpanBase {
  name: string;
  attributes: Attributes;
}

/** Span name and start attributes per tenant × method × name (built once; the span copies them). */
const spanBases = new LabelCache<SpanBase>(
  (tenantId, method, name) => ({
    name: name ? `${method} ${name}` : method,
    attributes: Object.freeze({
      'mcp.method.name': method,
      'switchboard.tenant.id': tenantId,
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      ...(name
        ? method === 'tools/call'
          ? { 'gen_ai.tool.name': name, 'gen_ai.operation.name': 'execute_tool' }
          : { 'gen_ai.prompt.name': name }
        : {}),
    }),
  }),
  50_000,
);

/**
 * Starts the SERVER span of one MCP request per the OpenTelemetry MCP semantic conventions:
 * named `{mcp.method.name} {target}` (`tools/call get_uniswap_v3_pool`), with `mcp.method.name`,
 * `gen_ai.tool.name` / `gen_ai.prompt.name`, `gen_ai.operation.name=execute_tool`,
 * `jsonrpc.request.id`, `mcp.protocol.version`, `network.*`, and on failure `error.type`
 * (the JSON-RPC code, or `tool_error`), `rpc.response.status_code` and status ERROR; plus
 * Switchboard's tenant, surface, era and outcome. When it ends it records
 * `mcp.server.operation.duration`, `mcp_server_requests_total`, `mcp_server_errors_total` and
 * `mcp_server_protocol_requests_total`, tenant and tool labels bounded by the {@link SeriesBudget}.
 */
export function mcpServerSpan(info: McpSpanInfo, options: McpServerSpanOptions): McpServerSpan {
  const started = performance.now();
  const method = KNOWN_METHODS.has(info.method) ? info.method : 'other';
  // The convention's carrier is `params._meta` (per message); the HTTP header is the fallback.
  const meta = info.params?._meta;
  const metaCarrier =
    meta && typeof meta === 'object' && typeof (meta as Record<string, unknown>).traceparent === 'string'
      ? (meta as Record<string, unknown>)
      : undefined;
  const carrier = metaCarrier ?? info.headers;
  // Most requests carry no client context: skip the propagator (it allocates a context).
  const client = metaCarrier !== undefined || carrier.traceparent !== undefined ? extractTraceContext(carrier) : ROOT_CONTEXT;
  const clientSpan = trace.getSpanContext(client);
  // An MCP request is an entry point: its span is a root, or the client's child when trusted.
  // Never the ambient context: the http instrumentation runs ignored paths (the MCP routes)
  // with tracing suppressed, which would silently drop this span.
  let parent: Context = ROOT_CONTEXT;
  let links: Link[] | undefined;
  if (clientSpan) {
    if (options.clientContext === 'trust') parent = client;
    else links = [{ context: clientSpan, attributes: { 'switchboard.link.reason': 'client traceparent (untrusted)' } }];
  }
  const tool = info.name ?? '';
  const base = spanBases.get(info.tenantId, method, tool);
  const span = trace.getTracer('switchboard').startSpan(base.name, { kind: SpanKind.SERVER, links, attributes: base.attributes }, parent);
  if (span.isRecording()) {
    if (info.requestId !== undefined && info.requestId !== null) span.setAttribute('jsonrpc.request.id', String(info.requestId));
    if (info.clientIp) span.setAttribute('client.address', info.clientIp);
  }
  return new ServerSpan(span, parent, info.tenantId, method, tool, started, options.metrics !== false);
}

/** One object per request (methods on the prototype, no closures); the span's context is built only when a dispatch runs in it. */
class ServerSpan implements McpServerSpan {
  private era = '';
  private version = '';
  private surface = '';
  private toolError = false;

  constructor(
    readonly span: Span,
    private readonly parent: Context,
    private readonly tenantId: string,
    private readonly method: string,
    private readonly tool: string,
    private readonly started: number,
    private readonly metrics: boolean,
  ) {}

  classified(c: { era: string; protocolVersion: string; surfaceId: string }): void {
    this.era = c.era;
    this.version = c.protocolVersion;
    this.surface = c.surfaceId;
    if (this.span.isRecording())
      this.span.setAttributes({ 'switchboard.era': c.era, 'mcp.protocol.version': c.protocolVersion, 'switchboard.surface': c.surfaceId });
  }

  toolFailed(): void {
    this.toolError = true;
  }

  run<T>(fn: () => Promise<T>): Promise<T> {
    return context.with(trace.setSpan(this.parent, this.span), fn);
  }

  end(result: { errorCode: number | undefined; httpStatus: number }): void {
    const { span, toolError } = this;
    // −32029 (ErrorCode.RateLimited): refused by a rate limit or quota, not a failure of the request.
    const outcome =
      result.errorCode === -32029 ? 'rate_limited' : result.errorCode !== undefined ? 'error' : toolError ? 'tool_error' : 'ok';
    if (span.isRecording()) {
      span.setAttribute('switchboard.outcome', outcome);
      span.setAttribute('http.response.status_code', result.httpStatus);
      if (result.errorCode !== undefined) {
        const code = String(result.errorCode);
        span.setAttribute('rpc.response.status_code', code);
        span.setAttribute('error.type', code);
        span.setStatus({ code: SpanStatusCode.ERROR });
      } else if (toolError) {
        // Convention: a CallToolResult with isError is a failed operation, error.type `tool_error`.
        span.setAttribute('error.type', 'tool_error');
        span.setStatus({ code: SpanStatusCode.ERROR, message: 'tool_error' });
      }
    }
    span.end();
    if (this.metrics) this.record(outcome, result.errorCode);
  }

  private record(outcome: string, errorCode: number | undefined): void {
    const m = switchboardMetrics().mcp;
    const budget = SeriesBudget.current();
    const tenant = budget.tenant(this.tenantId);
    const toolLabel = budget.tool(tenant, this.tool);
    m.requests.add(1, tenant, this.method, toolLabel, outcome);
    const errorType = metricErrorType(errorCode, this.toolError);
    m.duration.record(
      (performance.now() - this.started) / 1000,
      this.method,
      tenant,
      errorType ?? '',
      budget.histogramTool(tenant, toolLabel),
    );
    if (outcome !== 'ok') m.errors.add(1, tenant, this.method, toolLabel, errorCodeLabel(errorCode));
    if (this.era) m.protocol.add(1, this.era, this.version, this.surface, outcome);
  }
}

/** The common JSON-RPC codes are kept; any other code (an upstream's own, rarer reserved ones) is `other`; tool errors are `0`. */
function errorCodeLabel(code: number | undefined): string {
  if (code === undefined) return '0';
  const t = metricErrorType(code, false);
  return t === '_OTHER' ? 'other' : t;
}

import { SpanKind, SpanStatusCode, context, trace, type Attributes, type Span } from '@opentelemetry/api';
import type { InvokeContext } from '@switchboard/mcp-http';
import { LabelCache, SeriesBudget, metricErrorType, switchboardMetrics } from '@switchboard/telemetry';
import type { CircuitState, UpstreamRoute } from './upstream-types';

const CIRCUIT_VALUE = { closed: 0, 'half-open': 1, open: 2 } as const;

interface ClientSpanBase {
  name: string;
  attributes: Attributes;
}

/** Span name and start attributes per tenant × upstream × method × target (the span copies them). */
const spanBases = new LabelCache<ClientSpanBase>((tenantId, serverId, method, target, url) => {
  const { address, port } = addressOf(url);
  return {
    name: target ? `${method} ${target}` : method,
    attributes: Object.freeze({
      'mcp.method.name': method,
      'switchboard.upstream.id': serverId,
      'switchboard.tenant.id': tenantId,
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      ...(address ? { 'server.address': address } : {}),
      ...(port ? { 'server.port': port } : {}),
      ...(method === 'tools/call'
        ? { 'gen_ai.tool.name': target, 'gen_ai.operation.name': 'execute_tool' }
        : method === 'prompts/get'
          ? { 'gen_ai.prompt.name': target }
          : {}),
    }),
  };
}, 50_000);
const upstreamLabels = new LabelCache((tenant, upstream) => Object.freeze({ tenant, upstream }));

/**
 * Runs one call to a tenant's upstream as an MCP CLIENT span per the OpenTelemetry MCP
 * conventions (a tool result with `isError` or a thrown error is status ERROR with `error.type`
 * `tool_error` / the JSON-RPC code / the error name) and measures it
 * (`mcp.client.operation.duration`, `upstream_inflight`), tenant and upstream labels
 * series-budgeted. The span is active during `call`, so the W3C context reaches the upstream
 * (and `call` may add to it: {@link noteResourceUri}). A tools/call or prompts/get names the
 * route's tool or prompt.
 */
export async function observeCall<T>(
  method: string,
  route: UpstreamRoute,
  ctx: InvokeContext,
  call: () => Promise<T>,
  failed: (r: T) => boolean,
): Promise<T> {
  const m = switchboardMetrics().upstream;
  const budget = SeriesBudget.current();
  const tenant = budget.tenant(ctx.tenantId);
  const upstream = budget.upstream(tenant, route.serverId);
  const target = method === 'tools/call' || method === 'prompts/get' ? route.upstreamName : '';
  const base = spanBases.get(ctx.tenantId, route.serverId, method, target, route.url);
  const span = trace.getTracer('switchboard').startSpan(base.name, { kind: SpanKind.CLIENT, attributes: base.attributes });
  const started = performance.now();
  let outcome = 'error';
  let errorType = '';
  m.inflight.add(1, tenant, upstream, '', '');
  try {
    const result = await context.with(trace.setSpan(context.active(), span), call);
    if (failed(result)) {
      outcome = errorType = 'tool_error';
      span.setAttribute('error.type', 'tool_error');
      span.setStatus({ code: SpanStatusCode.ERROR, message: 'tool_error' });
    } else {
      outcome = 'ok';
    }
    return result;
  } catch (err) {
    errorType = markError(span, err);
    throw err;
  } finally {
    span.setAttribute('switchboard.outcome', outcome);
    span.end();
    m.inflight.add(-1, tenant, upstream, '', '');
    m.duration.record((performance.now() - started) / 1000, method, tenant, upstream, outcome === 'ok' ? '' : errorType || '_OTHER');
  }
}

/** Names the resource a call reads or subscribes to on its CLIENT span (called inside {@link observeCall}'s `call`). */
export function noteResourceUri(uri: string): void {
  const span = trace.getActiveSpan();
  if (span?.isRecording()) span.setAttribute('mcp.resource.uri', uri.slice(0, 512));
}

/** Marks the span failed by a thrown error; answers the metric's `error_type`. */
function markError(span: Span, err: unknown): string {
  const code = (err as { code?: unknown }).code;
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message.slice(0, 200) : undefined });
  if (typeof code === 'number') {
    span.setAttribute('rpc.response.status_code', String(code));
    span.setAttribute('error.type', String(code));
    return metricErrorType(code, false);
  }
  span.setAttribute('error.type', err instanceof Error ? err.name : '_OTHER');
  return '_OTHER';
}

/** `upstream_circuit_state` of a tenant's upstream, recorded by its breaker when the state changes. */
export function recordCircuitState(tenantId: string, serverId: string, state: CircuitState): void {
  const budget = SeriesBudget.current();
  const tenant = budget.tenant(tenantId);
  switchboardMetrics().upstream.circuitState.record(CIRCUIT_VALUE[state], upstreamLabels.get(tenant, budget.upstream(tenant, serverId)));
}

/** `server.address` is the host without the port (semconv); `server.port` the port, defaulted from the scheme. */
function addressOf(url: string): { address: string; port: number | undefined } {
  try {
    const u = new URL(url);
    const address = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
    const port = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : u.protocol === 'http:' ? 80 : undefined;
    return { address, port };
  } catch {
    return { address: '', port: undefined };
  }
}

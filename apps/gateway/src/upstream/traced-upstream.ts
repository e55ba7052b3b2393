import { SpanKind, SpanStatusCode, context, trace, type Attributes } from '@opentelemetry/api';
import type { GetPromptResult, ReadResourceResult, Route, ToolCallResult } from '@switchboard/catalog';
import type { InvokeContext, UpstreamCompletion, UpstreamInvoker, UpstreamTaskAnswer, UpstreamTaskRequest } from '@switchboard/mcp-http';
import { LabelCache, SeriesBudget, metricErrorType, switchboardMetrics } from '@switchboard/telemetry';

type UpstreamRoute = Extract<Route, { kind: 'upstream' }>;

/** An invoker that may also report its per-upstream circuit breaker state. */
export type ObservableInvoker = UpstreamInvoker & { circuitState?(route: UpstreamRoute, tenantId: string): 'closed' | 'open' | 'half-open' };

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
      ...(method === 'tools/call' ? { 'gen_ai.tool.name': target, 'gen_ai.operation.name': 'execute_tool' } : method === 'prompts/get' ? { 'gen_ai.prompt.name': target } : {}),
    }),
  };
}, 50_000);
const upstreamLabels = new LabelCache((tenant, upstream) => Object.freeze({ tenant, upstream }));
/**
 * The circuit state last recorded per gauge (a new meter provider has a new one) and (tenant,
 * upstream) labels: the gauge is recorded when the state changes, not on every call.
 */
const lastCircuit = new WeakMap<object, WeakMap<object, number>>();

/**
 * Wraps the upstream pool so every call to a tenant's upstream is an MCP CLIENT span per the
 * OpenTelemetry MCP conventions (`tools/call <tool>`, `mcp.method.name`, `gen_ai.tool.name`,
 * `server.address` without the port + `server.port`; a tool result with `isError` or a thrown
 * error is status ERROR with `error.type` `tool_error` / the JSON-RPC code / the error name)
 * under the request's SERVER span, and is measured (`mcp.client.operation.duration`,
 * `upstream_inflight`, `upstream_circuit_state`), tenant and upstream labels series-budgeted.
 * The W3C context reaches the upstream on the fetch headers (startTelemetry) and in
 * `params._meta` (the pool).
 */
export class TracedUpstream implements UpstreamInvoker {
  constructor(private readonly inner: ObservableInvoker) {}

  callTool(route: UpstreamRoute, args: Record<string, unknown>, ctx: InvokeContext): Promise<ToolCallResult> {
    return this.traced('tools/call', route.upstreamName, route, ctx, () => this.inner.callTool(route, args, ctx), (r) => r.isError === true);
  }

  setLogLevel(route: UpstreamRoute, level: string, ctx: InvokeContext): Promise<void> {
    return this.inner.setLogLevel ? this.traced('logging/setLevel', '', route, ctx, () => this.inner.setLogLevel!(route, level, ctx), () => false) : Promise.resolve();
  }

  subscribeResource(route: UpstreamRoute, uri: string, on: boolean, ctx: InvokeContext): Promise<void> {
    const method = on ? 'resources/subscribe' : 'resources/unsubscribe';
    return this.inner.subscribeResource ? this.traced(method, '', route, ctx, () => this.inner.subscribeResource!(route, uri, on, ctx), () => false, uri) : Promise.resolve();
  }

  readResource(route: UpstreamRoute, uri: string, ctx: InvokeContext): Promise<ReadResourceResult> {
    return this.traced('resources/read', '', route, ctx, () => this.inner.readResource(route, uri, ctx), () => false, uri);
  }

  getPrompt(route: UpstreamRoute, args: Record<string, string>, ctx: InvokeContext): Promise<GetPromptResult> {
    return this.traced('prompts/get', route.upstreamName, route, ctx, () => this.inner.getPrompt(route, args, ctx), () => false);
  }

  complete(route: UpstreamRoute, request: UpstreamCompletion, ctx: InvokeContext): Promise<unknown> {
    if (!this.inner.complete) return Promise.resolve({ completion: { values: [] } });
    const inner = this.inner.complete.bind(this.inner);
    return this.traced('completion/complete', '', route, ctx, () => inner(route, request, ctx), () => false);
  }

  upstreamTask(route: UpstreamRoute, request: UpstreamTaskRequest, ctx: InvokeContext): Promise<UpstreamTaskAnswer> {
    const inner = this.inner.upstreamTask;
    if (!inner) return Promise.reject(new Error('this upstream invoker does not proxy upstream tasks'));
    return this.traced(request.method, request.method === 'tools/call' ? route.upstreamName : '', route, ctx, () => inner.call(this.inner, route, request, ctx), () => false);
  }

  // No upstream round trip (held requests, and answers to them): nothing to trace.
  async pendingTaskInput(route: UpstreamRoute, session: string, ctx: InvokeContext): Promise<Record<string, { method: string; params: Record<string, unknown> }>> {
    return (await this.inner.pendingTaskInput?.(route, session, ctx)) ?? {};
  }

  async answerTaskInput(route: UpstreamRoute, session: string, responses: Record<string, unknown>, ctx: InvokeContext): Promise<string[]> {
    return (await this.inner.answerTaskInput?.(route, session, responses, ctx)) ?? [];
  }

  private async traced<T>(method: string, target: string, route: UpstreamRoute, ctx: InvokeContext, call: () => Promise<T>, failed: (r: T) => boolean, uri?: string): Promise<T> {
    const m = switchboardMetrics().upstream;
    const budget = SeriesBudget.current();
    const tenant = budget.tenant(ctx.tenantId);
    const upstream = budget.upstream(tenant, route.serverId);

    const base = spanBases.get(ctx.tenantId, route.serverId, method, target, route.url);
    const span = trace.getTracer('switchboard').startSpan(base.name, { kind: SpanKind.CLIENT, attributes: base.attributes });
    if (uri !== undefined && span.isRecording()) span.setAttribute('mcp.resource.uri', uri.slice(0, 512));
    const started = performance.now();
    let outcome = 'error';
    let errorType = '';
    m.inflight.add(1, tenant, upstream, '', '');
    try {
      const result = await context.with(trace.setSpan(context.active(), span), call);
      if (failed(result)) {
        outcome = 'tool_error';
        errorType = 'tool_error';
        span.setAttribute('error.type', 'tool_error');
        span.setStatus({ code: SpanStatusCode.ERROR, message: 'tool_error' });
      } else {
        outcome = 'ok';
      }
      return result;
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (typeof code === 'number') {
        errorType = metricErrorType(code, false);
        span.setAttribute('rpc.response.status_code', String(code));
        span.setAttribute('error.type', String(code));
      } else {
        errorType = '_OTHER';
        span.setAttribute('error.type', err instanceof Error ? err.name : '_OTHER');
      }
      span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message.slice(0, 200) : undefined });
      throw err;
    } finally {
      span.setAttribute('switchboard.outcome', outcome);
      span.end();
      m.inflight.add(-1, tenant, upstream, '', '');
      m.duration.record((performance.now() - started) / 1000, method, tenant, upstream, outcome === 'ok' ? '' : errorType || '_OTHER');
      const circuit = this.inner.circuitState?.(route, ctx.tenantId);
      if (circuit) {
        const labels = upstreamLabels.get(tenant, upstream);
        const value = CIRCUIT_VALUE[circuit];
        let last = lastCircuit.get(m.circuitState);
        if (!last) lastCircuit.set(m.circuitState, (last = new WeakMap()));
        if (last.get(labels) !== value) {
          last.set(labels, value);
          m.circuitState.record(value, labels);
        }
      }
    }
  }
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

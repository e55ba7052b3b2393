import type { GetPromptResult, ReadResourceResult, Route, ToolCallResult } from '@switchboard/catalog';
import type { InvokeContext, UpstreamInvoker } from '@switchboard/mcp-http';
import { switchboardMetrics, withClientSpan } from '@switchboard/telemetry';

type UpstreamRoute = Extract<Route, { kind: 'upstream' }>;

/** An invoker that may also report its per-upstream circuit breaker state. */
export type ObservableInvoker = UpstreamInvoker & { circuitState?(route: UpstreamRoute, tenantId: string): 'closed' | 'open' | 'half-open' };

const CIRCUIT_VALUE = { closed: 0, 'half-open': 1, open: 2 } as const;

/**
 * Wraps the upstream pool so every call to a tenant's upstream is a CLIENT span
 * (`upstream tools/call <tool>`) under the request's MCP span, and is measured
 * (`upstream_request_duration_seconds`, `upstream_inflight`, `upstream_circuit_state` after each call),
 * every series labelled `tenant` + `upstream` (two tenants' upstreams of the same id never mix). The W3C context reaches the
 * upstream through the fetch propagation installed by `startTelemetry`.
 */
export class TracedUpstream implements UpstreamInvoker {
  constructor(private readonly inner: ObservableInvoker) {}

  callTool(route: UpstreamRoute, args: Record<string, unknown>, ctx: InvokeContext): Promise<ToolCallResult> {
    return this.traced('tools/call', route, ctx, () => this.inner.callTool(route, args, ctx), (r) => (r.isError ? 'tool_error' : 'ok'));
  }

  readResource(route: UpstreamRoute, uri: string, ctx: InvokeContext): Promise<ReadResourceResult> {
    return this.traced('resources/read', route, ctx, () => this.inner.readResource(route, uri, ctx), () => 'ok');
  }

  getPrompt(route: UpstreamRoute, args: Record<string, string>, ctx: InvokeContext): Promise<GetPromptResult> {
    return this.traced('prompts/get', route, ctx, () => this.inner.getPrompt(route, args, ctx), () => 'ok');
  }

  private async traced<T>(operation: string, route: UpstreamRoute, ctx: InvokeContext, call: () => Promise<T>, outcomeOf: (r: T) => string): Promise<T> {
    const m = switchboardMetrics().upstream;
    const labels = { upstream: route.serverId, tenant: ctx.tenantId, operation };
    const started = performance.now();
    let outcome = 'error';
    m.inflight.add(1, { tenant: ctx.tenantId, upstream: route.serverId });
    try {
      const name = operation === 'resources/read' ? operation : `${operation} ${route.upstreamName}`;
      return await withClientSpan(
        `upstream ${name}`,
        {
          'switchboard.upstream.id': route.serverId,
          'switchboard.tenant.id': ctx.tenantId,
          'mcp.method.name': operation,
          'server.address': hostOf(route.url),
          ...(operation === 'tools/call' ? { 'gen_ai.tool.name': route.upstreamName } : {}),
        },
        async (span) => {
          const result = await call();
          outcome = outcomeOf(result);
          span.setAttribute('switchboard.outcome', outcome);
          return result;
        },
      );
    } finally {
      m.inflight.add(-1, { tenant: ctx.tenantId, upstream: route.serverId });
      m.duration.record((performance.now() - started) / 1000, { ...labels, outcome });
      const circuit = this.inner.circuitState?.(route, ctx.tenantId);
      if (circuit) m.circuitState.record(CIRCUIT_VALUE[circuit], { tenant: ctx.tenantId, upstream: route.serverId });
    }
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

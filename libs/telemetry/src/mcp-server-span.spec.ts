import { SpanKind, SpanStatusCode, context, propagation, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { mcpServerSpan } from './mcp-server-span';
import { startTelemetry } from './start-telemetry';
import { withClientSpan } from './with-client-span';

const exporter = new InMemorySpanExporter();
const processor = new SimpleSpanProcessor({ exporter });
const provider = new TracerProvider({ spanProcessors: [processor] });
/** Finished spans once the processor has handed them over. */
async function finished() {
  await processor.forceFlush();
  return exporter.getFinishedSpans();
}
const CLIENT_TRACE = '0af7651916cd43dd8448eb211c80319c';
const CLIENT_PARENT = 'b7ad6b7169203331';
const headers = { traceparent: `00-${CLIENT_TRACE}-${CLIENT_PARENT}-01` };
const telemetry = startTelemetry({ serviceName: 'spec', serviceVersion: '0.0.0', env: {} });

beforeAll(() => {
  trace.setGlobalTracerProvider(provider);
});
afterEach(() => exporter.reset());
afterAll(async () => {
  await telemetry.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
});

describe('mcpServerSpan', () => {
  it('names the span after method and tool and carries tenant, surface, era, version and outcome', async () => {
    const obs = mcpServerSpan(
      { tenantId: 'acme', method: 'tools/call', name: 'get_uniswap_v3_pool', headers: {}, requestId: 7 },
      { clientContext: 'link' },
    );
    obs.classified({ era: 'legacy', protocolVersion: '2025-11-25', surfaceId: 'claude' });
    await obs.run(() => withClientSpan('tools/call get_uniswap_v3_pool', { 'switchboard.upstream.id': 'chain' }, async () => 1));
    obs.end({ errorCode: undefined, httpStatus: 200 });
    const spans = await finished();
    const server = spans.find((s) => s.name === 'tools/call get_uniswap_v3_pool' && s.kind === SpanKind.SERVER);
    const child = spans.find((s) => s.kind === SpanKind.CLIENT);
    expect(server?.attributes).toMatchObject({
      'switchboard.tenant.id': 'acme',
      'gen_ai.tool.name': 'get_uniswap_v3_pool',
      'switchboard.surface': 'claude',
      'switchboard.era': 'legacy',
      'mcp.protocol.version': '2025-11-25',
      'switchboard.outcome': 'ok',
      'mcp.method.name': 'tools/call',
      'gen_ai.operation.name': 'execute_tool',
      'jsonrpc.request.id': '7',
      'network.transport': 'tcp',
    });
    expect(server?.kind).toBe(SpanKind.SERVER);
    expect(child?.spanContext().traceId).toBe(server?.spanContext().traceId);
    expect(child?.parentSpanContext?.spanId).toBe(server?.spanContext().spanId);
  });

  it('continues a client traceparent when trusted', async () => {
    mcpServerSpan({ tenantId: 'acme', method: 'tools/list', name: undefined, headers }, { clientContext: 'trust' }).end({
      errorCode: undefined,
      httpStatus: 200,
    });
    const [span] = await finished();
    expect(span?.spanContext().traceId).toBe(CLIENT_TRACE);
    expect(span?.parentSpanContext?.spanId).toBe(CLIENT_PARENT);
  });

  it('starts a new trace linked to an untrusted client traceparent', async () => {
    mcpServerSpan({ tenantId: 'acme', method: 'tools/list', name: undefined, headers }, { clientContext: 'link' }).end({
      errorCode: undefined,
      httpStatus: 200,
    });
    const [span] = await finished();
    expect(span?.spanContext().traceId).not.toBe(CLIENT_TRACE);
    expect(span?.links.map((l) => l.context.traceId)).toEqual([CLIENT_TRACE]);
  });

  it('records the JSON-RPC error code, collapses unknown methods, and counts the request in /metrics', async () => {
    mcpServerSpan({ tenantId: 'acme', method: 'no/such-method-xyz', name: undefined, headers: {} }, { clientContext: 'link' }).end({
      errorCode: -32601,
      httpStatus: 200,
    });
    const [span] = await finished();
    expect(span?.name).toBe('other');
    expect(span?.attributes['rpc.response.status_code']).toBe('-32601');
    expect(span?.attributes['error.type']).toBe('-32601');
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    expect(span?.attributes['switchboard.outcome']).toBe('error');
    const text = await telemetry.metricsText();
    expect(text).toMatch(/mcp_server_errors_total\{[^}]*error_code="-32601"/);
    expect(text).toMatch(/mcp_server_operation_duration_seconds_bucket\{[^}]*mcp_method_name="other"[^}]*error_type="-32601"/);
    expect(text).toMatch(/nodejs_eventloop_delay_p99_seconds/);
    expect(text).toMatch(/v8js_memory_heap_used_bytes\{[^}]*v8js_heap_space_name=/);
    expect(text).toMatch(/target_info\{[^}]*service_instance_id="[0-9a-f-]{36}"/);
    expect(text).not.toContain('no/such-method-xyz');
  });

  it('marks a tool result with isError as tool_error', async () => {
    const obs = mcpServerSpan({ tenantId: 'acme', method: 'tools/call', name: 'echo', headers: {} }, { clientContext: 'link' });
    obs.toolFailed();
    obs.end({ errorCode: undefined, httpStatus: 200 });
    const [span] = await finished();
    expect(span?.attributes['switchboard.outcome']).toBe('tool_error');
    // Convention: a tool error is a failed operation.
    expect(span?.attributes['error.type']).toBe('tool_error');
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('takes the parent from params._meta.traceparent (semconv MCP propagation) when trusted', async () => {
    const META_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
    mcpServerSpan(
      {
        tenantId: 'acme',
        method: 'tools/list',
        name: undefined,
        headers,
        params: { _meta: { traceparent: `00-${META_TRACE}-00f067aa0ba902b7-01` } },
      },
      { clientContext: 'trust' },
    ).end({ errorCode: undefined, httpStatus: 200 });
    const [span] = await finished();
    expect(span?.spanContext().traceId).toBe(META_TRACE);
    expect(span?.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
  });

  it('names a prompt with gen_ai.prompt.name and no execute_tool', async () => {
    mcpServerSpan({ tenantId: 'acme', method: 'prompts/get', name: 'summary', headers: {} }, { clientContext: 'link' }).end({
      errorCode: undefined,
      httpStatus: 200,
    });
    const [span] = await finished();
    expect(span?.name).toBe('prompts/get summary');
    expect(span?.attributes['gen_ai.prompt.name']).toBe('summary');
    expect(span?.attributes['gen_ai.operation.name']).toBeUndefined();
  });
});

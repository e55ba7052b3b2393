import { SpanKind, SpanStatusCode, context, propagation, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import type { Route } from '@switchboard/catalog';
import type { InvokeContext } from '@switchboard/mcp-http';
import { McpError } from '@switchboard/protocol';
import { SeriesBudget, startTelemetry } from '@switchboard/telemetry';
import { noteResourceUri, observeCall, recordCircuitState } from './upstream-observation';

const exporter = new InMemorySpanExporter();
const processor = new SimpleSpanProcessor({ exporter });
const telemetry = startTelemetry({ serviceName: 'spec', serviceVersion: '0.0.0', env: {} });
beforeAll(() => {
  trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [processor] }));
  SeriesBudget.install(new SeriesBudget({ pinnedTenants: ['acme'] }));
});
afterEach(() => exporter.reset());
afterAll(async () => {
  await telemetry.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
});

const route = {
  kind: 'upstream',
  serverId: 'chain',
  url: 'https://mcp.example.com:8443/mcp',
  upstreamName: 'get_pool',
  headers: {},
} as unknown as Extract<Route, { kind: 'upstream' }>;
const ctx = { tenantId: 'acme' } as InvokeContext;
const isToolError = (r: { isError?: boolean; content: unknown[] }) => r.isError === true;

describe('observeCall', () => {
  it('names the CLIENT span per the MCP convention, with server.address without the port and server.port', async () => {
    await observeCall('tools/call', route, ctx, async () => ({ content: [] }), isToolError);
    await processor.forceFlush();
    const [span] = exporter.getFinishedSpans();
    expect(span?.name).toBe('tools/call get_pool');
    expect(span?.kind).toBe(SpanKind.CLIENT);
    expect(span?.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'get_pool',
      'gen_ai.operation.name': 'execute_tool',
      'server.address': 'mcp.example.com',
      'server.port': 8443,
      'switchboard.outcome': 'ok',
    });
    expect(span?.status.code).toBe(SpanStatusCode.UNSET);
    expect(await telemetry.metricsText()).toMatch(
      /mcp_client_operation_duration_seconds_bucket\{[^}]*mcp_method_name="tools\/call"[^}]*tenant="acme"[^}]*upstream="chain"[^}]*outcome="ok"/,
    );
  });

  it('a tool result with isError is status ERROR, error.type tool_error; a JSON-RPC error carries its code', async () => {
    await observeCall('tools/call', route, ctx, async () => ({ isError: true, content: [] }), isToolError);
    const failing = observeCall(
      'prompts/get',
      route,
      ctx,
      () => Promise.reject(new McpError(-32602, 'bad')),
      () => false,
    );
    await expect(failing).rejects.toThrow('bad');
    await processor.forceFlush();
    const [tool, prompt] = exporter.getFinishedSpans();
    expect(tool?.status.code).toBe(SpanStatusCode.ERROR);
    expect(tool?.attributes['error.type']).toBe('tool_error');
    expect(prompt?.name).toBe('prompts/get get_pool');
    expect(prompt?.attributes).toMatchObject({
      'gen_ai.prompt.name': 'get_pool',
      'error.type': '-32602',
      'rpc.response.status_code': '-32602',
    });
    expect(prompt?.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('makes the span active during the call, so the trace context reaches the upstream', async () => {
    const seen = await observeCall(
      'resources/read',
      route,
      ctx,
      async () => {
        noteResourceUri('file:///a');
        return trace.getActiveSpan()?.spanContext().spanId;
      },
      () => false,
    );
    await processor.forceFlush();
    const [span] = exporter.getFinishedSpans();
    expect(seen).toBe(span?.spanContext().spanId);
    expect(span?.attributes['mcp.resource.uri']).toBe('file:///a');
  });

  it('records the circuit gauge per tenant and upstream', async () => {
    recordCircuitState('acme', 'chain', 'open');
    expect(await telemetry.metricsText()).toMatch(/upstream_circuit_state\{[^}]*tenant="acme"[^}]*upstream="chain"[^}]*\} 2/);
  });
});

import { context, propagation, trace } from '@opentelemetry/api';
import { mcpRefusal } from './mcp-refusal';
import { mcpServerSpan } from './mcp-server-span';
import { OTHER_LABEL, SeriesBudget } from './series-budget';
import { startTelemetry } from './start-telemetry';

/**
 * The series budget of docs/operations.md ("Series budget"): at the defaults (25 tenant
 * labels, 20 tool labels per tenant) the gateway's `mcp_*` request metrics stay within
 * SERIES_BUDGET whatever the number of tenants and tools.
 */
const SERIES_BUDGET = 6_000;
const telemetry = startTelemetry({ serviceName: 'budget-spec', serviceVersion: '0.0.0', env: {} });

afterAll(async () => {
  await telemetry.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
});

/** Sample lines (not comments) of the `mcp_*` metrics in a Prometheus text. */
function mcpSeries(text: string): string[] {
  return text.split('\n').filter((l) => l.startsWith('mcp_'));
}

function labelValues(lines: string[], label: string): Set<string> {
  const re = new RegExp(`[{,]${label}="([^"]*)"`);
  return new Set(lines.map((l) => re.exec(l)?.[1]).filter((v): v is string => v !== undefined));
}

describe('SeriesBudget', () => {
  it('gives slots to the first tenants that reach minRequests, keeps them, and labels everyone else other', () => {
    const b = new SeriesBudget({ maxTenants: 2, minRequests: 2, pinnedTenants: ['vip'] });
    expect(b.tenant('vip')).toBe('vip');
    expect(b.tenant('a')).toBe(OTHER_LABEL);
    expect(b.tenant('a')).toBe('a');
    expect(b.tenant('b')).toBe(OTHER_LABEL);
    expect(b.tenant('b')).toBe(OTHER_LABEL);
    expect(b.labelledTenants().sort()).toEqual(['a', 'vip']);
  });

  it('bounds tool labels per labelled tenant and gives unlabelled tenants no tool dimension of their own', () => {
    const b = new SeriesBudget({ maxTenants: 1, maxToolsPerTenant: 2, minRequests: 1 });
    expect(b.tenant('a')).toBe('a');
    expect(['t1', 't2', 't3', 't1'].map((t) => b.tool('a', t))).toEqual(['t1', 't2', OTHER_LABEL, 't1']);
    expect(b.tool(OTHER_LABEL, 't1')).toBe(OTHER_LABEL);
    expect(b.tool('a', '')).toBe('');
    expect(b.histogramTool('a', 't1')).toBe('');
  });

  it(`1,000 tenants × 20 tools stay within ${SERIES_BUDGET} mcp_* series at the default budget`, async () => {
    SeriesBudget.install(new SeriesBudget());
    const tenants = Array.from({ length: 1000 }, (_, i) => `tenant-${String(i).padStart(4, '0')}`);
    const tools = Array.from({ length: 20 }, (_, i) => `tool_${i}`);
    const request = (tenantId: string, method: string, name: string | undefined, errorCode: number | undefined, toolError = false) => {
      const obs = mcpServerSpan({ tenantId, method, name, headers: {}, requestId: 1 }, { clientContext: 'link' });
      obs.classified({ era: 'legacy', protocolVersion: '2025-11-25', surfaceId: 'generic' });
      if (toolError) obs.toolFailed();
      obs.end({ errorCode, httpStatus: 200 });
    };
    // Three rounds: every tenant initializes, lists, and calls every tool with each outcome
    // (ok, tool error, invalid params), and is refused once (401) and rate limited once.
    for (let round = 0; round < 3; round++) {
      for (const t of tenants) {
        request(t, 'initialize', undefined, undefined);
        request(t, 'tools/list', undefined, undefined);
        for (const tool of tools) {
          request(t, 'tools/call', tool, undefined);
          request(t, 'tools/call', tool, undefined, true);
          request(t, 'tools/call', tool, -32602);
        }
        request(t, 'tools/call', tools[0], -32029);
        mcpRefusal({ tenantId: t, httpMethod: 'POST', route: '/t/:tenant/mcp', status: 401 });
      }
      mcpRefusal({ tenantId: undefined, httpMethod: 'POST', route: '/t/:tenant/mcp', status: 404 });
    }
    const lines = mcpSeries(await telemetry.metricsText());
    expect(lines.length).toBeGreaterThan(1000);
    expect(lines.length).toBeLessThanOrEqual(SERIES_BUDGET);
    const tenantLabels = labelValues(lines, 'tenant');
    expect(tenantLabels.size).toBe(25 + 2); // 25 slots + other + unknown (refusals of unknown tenants)
    expect(tenantLabels).toContain('other');
    expect(tenantLabels).toContain('unknown');
    // A tool label only ever comes from a labelled tenant, 20 at most each.
    for (const line of lines.filter((l) => /tenant="other"/.test(l))) expect(line).not.toMatch(/tool="tool_/);
    expect(labelValues(lines, 'tool').size).toBeLessThanOrEqual(20 + 2);
    // The latency histogram has no tool dimension unless a tenant opted in.
    expect(lines.filter((l) => l.startsWith('mcp_server_operation_duration_seconds') && l.includes('gen_ai_tool_name'))).toEqual([]);
    expect(lines.some((l) => l.startsWith('mcp_server_refusals_total') && /outcome="unknown_tenant"/.test(l))).toBe(true);
    // What the docs' arithmetic says this scenario produces (docs/operations.md, "Series budget").
    // Nothing fell into the SDK's overflow series (each instrument stays under 2,000 attribute sets).
    expect(lines.filter((l) => l.includes('otel_metric_overflow'))).toEqual([]);
    expect(lines.length).toBe(EXPECTED);
  });
});

/**
 * The scenario's arithmetic (docs/operations.md, "Series budget"), N = 25 tenant slots + `other`:
 * requests  N × (20 tools × 3 outcomes + 1 rate_limited + initialize + tools/list) + other × (4 + 2)
 * errors    N × (20 tools × 2 codes + 1) + other × 3
 * duration  (N + 1) × (tools/call × 4 error types + initialize + tools/list) × 17 lines (15 buckets, sum, count)
 * protocol  era × version × surface × outcome = 4;  refusals  N + other + unknown.
 */
const N = 25;
const EXPECTED = N * 63 + 6 + (N * 41 + 3) + (N + 1) * 6 * 17 + 4 + (N + 2);

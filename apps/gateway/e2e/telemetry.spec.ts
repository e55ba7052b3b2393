import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
// Test-only: the registry's own e2e helpers start the real registry process.
import { cleanRedis, createDatabase, createTenant, registerAndDiscover, startRegistry, testEnv } from '@switchboard/testing';
import { startTelemetry, switchboardMetrics } from '@switchboard/telemetry';
import { OtlpReceiver, type ReceivedSpan } from './support/otlp-receiver';

/**
 * One trace across processes: a tools/call enters the gateway (built `dist/main.js`, its own
 * process) and goes to the chain-reader (its own process, on its local anvil devnet with real
 * Uniswap v3 contracts); one discovery job goes through BullMQ on real Redis in the real registry process
 * (admin API → DiscoveryQueue → DiscoveryWorker). Every process
 * exports OTLP/HTTP JSON to an in-test receiver.
 */
const REPO_ROOT = path.resolve(__dirname, '../../..');
const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;
const CONSUMER = 5;
const CLIENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

let receiver: OtlpReceiver;
let upstream: { child: ChildProcess; port: number; pool: string };
let gateway: { child: ChildProcess; url: string };
let registryMetrics = '';
let dir: string;

/** Spawns `node <args>` with env and resolves the first stdout or stderr match of `ready`. */
function spawnReady(args: string[], env: Record<string, string>, ready: RegExp): Promise<{ child: ChildProcess; match: RegExpMatchArray }> {
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`${args[0]} did not start: ${out}${err}`)), 30_000);
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = ready.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, match: m });
      }
    });
    child.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
      const m = ready.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve({ child, match: m });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${args[0]} exited with ${code}: ${out}${err}`));
    });
  });
}

const otelEnv = (url: string) => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: url,
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
  OTEL_BSP_SCHEDULE_DELAY: '50',
  OTEL_METRICS_EXPORTER: 'none',
  DEPLOYMENT_ENVIRONMENT: 'e2e',
});

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

async function scrape(url: string): Promise<string> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return res.text();
}

beforeAll(async () => {
  // The child processes run built code: make sure it is current (a no-op when it is).
  const build = spawnSync(
    process.execPath,
    [path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-b', 'apps/gateway/tsconfig.json', 'apps/chain-reader/tsconfig.json'],
    { cwd: REPO_ROOT, encoding: 'utf8' },
  );
  if (build.status !== 0) throw new Error(`build failed: ${build.stdout}${build.stderr}`);
  receiver = await OtlpReceiver.start();
  const up = await spawnReady(
    [path.join(REPO_ROOT, 'apps/chain-reader/dist/main.js')],
    {
      ...otelEnv(receiver.url),
      CHAIN_READER_PORT: '0',
      REDIS_URL: 'redis://127.0.0.1:6379',
      CHAIN_READER_REDIS_PREFIX: `telemetry-e2e-${randomUUID()}`,
    },
    /pools [\s\S]*?=(0x[0-9a-fA-F]{40})[\s\S]*MCP endpoint http:\/\/127\.0\.0\.1:(\d+)\/mcp/,
  );
  upstream = { child: up.child, port: Number(up.match[2]), pool: up.match[1]! };
  dir = await mkdtemp(path.join(tmpdir(), 'sb-telemetry-e2e-'));
  const tenants = path.join(dir, 'tenants.yaml');
  await writeFile(
    tenants,
    stringify({
      tenants: [{ id: 'acme', name: 'Acme', catalogs: [{ upstream: { id: 'chain', url: `http://127.0.0.1:${upstream.port}/mcp` } }] }],
    }),
  );
  const gw = await spawnReady(
    [path.join(REPO_ROOT, 'apps/gateway/dist/main.js')],
    {
      ...otelEnv(receiver.url),
      TENANTS_FILE: tenants,
      GATEWAY_PORT: '0',
      GATEWAY_HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      TELEMETRY_PINNED_TENANTS: 'acme',
    },
    /gateway listening on (http:\/\/\S+)/,
  );
  gateway = { child: gw.child, url: gw.match[1]! };
}, 120_000);

afterAll(async () => {
  await stop(gateway?.child);
  await stop(upstream?.child);
  await receiver?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function callTool(
  name: string,
  args: Record<string, unknown>,
): Promise<{ status: number; body: { result?: { isError?: boolean }; error?: { code: number } } }> {
  const res = await fetch(`${gateway.url}/t/acme/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      'user-agent': 'claude-code/2.0.0',
      traceparent: `00-${CLIENT_TRACE}-00f067aa0ba902b7-01`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  return { status: res.status, body: (await res.json()) as { result?: { isError?: boolean }; error?: { code: number } } };
}

/** The SERVER span of `service` named `name` (CLIENT spans share the semconv names). */
const find = (spans: ReceivedSpan[], service: string, name: string) =>
  spans.find((s) => s.service === service && s.name === name && s.kind === SERVER);

describe('one trace per request across gateway, chain-reader and the discovery job', () => {
  it('a tools/call is one trace: gateway SERVER span, upstream CLIENT span, chain-reader server and RPC batch spans', async () => {
    const { status, body } = await callTool('get_uniswap_v3_pool', { chain: 'devnet', address: upstream.pool });
    expect(status).toBe(200);
    expect(body.result?.isError).not.toBe(true);

    await receiver.waitFor((spans) => Boolean(find(spans, 'gateway', 'tools/call get_uniswap_v3_pool')), 'the gateway MCP span');
    const server = find(receiver.spans, 'gateway', 'tools/call get_uniswap_v3_pool')!;
    await receiver.waitFor(
      (spans) => spans.some((s) => s.service === 'chain-reader' && s.name === 'rpc eth_call multicall3' && s.traceId === server.traceId),
      'the chain-reader RPC batch span in the same trace',
    );
    const trace = receiver.spans.filter((s) => s.traceId === server.traceId);

    expect(server.kind).toBe(SERVER);
    expect(server.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'get_uniswap_v3_pool',
      'switchboard.tenant.id': 'acme',
      'switchboard.surface': 'claude',
      'switchboard.era': 'legacy',
      'mcp.protocol.version': '2025-11-25',
      'switchboard.outcome': 'ok',
      'gen_ai.operation.name': 'execute_tool',
      'jsonrpc.request.id': '1',
      'network.transport': 'tcp',
    });
    expect(server.attributes['error.type']).toBeUndefined();
    // Default policy `link`: the client's traceparent is a link, not our parent.
    expect(server.traceId).not.toBe(CLIENT_TRACE);
    expect(server.parentSpanId).toBe('');
    expect(server.links.map((l) => l.traceId)).toContain(CLIENT_TRACE);

    // Semconv CLIENT span: `{mcp.method.name} {gen_ai.tool.name}`, server.address without the port.
    const client = trace.find((s) => s.service === 'gateway' && s.kind === CLIENT && s.name === 'tools/call get_uniswap_v3_pool');
    expect(client?.parentSpanId).toBe(server.spanId);
    expect(client?.attributes).toMatchObject({
      'switchboard.upstream.id': 'chain',
      'switchboard.tenant.id': 'acme',
      'switchboard.outcome': 'ok',
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'get_uniswap_v3_pool',
      'gen_ai.operation.name': 'execute_tool',
      'server.address': '127.0.0.1',
      'server.port': upstream.port,
    });

    // The chain-reader's MCP SERVER span continues the gateway's CLIENT span (W3C traceparent on fetch).
    // (The pool's first call to an upstream also carries its `initialize`, in the same trace.)
    const upstreamServer = trace.find(
      (s) => s.service === 'chain-reader' && s.kind === SERVER && s.name === 'tools/call get_uniswap_v3_pool',
    );
    expect(upstreamServer?.parentSpanId).toBe(client?.spanId);
    expect(upstreamServer?.attributes).toMatchObject({ 'gen_ai.tool.name': 'get_uniswap_v3_pool', 'switchboard.outcome': 'ok' });
    // Its reads went out as Multicall3 batches to the devnet node: CLIENT spans with the batch size.
    const batches = trace.filter((s) => s.service === 'chain-reader' && s.name === 'rpc eth_call multicall3');
    expect(batches.length).toBeGreaterThan(0);
    for (const batch of batches) {
      expect(batch.kind).toBe(CLIENT);
      expect(batch.attributes).toMatchObject({ 'rpc.method': 'eth_call', 'switchboard.chain': 'devnet' });
      expect(batch.attributes['switchboard.rpc.batch_size']).toBeGreaterThan(0);
    }
    expect(new Set(trace.map((s) => s.service))).toEqual(new Set(['gateway', 'chain-reader']));
  });

  it('an unknown tool is an error span with its JSON-RPC code and no client-chosen name', async () => {
    const { body } = await callTool('no_such_tool_4711', {});
    expect(body.error?.code).toBe(-32602);
    await receiver.waitFor(
      (spans) => spans.some((s) => s.service === 'gateway' && s.attributes['rpc.response.status_code'] === '-32602'),
      'the error span',
    );
    const span = receiver.spans.find((s) => s.service === 'gateway' && s.attributes['rpc.response.status_code'] === '-32602')!;
    expect(span.name).toBe('tools/call');
    expect(span.attributes['switchboard.outcome']).toBe('error');
    expect(span.attributes['error.type']).toBe('-32602');
    expect(span.status).toBe(2);
    expect(JSON.stringify(span)).not.toContain('no_such_tool_4711');
  });

  it('refusals are spans and mcp_server_refusals_total: an unknown tenant (404) and a wrong media type (415)', async () => {
    const post = (path: string, contentType: string) =>
      fetch(`${gateway.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': contentType, accept: 'application/json, text/event-stream' },
        body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      });
    expect((await post('/t/no-such-tenant-4711/mcp', 'application/json')).status).toBe(404);
    expect((await post('/t/acme/mcp', 'text/plain')).status).toBe(415);
    const refusal = (outcome: string) => (spans: ReceivedSpan[]) =>
      spans.find((s) => s.service === 'gateway' && s.attributes['switchboard.outcome'] === outcome);
    await receiver.waitFor(
      (spans) => Boolean(refusal('unknown_tenant')(spans) && refusal('unsupported_media_type')(spans)),
      'the refusal spans',
    );
    const unknown = refusal('unknown_tenant')(receiver.spans)!;
    expect(unknown).toMatchObject({ name: 'POST /t/:tenant/mcp', kind: SERVER, status: 2 });
    expect(unknown.attributes).toMatchObject({ 'http.response.status_code': 404, 'error.type': '404' });
    expect(refusal('unsupported_media_type')(receiver.spans)?.attributes['switchboard.tenant.id']).toBe('acme');
    const gw = await scrape(`${gateway.url}/metrics`);
    expect(gw).toMatch(/mcp_server_refusals_total\{[^}]*tenant="unknown"[^}]*outcome="unknown_tenant"[^}]*http_status="404"/);
    expect(gw).toMatch(/mcp_server_refusals_total\{[^}]*tenant="acme"[^}]*outcome="unsupported_media_type"/);
    // A client-chosen tenant name never becomes a label.
    expect(gw).not.toContain('no-such-tenant-4711');
  });

  it('a discovery job of the real registry continues the producer trace through BullMQ into the upstream it discovers', async () => {
    // The registry process itself (admin API → DiscoveryQueue → BullMQ → DiscoveryWorker), on a
    // fresh database and its own Redis namespace / queue prefix.
    const db = await createDatabase();
    const env = testEnv();
    const registry = await startRegistry(env, db.url, { ...otelEnv(receiver.url), REGISTRY_ALLOW_HTTP_HOSTS: '127.0.0.1,localhost' });
    try {
      const key = await createTenant(registry.url, env.operatorKey, 'tracing');
      const server = await registerAndDiscover(registry.url, key, {
        id: 'chain',
        name: 'Chain tools',
        url: `http://127.0.0.1:${upstream.port}/mcp`,
      });
      expect(server.health).toBe('ok');

      const producers = () => receiver.spans.filter((s) => s.service === 'registry' && s.name === 'send registry-discovery');
      const pairedConsumer = () =>
        receiver.spans.find(
          (s) =>
            s.service === 'registry' && s.name === 'process registry-discovery' && producers().some((p) => p.spanId === s.parentSpanId),
        );
      await receiver.waitFor(() => Boolean(pairedConsumer()), 'a consumer span whose parent is a producer span');
      const consumer = pairedConsumer()!;
      const producer = producers().find((p) => p.spanId === consumer.parentSpanId);
      expect(producer?.kind).toBe(PRODUCER);
      expect(consumer.kind).toBe(CONSUMER);
      expect(consumer.traceId).toBe(producer?.traceId);
      expect(consumer.attributes).toMatchObject({
        'messaging.system': 'bullmq',
        'messaging.destination.name': 'registry-discovery',
        'switchboard.job.name': 'discover',
      });
      expect(producer?.attributes).toMatchObject({ 'switchboard.tenant.id': 'tracing' });
      // The upstream the job discovered answers inside the job's trace (traceparent on the SDK client's fetch).
      await receiver.waitFor(
        (spans) => spans.some((s) => s.service === 'chain-reader' && s.kind === SERVER && s.traceId === consumer.traceId),
        'the discovered upstream in the job trace',
      );
      const upstreamSpan = receiver.spans.find((s) => s.service === 'chain-reader' && s.kind === SERVER && s.traceId === consumer.traceId)!;
      expect(upstreamSpan.parentSpanId).not.toBe('');

      const metrics = await (await fetch(`${registry.url}/metrics`)).text();
      registryMetrics = metrics; // the dashboard checks below read the registry's real series
      expect(metrics).toMatch(/queue_jobs_total\{[^}]*queue="registry-discovery"[^}]*outcome="ok"/);
      expect(metrics).toMatch(/queue_job_wait_seconds_bucket\{/);
    } finally {
      await registry.stop();
      await cleanRedis(env);
      await db.drop();
    }
  });

  it('the gateway and chain-reader /metrics expose request, error, latency, upstream and RPC series', async () => {
    const gw = await scrape(`${gateway.url}/metrics`);
    expect(gw).toMatch(/mcp_server_requests_total\{[^}]*tenant="acme"[^}]*method="tools\/call"[^}]*tool="get_uniswap_v3_pool"/);
    expect(gw).toMatch(/mcp_server_protocol_requests_total\{[^}]*surface="claude"/);
    // Semconv names: mcp.server.operation.duration / mcp.client.operation.duration (unit s).
    expect(gw).toMatch(/mcp_server_operation_duration_seconds_bucket\{[^}]*mcp_method_name="tools\/call"[^}]*tenant="acme"/);
    expect(gw).toMatch(/mcp_server_operation_duration_seconds_bucket\{[^}]*error_type="-32602"/);
    expect(gw).toMatch(/mcp_server_errors_total\{[^}]*error_code="-32602"/);
    expect(gw).toMatch(/mcp_client_operation_duration_seconds_bucket\{[^}]*mcp_method_name="tools\/call"[^}]*upstream="chain"/);
    expect(gw).toMatch(/nodejs_eventloop_delay_p99_seconds/);
    expect(gw).toMatch(/v8js_memory_heap_used_bytes\{/);
    expect(gw).toMatch(/target_info\{[^}]*service_instance_id="/);
    expect(gw).not.toContain('no_such_tool_4711');
    const chain = await scrape(`http://127.0.0.1:${upstream.port}/metrics`);
    expect(chain).toMatch(/chain_reader_rpc_batch_size_bucket\{[^}]*chain="devnet"/);
    expect(chain).toMatch(/chain_reader_rpc_requests_total\{[^}]*method="eth_call"/);
    expect(chain).toMatch(/chain_reader_cache_lookups_total\{[^}]*result="miss"/);
    expect(registryMetrics).toMatch(/queue_job_duration_seconds_bucket\{/);
  });

  it('every Grafana dashboard is valid JSON and every query names a metric the running apps export', async () => {
    const exported = new Set<string>();
    const addSamples = (text: string) => {
      for (const line of text.split('\n')) if (line && !line.startsWith('#')) exported.add(line.split(/[{ ]/)[0]!);
    };
    addSamples(await scrape(`${gateway.url}/metrics`));
    addSamples(await scrape(`http://127.0.0.1:${upstream.port}/metrics`));
    addSamples(registryMetrics);
    // The auth dashboard reads auth's counters: record each once through the shared instrument
    // catalogue in this process (auth is not part of this test) so their exported names are checked.
    const local = startTelemetry({ serviceName: 'telemetry-e2e', serviceVersion: '0.0.0', env: {} });
    const auth = switchboardMetrics().auth;
    auth.authorizations.add(1, { outcome: 'ok' });
    auth.tokenGrants.add(1, { grant_type: 'authorization_code', outcome: 'ok' });
    auth.registrations.add(1, { outcome: 'ok' });
    auth.signIns.add(1, { idp: 'local', outcome: 'ok' });
    addSamples(await local.metricsText());
    // The collector's spanmetrics connector derives these from the apps' spans (they carry the
    // exemplars); they are checked against the spans received instead.
    const SPAN_METRICS = new Set(['traces_span_metrics_duration_seconds_bucket', 'traces_span_metrics_calls_total']);
    const KINDS: Record<string, number> = {
      SPAN_KIND_SERVER: SERVER,
      SPAN_KIND_CLIENT: CLIENT,
      SPAN_KIND_PRODUCER: PRODUCER,
      SPAN_KIND_CONSUMER: CONSUMER,
    };

    const dir = path.join(REPO_ROOT, 'ops/grafana/dashboards');
    const files = (await readdir(dir)).filter((f) => f.endsWith('.json'));
    expect(files.sort()).toEqual(['auth.json', 'chain-reader.json', 'mcp-overview.json', 'upstream-health.json']);
    const problems: string[] = [];
    for (const file of files) {
      const dashboard = JSON.parse(await readFile(path.join(dir, file), 'utf8')) as {
        uid: string;
        panels: Array<{ title: string; type: string; datasource?: { uid: string }; targets?: Array<{ expr: string; exemplar?: boolean }> }>;
        templating: { list: Array<{ name: string; query: { query: string } }> };
      };
      expect(dashboard.uid).toMatch(/^switchboard-/);
      const queries = [
        ...dashboard.panels.flatMap((p) =>
          (p.targets ?? []).map((t) => ({ where: `${file}: ${p.title}`, expr: t.expr, uid: p.datasource?.uid })),
        ),
        ...dashboard.templating.list.map((v) => ({ where: `${file}: $${v.name}`, expr: v.query.query, uid: 'prometheus' })),
      ];
      expect(dashboard.panels.filter((p) => p.type !== 'row').length).toBeGreaterThan(3);
      for (const q of queries) {
        if (q.uid !== 'prometheus') problems.push(`${q.where}: datasource ${q.uid} is not the provisioned Prometheus`);
        const names = [...q.expr.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\{/g), ...q.expr.matchAll(/label_values\((\w+)/g)].map((m) => m[1]!);
        if (names.length === 0) problems.push(`${q.where}: no metric selector in ${q.expr}`);
        for (const name of names) {
          if (SPAN_METRICS.has(name)) {
            const service = /service_name="([^"]+)"/.exec(q.expr)?.[1];
            const kind = /span_kind="([^"]+)"/.exec(q.expr)?.[1];
            if (!receiver.spans.some((s) => s.service === service && s.kind === KINDS[kind ?? '']))
              problems.push(`${q.where}: no ${kind} spans from ${service} behind ${name}`);
          } else if (!exported.has(name)) problems.push(`${q.where}: ${name} is not exported by the apps`);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});

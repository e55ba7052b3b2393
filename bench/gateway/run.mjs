// bench/gateway — the gateway's MCP endpoint next to its references, measured with wrk in one run:
// a raw Fastify route writing the gateway's own captured bytes (the limit), the official SDK 1.x
// stateless server, the SDK v2 server, and (for the proxied workload) the SDK-built upstream
// called directly. Servers are pinned to one core and wrk to the other (taskset); every response
// is compared byte for byte with the target's validated preflight response in a wrk Lua script.
// See README.md for how to run and read it.
//
//   npx node bench/gateway/run.mjs          (or: npm run bench:gateway, which builds first)
//
// Env: BENCH_DURATION (s per cell, default 8), BENCH_WARMUP (s, default 2), BENCH_CONNECTIONS
//      (default 64), BENCH_ROUNDS (default 3, medians), BENCH_TARGETS (comma list, default all),
//      BENCH_WORKLOADS (comma list, default all), BENCH_SERVER_CPU / BENCH_LOADGEN_CPU (cores,
//      default 1 / 0), BENCH_GATEWAY_ARGS (extra node args for the gateway, e.g. --cpu-prof).
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { rssMb } from '../rss.mjs';
import { fileURLToPath } from 'node:url';
import { startAuthFixture } from './auth-fixture.mjs';
import {
  children,
  deleteRedisNamespace,
  machineCpuSeconds,
  pinProcess,
  processCpuSeconds,
  settings,
  startServer,
  state,
  stopChild,
} from './processes.mjs';
import { ensureWrk, load, openSession, requestHeaders, runWrk, writeLuaScript } from './wrk.mjs';
import { fmt, goals, printTable, summarize } from './report.mjs';
import { list, nonNegativeNumber, positiveNumber, printFooter, runMeta } from './run-meta.mjs';
import { AUTH_TENANT, ECHO, FIXTURE, LIST, capture, post, selectWorkloads, tenantsYaml } from './workloads.mjs';

// Servers are spawned with this process's node: a run on another major measures another runtime
// (earlier numbers were taken on the machine's Node 20 by mistake).
if (!process.version.startsWith('v24.')) {
  console.error(`bench/gateway: refusing to run on Node ${process.version}; run it with Node 24 (npx node bench/gateway/run.mjs)`);
  process.exit(1);
}

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');
const RESULTS_DIR = path.join(HERE, 'results');
const HOST = '127.0.0.1';
const PROTOCOL_VERSION = '2025-11-25';
const GATEWAY_MAIN = path.join(ROOT, 'apps', 'gateway', 'dist', 'main.js');

const DURATION_S = positiveNumber('BENCH_DURATION', 8);
const WARMUP_S = nonNegativeNumber('BENCH_WARMUP', 2);
const CONNECTIONS = Math.round(positiveNumber('BENCH_CONNECTIONS', 64));
const ROUNDS = Math.round(positiveNumber('BENCH_ROUNDS', 3));
const SERVER_CPU = process.env.BENCH_SERVER_CPU ?? '1';
const LOADGEN_CPU = process.env.BENCH_LOADGEN_CPU ?? '0';
// Where the proxied workloads' upstream runs, re-pinned before each cell (taskset -p). Called
// directly it is the server under test, alone on the server core like every other server row.
// Behind a proxy (gateway or raw proxy) it runs beside wrk, as a remote upstream would (the proxy
// has the server core to itself); `proxied call (shared core)` puts it on the proxy's core instead,
// so that row's req/s is bounded by upstream ÷ (proxy + upstream) CPU per call.
const UPSTREAM_CPU = { direct: SERVER_CPU, beside: LOADGEN_CPU, shared: SERVER_CPU };
const ONLY_TARGETS = list(process.env.BENCH_TARGETS);
const ONLY_WORKLOADS = list(process.env.BENCH_WORKLOADS);
const GATEWAY_ARGS = list(process.env.BENCH_GATEWAY_ARGS, ' ');
const RAW_ARGS = list(process.env.BENCH_RAW_ARGS, ' ');
/** Redis of the `limited` row (limiter + usage stream), keys under a per-run namespace deleted at the end. */
const BENCH_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const LIMITED_NAMESPACE = `bench:gw:${process.pid}:${Date.now()}:`;
const START_DEADLINE_MS = 60_000;
Object.assign(settings, { root: ROOT, resultsDir: RESULTS_DIR, host: HOST, serverCpu: SERVER_CPU, startDeadlineMs: START_DEADLINE_MS });
Object.assign(load, { loadgenCpu: LOADGEN_CPU, connections: CONNECTIONS, protocolVersion: PROTOCOL_VERSION });
const GATEWAY_PUBLIC_URL = 'http://bench.local';
const WORKLOADS = selectWorkloads(ONLY_WORKLOADS);

async function startAll(ctx) {
  const servers = {};
  const want = (id) => ONLY_TARGETS.length === 0 || ONLY_TARGETS.includes(id);
  const needUpstream = WORKLOADS.some((w) => w.proxied);
  if (needUpstream) servers.upstream = await startServer('upstream', [path.join(HERE, 'upstream-server.mjs')], {}, UPSTREAM_CPU.direct);
  if (!existsSync(GATEWAY_MAIN)) throw new Error(`${path.relative(ROOT, GATEWAY_MAIN)} not found (run npm run build)`);
  const auth = await startAuthFixture({ tenant: AUTH_TENANT, audience: `${GATEWAY_PUBLIC_URL}/t/${AUTH_TENANT}/mcp` });
  ctx.bearer = auth.token;
  await startGateways(servers, ctx, auth, want);
  await startReferences(servers, ctx, want);
  if (!want('gateway')) servers.gateway.benchOnly = false;
  return servers;
}

/** The gateway rows: plain, with limits and metering, with guardrails (same build, other settings). */
async function startGateways(servers, ctx, auth, want) {
  const tenantsFile = path.join(ctx.tmpDir, 'tenants.yaml');
  writeFileSync(tenantsFile, tenantsYaml(servers.upstream ? `${servers.upstream.baseUrl}/mcp` : 'http://127.0.0.1:9/mcp'));
  const gatewayEnv = {
    // The gateway's documented memory settings (docs/operations.md, "Gateway memory"), as npm start runs it.
    MALLOC_ARENA_MAX: '2',
    // The proxy tenant's upstream takes as many calls at once as wrk keeps open (as bench/chain
    // does): the per-upstream bulkhead (default 32 per replica, a protective cap the operator sets)
    // would otherwise hold half the calls in the gateway's queue, a policy, not the proxy's cost.
    UPSTREAM_MAX_CONCURRENCY: String(CONNECTIONS),
    NODE_OPTIONS: '--max-semi-space-size=16',
    TENANTS_FILE: tenantsFile,
    CATALOG_SOURCES: 'file',
    AUTH_PUBLIC_URL: auth.baseUrl,
    GATEWAY_PUBLIC_URL,
  };
  // The gateway is always started: the raw row serves its captured bytes. It runs with limits and
  // metering off (the `limited` row below is the same build with them on).
  servers.gateway = await startServer('gateway', [...GATEWAY_ARGS, GATEWAY_MAIN], {
    ...gatewayEnv,
    LIMITS_ENABLED: 'false',
    USAGE_ENABLED: 'false',
  });
  // Issue 13: the same gateway with the shared Redis limiter (GCRA script per request) and usage
  // metering (records batched into the Redis stream) on, limits high enough never to refuse: this
  // measures deciding and metering, not refusing (a refusal would show as a byte mismatch).
  if (want('limited')) {
    servers.limited = await startServer('gateway-limited', [...GATEWAY_ARGS, GATEWAY_MAIN], {
      ...gatewayEnv,
      REDIS_URL: BENCH_REDIS_URL,
      REDIS_NAMESPACE: LIMITED_NAMESPACE,
      LIMITS_ENABLED: 'true',
      USAGE_ENABLED: 'true',
      ...Object.fromEntries(
        [
          'TENANT_RPS',
          'TENANT_BURST',
          'SUBJECT_RPS',
          'SUBJECT_BURST',
          'MAX_TENANT_RPS',
          'MAX_TENANT_BURST',
          'MAX_SUBJECT_RPS',
          'MAX_SUBJECT_BURST',
        ].map((k) => [`LIMITS_${k}`, '1000000']),
      ),
      ...JSON.parse(process.env.BENCH_LIMITED_ENV ?? '{}'),
    });
  }
  // Issue 46: the same gateway whose proxy tenant has interceptors (GUARDRAILS_YAML); the `gateway` row's has none.
  if (want('guarded') && servers.upstream) {
    const guardedFile = path.join(ctx.tmpDir, 'tenants-guarded.yaml');
    writeFileSync(guardedFile, tenantsYaml(`${servers.upstream.baseUrl}/mcp`, true));
    servers.guarded = await startServer('gateway-guarded', [...GATEWAY_ARGS, GATEWAY_MAIN], {
      ...gatewayEnv,
      TENANTS_FILE: guardedFile,
      LIMITS_ENABLED: 'false',
      USAGE_ENABLED: 'false',
    });
  }
}

/** The reference rows: the raw route serving the gateway's bytes, the raw proxy and the SDK servers. */
async function startReferences(servers, ctx, want) {
  // Capture the gateway's result bytes for the raw row.
  const resultOf = async (request) => {
    const { bytes } = await post(`${servers.gateway.baseUrl}/t/bench/mcp`, requestHeaders({}), request);
    const text = bytes.toString('utf8');
    const prefix = '{"jsonrpc":"2.0","id":1,"result":';
    if (!text.startsWith(prefix) || !text.endsWith('}')) throw new Error(`unexpected gateway envelope: ${text.slice(0, 120)}`);
    return bytes.subarray(Buffer.byteLength(prefix), bytes.length - 1);
  };
  if (want('raw')) {
    const listFile = path.join(ctx.tmpDir, 'raw-list.json');
    const callFile = path.join(ctx.tmpDir, 'raw-call.json');
    writeFileSync(listFile, await resultOf(LIST));
    writeFileSync(callFile, await resultOf(ECHO));
    servers.raw = await startServer('raw', [...RAW_ARGS, path.join(HERE, 'raw-server.mjs')], {
      RAW_LIST_RESULT: listFile,
      RAW_CALL_RESULT: callFile,
    });
  }
  // The proxied workload's limit: a bare Fastify + undici forwarder to the same upstream, on the gateway's core.
  if (servers.upstream && want('rawproxy')) {
    const upstreamUrl = `${servers.upstream.baseUrl}/mcp`;
    servers.rawproxy = await startServer('rawproxy', [...RAW_ARGS, path.join(HERE, 'raw-proxy.mjs')], {
      UPSTREAM_URL: upstreamUrl,
      UPSTREAM_HEADERS: JSON.stringify(await openSession(upstreamUrl)),
    });
  }
  if (want('sdk1')) servers.sdk1 = await startServer('sdk1', [path.join(HERE, 'sdk-server.mjs')], { FIXTURE });
  if (want('sdk2')) servers.sdk2 = await startServer('sdk2', [path.join(HERE, 'sdk2-server.mjs')], { FIXTURE });
}

const LABELS = {
  gateway: 'gateway',
  limited: 'gateway + limits + metering',
  guarded: 'gateway + guardrails (PII + 3 CEL)',
  raw: 'raw Fastify, gateway bytes',
  sdk1: 'SDK 1.x stateless',
  sdk2: 'SDK v2 on @mcp/fastify',
  rawproxy: 'raw proxy, Fastify + undici',
  upstream: 'upstream direct (SDK 1.x)',
};

async function planCells(servers, ctx) {
  const cells = [];
  let upstreamSession = null;
  for (const workload of WORKLOADS) {
    for (const [targetId, mcpPath] of Object.entries(workload.targets)) {
      const server = servers[targetId];
      if (!server || (ONLY_TARGETS.length && !ONLY_TARGETS.includes(targetId))) continue;
      const cell = { target: targetId, label: LABELS[targetId], workload: workload.id, rounds: [], idleRssMb: server.idleRssMb };
      cells.push(cell);
      try {
        let headers = requestHeaders(workload.bearer ? { authorization: `Bearer ${ctx.bearer}` } : {});
        if (targetId === 'upstream') headers = upstreamSession ??= await openSession(`${server.baseUrl}${mcpPath}`);
        const url = `${server.baseUrl}${mcpPath}`;
        const { bytes, contentType } = await capture(url, headers, workload);
        const slug = `${targetId}-${workload.id.replace(/[^a-z]+/g, '-')}`;
        const expectedFile = path.join(ctx.tmpDir, `${slug}.expected`);
        writeFileSync(expectedFile, bytes);
        const script = path.join(ctx.tmpDir, `${slug}.lua`);
        const mismatchFile = path.join(RESULTS_DIR, 'logs', `${slug}.mismatch.txt`);
        rmSync(mismatchFile, { force: true });
        const connections = workload.connections ?? CONNECTIONS;
        writeLuaScript(script, { body: JSON.stringify(workload.request), headers, expectedFile, mismatchFile, connections });
        // CPU of the row's server: the proxy (gateway or raw proxy) plus its upstream for the proxied rows.
        const pids = [server.pid, ...(workload.proxied && targetId !== 'upstream' ? [servers.upstream.pid] : [])];
        const upstreamCpu = workload.proxied ? UPSTREAM_CPU[targetId === 'upstream' ? 'direct' : workload.proxied] : undefined;
        Object.assign(cell, {
          url,
          script,
          pids,
          upstreamCpu,
          upstreamPid: servers.upstream?.pid,
          connections,
          mainPid: server.pid,
          responseBytes: bytes.length,
          resp: contentType?.includes('event-stream') ? 'sse' : 'json',
          mismatchFile,
        });
      } catch (error) {
        cell.status = 'skipped';
        cell.reason = `preflight: ${error.message.split('\n')[0]}`;
        console.log(`  ${cell.label} / ${workload.id}: SKIPPED — ${cell.reason}`);
      }
    }
  }
  return cells;
}

/**
 * wrk drops its connections with requests in flight when a run ends; give the server a moment to
 * finish those before the next run, so one run's tail never lands in the next one's window.
 */
const DRAIN_MS = 1000;

async function measure(cell) {
  if (cell.upstreamCpu !== undefined) pinProcess(cell.upstreamPid, cell.upstreamCpu);
  if (WARMUP_S > 0) {
    const warm = await runWrk(cell.url, cell.script, WARMUP_S, cell.connections);
    cell.warmupMismatches = (cell.warmupMismatches ?? 0) + warm.mismatches;
    await sleep(DRAIN_MS);
  }
  const cpu0 = cell.pids.map(processCpuSeconds);
  const machine0 = machineCpuSeconds();
  const t0 = process.hrtime.bigint();
  const r = await runWrk(cell.url, cell.script, DURATION_S, cell.connections);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu1 = cell.pids.map(processCpuSeconds);
  const machine1 = machineCpuSeconds();
  const serverCpuS = cpu1.reduce((acc, v, i) => acc + (v ?? NaN) - (cpu0[i] ?? NaN), 0);
  const wrkSeconds = r.durationUs / 1e6;
  const serverCpuPct = (100 * serverCpuS) / seconds;
  return {
    reqPerSec: r.requests / wrkSeconds,
    requests: r.requests,
    mismatches: r.mismatches,
    checked: r.checked,
    errors: r.errors,
    p50Ms: r.latencyUs.p50 / 1000,
    p75Ms: r.latencyUs.p75 / 1000,
    p90Ms: r.latencyUs.p90 / 1000,
    p95Ms: r.latencyUs.p95 / 1000,
    p99Ms: r.latencyUs.p99 / 1000,
    p999Ms: r.latencyUs.p999 / 1000,
    meanMs: r.latencyUs.mean / 1000,
    // wrk's own figures, corrected for coordinated omission (bench/wrk-latency.lua): for reference.
    coP99Ms: r.latencyUs.coP99 / 1000,
    serverCpuPct,
    reqPerServerCpuS: serverCpuS > 0 ? r.requests / serverCpuS : null,
    // Per process (the proxied row: gateway, then upstream): CPU µs per response.
    cpuUsPerRequest: cpu1.map((v, i) => (r.requests > 0 && v !== null && cpu0[i] !== null ? (1e6 * (v - cpu0[i])) / r.requests : null)),
    // Everything else on the machine meanwhile (other sessions): the noise indicator.
    otherCpuPct:
      machine0 !== null && machine1 !== null
        ? Math.max(0, (100 * (machine1.busy - machine0.busy - r.wrkCpuS)) / seconds - serverCpuPct)
        : null,
    // The part of that the hypervisor took for other guests (100% = one core).
    stealCpuPct: machine0 !== null && machine1 !== null ? (100 * (machine1.steal - machine0.steal)) / seconds : null,
    // Busy share of the load generator's core (100% = all of it): wrk, plus the upstream when it
    // runs beside wrk. At ~100% the cell's req/s is the load generator's, not the server's.
    loadgenCorePct: corePct(machine0, machine1, LOADGEN_CPU, seconds),
    serverCorePct: corePct(machine0, machine1, SERVER_CPU, seconds),
    // The proxy's (or the direct upstream's) own CPU µs per response: pairs per round.
    mainCpuUs: r.requests > 0 && cpu1[0] !== null && cpu0[0] !== null ? (1e6 * (cpu1[0] - cpu0[0])) / r.requests : null,
    rssAfterMb: rssMb(cell.mainPid),
  };
}

/** Busy share of one core between two /proc/stat readings (100% = all of it), or null. */
function corePct(machine0, machine1, core, seconds) {
  const a = machine0?.cores?.[core];
  const b = machine1?.cores?.[core];
  return a && b ? (100 * (b.busy - a.busy)) / seconds : null;
}

async function measureAndDrain(cell) {
  const r = await measure(cell);
  await sleep(DRAIN_MS);
  return r;
}

async function main() {
  ensureWrk();
  const meta = runMeta({
    root: ROOT,
    connections: CONNECTIONS,
    durationS: DURATION_S,
    warmupS: WARMUP_S,
    rounds: ROUNDS,
    serverCpu: SERVER_CPU,
    loadgenCpu: LOADGEN_CPU,
    upstreamCpu: UPSTREAM_CPU,
  });
  state.tmpDir = mkdtempSync(path.join(os.tmpdir(), 'bench-gateway-'));
  const ctx = { tmpDir: state.tmpDir };
  let servers = {};
  let cells = [];
  try {
    servers = await startAll(ctx);
    for (const s of Object.values(servers)) console.log(`  ${s.id}: up at ${s.baseUrl} (pid ${s.pid}, idle RSS ${fmt(s.idleRssMb)} MB)`);
    cells = await planCells(servers, ctx);
    const runnable = cells.filter((c) => c.status !== 'skipped');
    for (let round = 1; round <= ROUNDS && !state.interrupted; round++) {
      console.log(`  round ${round}/${ROUNDS}`);
      for (const cell of runnable) {
        const r = await measureAndDrain(cell);
        cell.rounds.push(r);
        console.log(
          `    ${cell.workload} / ${cell.label}: ${fmt(r.reqPerSec)} req/s, p50 ${fmt(r.p50Ms, 2)} ms, p99 ${fmt(r.p99Ms, 2)} ms, srv CPU ${fmt(r.serverCpuPct)}%, mismatches ${r.mismatches}`,
        );
      }
    }
    cells.forEach(summarize);
  } finally {
    await Promise.allSettled(Object.values(servers).map((s) => s.stop()));
    if (servers.limited)
      await deleteRedisNamespace(BENCH_REDIS_URL, LIMITED_NAMESPACE).catch((e) =>
        console.error(`could not delete ${LIMITED_NAMESPACE}* from Redis: ${e.message}`),
      );
    rmSync(state.tmpDir, { recursive: true, force: true });
    state.tmpDir = null;
  }
  console.log('');
  printTable(cells);
  const goalList = goals(cells);
  printFooter(meta, cells);
  mkdirSync(RESULTS_DIR, { recursive: true });
  const outFile = path.join(RESULTS_DIR, 'latest.json');
  writeFileSync(
    outFile,
    `${JSON.stringify({ meta: { ...meta, finishedAt: new Date().toISOString(), loadAvgAtEnd: os.loadavg() }, goals: goalList, cells }, null, 2)}\n`,
  );
  console.log(`Results: ${path.relative(process.cwd(), outFile) || outFile}`);
  if (cells.some((c) => c.status === 'FAILED')) process.exitCode = 1;
}

main().catch(async (error) => {
  console.error(`bench/gateway failed: ${error.stack ?? error}`);
  await Promise.allSettled([...children].map(stopChild));
  if (state.tmpDir) rmSync(state.tmpDir, { recursive: true, force: true });
  process.exit(1);
});

// bench/scale — one gateway serving many file tenants, each the 40-tool fixture: boot time, RSS,
// the first tools/list of a cold tenant, and warm tools/list latency with requests spread over
// every tenant (wrk, byte-exact checks). Every gateway is booted first; then each gets the same
// wrk warm-up (which also asks every tenant once, so no cold tenant is in a measured window) and
// the measured windows run in interleaved rounds (medians), so a busy shared machine drifts every
// row alike. See README.md. Run: npx node bench/scale/run.mjs (or npm run bench:scale, which builds first).
//
// Env: SCALE_TENANTS (comma list, default 1,1000,10000), SCALE_DURATION (s of warm load, default 5),
//      SCALE_ROUNDS (default 3), SCALE_WARMUP_REQUESTS (default 20000; at least every tenant once),
//      SCALE_CONNECTIONS (default 16), SCALE_COLD_SAMPLES (default 200), SCALE_SERVER_CPU /
//      SCALE_LOADGEN_CPU (default 1 / 0), SCALE_GATEWAY_ARGS (extra node args for the gateway).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, createWriteStream } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { rssMb, settledRssMb } from '../rss.mjs';
import { measuredLatencyProblem, WRK_LATENCY_LUA } from '../wrk-latency.mjs';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');
const RESULTS_DIR = path.join(HERE, 'results');
const GATEWAY_MAIN = path.join(ROOT, 'apps', 'gateway', 'dist', 'main.js');
const SHARED_FIXTURE = '/work/shared/fixtures/saas-40-tools.json';
const FIXTURE = existsSync(SHARED_FIXTURE) ? SHARED_FIXTURE : path.join(ROOT, 'config', 'fixtures', 'saas-40-tools.json');
const HOST = '127.0.0.1';
const COUNTS = (process.env.SCALE_TENANTS ?? '1,1000,10000')
  .split(',')
  .map((s) => Number(s.trim()))
  .filter((n) => Number.isInteger(n) && n > 0);
const DURATION_S = Number(process.env.SCALE_DURATION ?? 5);
const CONNECTIONS = Number(process.env.SCALE_CONNECTIONS ?? 16);
const COLD_SAMPLES = Number(process.env.SCALE_COLD_SAMPLES ?? 200);
const ROUNDS = Math.max(1, Number(process.env.SCALE_ROUNDS ?? 3));
// The same warm-up for every row (JIT, page cache), and at least one request per tenant of the largest.
const WARMUP_REQUESTS = Math.max(Number(process.env.SCALE_WARMUP_REQUESTS ?? 20_000), ...COUNTS);
/** Seconds of each warm-up wrk run: wrk runs for its whole -d, so the warm-up is runs of this until enough requests were answered. */
const WARMUP_STEP_S = 2;
const SERVER_CPU = process.env.SCALE_SERVER_CPU ?? '1';
const LOADGEN_CPU = process.env.SCALE_LOADGEN_CPU ?? '0';
const GATEWAY_ARGS = (process.env.SCALE_GATEWAY_ARGS ?? '').split(' ').filter(Boolean);
const BOOT_DEADLINE_MS = 180_000;
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
const LIST_BODY = '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}';

const children = new Set();
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, HOST, () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const tenantId = (i) => `s${i}`;

function tenantsYaml(n) {
  const lines = ['# Written by bench/scale/run.mjs; deleted at the end of the run.', 'tenants:'];
  for (let i = 0; i < n; i++)
    lines.push(`  - id: ${tenantId(i)}`, `    name: Scale tenant ${i}`, '    catalogs:', `      - fixture: ${FIXTURE}`);
  return `${lines.join('\n')}\n`;
}

async function listOnce(base, id) {
  const t0 = process.hrtime.bigint();
  const res = await fetch(`${base}/t/${id}/mcp`, { method: 'POST', headers: HEADERS, body: LIST_BODY });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, status: res.status, bytes };
}

function percentile(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : null;
}

/**
 * The wrk script: request k goes to tenant (k × 7919) mod n — 7919 is prime, so any n it does not
 * divide sees every tenant once in n consecutive requests — counting from `from` (a warm-up run
 * continues where the previous one ended), and every body is compared byte for byte with `expectedFile`.
 */
function wrkScript(n, expectedFile, from) {
  return `local latencyOf = dofile("${WRK_LATENCY_LUA}")
local f = assert(io.open("${expectedFile}", "rb"))
local expected = f:read("*a")
f:close()
local headers = { ["content-type"] = "application/json", ["accept"] = "application/json, text/event-stream", ["mcp-protocol-version"] = "2025-11-25" }
local body = '${LIST_BODY}'
local threads = {}
function setup(thread) table.insert(threads, thread) end
counter = ${from}
mismatches = 0
function request()
  counter = counter + 1
  return wrk.format("POST", "/t/s" .. ((counter * 7919) % ${n}) .. "/mcp", headers, body)
end
function response(status, h, b)
  if status ~= 200 or b ~= expected then mismatches = mismatches + 1 end
end
function done(summary, latency, requests)
  local m = 0
  for _, t in ipairs(threads) do m = m + t:get("mismatches") end
  local e = summary.errors
  local l = latencyOf.measured(summary, latency, ${CONNECTIONS})
  io.write(string.format('SCALEJSON {"requests":%d,"durationUs":%d,"mismatches":%d,"errors":%d,"timeouts":%d,"p50":%d,"p99":%d,"latencyUs":%s}\\n',
    summary.requests, summary.duration, m, e.connect + e.read + e.write + e.status + e.timeout, e.timeout, l.p50, l.p99, latencyOf.json(l)))
end
`;
}

/** One wrk run of `duration` s against gateway `gw`, its requests counted from `from`, with the gateway CPU it took. */
function wrk(gw, tmp, duration = DURATION_S, from = 0) {
  const script = path.join(tmp, `scale-${gw.n}.lua`);
  writeFileSync(script, wrkScript(gw.n, gw.expectedFile, from));
  const cpuBefore = cpuSeconds(gw.child.pid);
  // CLOCK_MONOTONIC µs, the clock of a --cpu-prof profile's timestamps: a profile can be cut to the measured windows.
  const startUs = Number(process.hrtime.bigint() / 1000n);
  const out = spawnSync('taskset', ['-c', LOADGEN_CPU, 'wrk', '-t1', `-c${CONNECTIONS}`, `-d${duration}s`, '-s', script, `${gw.base}/`], {
    encoding: 'utf8',
  });
  const cpuS = cpuSeconds(gw.child.pid) - cpuBefore;
  const line = out.stdout.split('\n').find((l) => l.startsWith('SCALEJSON '));
  if (!line) throw new Error(`wrk failed: ${out.stderr || out.stdout}`);
  const result = JSON.parse(line.slice('SCALEJSON '.length));
  const bad = measuredLatencyProblem(result);
  if (bad) throw new Error(bad);
  return { ...result, cpuS, startUs, endUs: Number(process.hrtime.bigint() / 1000n) };
}

/** Spawns the gateway for `n` tenants and waits for /healthz (every tenant is loaded before the port opens). */
async function boot(n, tmp) {
  const file = path.join(tmp, `tenants-${n}.yaml`);
  writeFileSync(file, tenantsYaml(n));
  const port = await freePort();
  mkdirSync(path.join(RESULTS_DIR, 'logs'), { recursive: true });
  const log = createWriteStream(path.join(RESULTS_DIR, 'logs', `gateway-${n}.log`));
  const t0 = Date.now();
  const child = spawn('taskset', ['-c', SERVER_CPU, process.execPath, ...GATEWAY_ARGS, GATEWAY_MAIN], {
    cwd: ROOT,
    // The gateway's documented memory settings (docs/operations.md, "Gateway memory"), as npm start runs it.
    env: {
      ...process.env,
      MALLOC_ARENA_MAX: '2',
      NODE_OPTIONS: '--max-semi-space-size=16',
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      GATEWAY_PORT: String(port),
      GATEWAY_HOST: HOST,
      TENANTS_FILE: file,
      CATALOG_SOURCES: 'file',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  const gw = { n, child, base: `http://${HOST}:${port}`, row: { tenants: n } };
  for (;;) {
    if (child.exitCode !== null) throw new Error(`gateway exited (${child.exitCode}); see results/logs/gateway-${n}.log`);
    if (Date.now() - t0 > BOOT_DEADLINE_MS) throw new Error(`not booted within ${BOOT_DEADLINE_MS / 1000}s`);
    try {
      const r = await fetch(`${gw.base}/healthz`, { signal: AbortSignal.timeout(1000) });
      await r.arrayBuffer();
      if (r.status === 200) {
        gw.row.bootMs = Date.now() - t0;
        gw.row.bootCpuS = cpuSeconds(child.pid);
        break;
      }
    } catch {
      /* not up yet */
    }
    await sleep(50);
  }
  gw.row.bootRssMb = await settledRssMb(child.pid);
  return gw;
}

/**
 * Cold: the first tools/list of tenants nobody asked yet (a spread sample), one at a time; warm:
 * the same sample again, COLD_SAMPLES requests whatever n is. Sets the bytes every body must equal.
 */
async function probe(gw, tmp) {
  const { n, base, row } = gw;
  const cold = [];
  const samples = Math.min(COLD_SAMPLES, n);
  let expected = null;
  for (let k = 0; k < samples; k++) {
    const id = tenantId(Math.floor((k * n) / samples));
    const r = await listOnce(base, id);
    if (r.status !== 200) throw new Error(`tools/list of ${id}: HTTP ${r.status}: ${r.bytes.toString('utf8').slice(0, 200)}`);
    expected ??= r.bytes;
    if (!expected.equals(r.bytes)) throw new Error(`tenant ${id} listed different bytes`);
    cold.push(r.ms);
  }
  const warmSeq = [];
  for (let k = 0; k < Math.max(samples, COLD_SAMPLES); k++)
    warmSeq.push((await listOnce(base, tenantId(Math.floor(((k % samples) * n) / samples)))).ms);
  gw.expectedFile = path.join(tmp, `expected-${n}.json`);
  writeFileSync(gw.expectedFile, expected);
  Object.assign(row, {
    coldP50Ms: percentile(cold, 50),
    coldP99Ms: percentile(cold, 99),
    warmSeqP50Ms: percentile(warmSeq, 50),
    warmSeqP99Ms: percentile(warmSeq, 99),
  });
}

/** wrk runs of WARMUP_STEP_S until WARMUP_REQUESTS were answered, each continuing the tenant sequence (so every tenant is asked). */
function warmUp(gw, tmp) {
  const total = { requests: 0, mismatches: 0, errors: 0 };
  while (total.requests < WARMUP_REQUESTS) {
    const run = wrk(gw, tmp, WARMUP_STEP_S, total.requests);
    if (run.requests === 0) throw new Error(`warm-up of ${gw.n} tenants: no request answered in ${WARMUP_STEP_S}s`);
    total.requests += run.requests;
    total.mismatches += run.mismatches;
    total.errors += run.errors;
  }
  return total;
}

const median = (xs) => percentile(xs, 50);

/** The measured windows' medians (and sums of mismatches and errors, warm-up included) into the row. */
function summarize(gw, windows, warmup) {
  Object.assign(gw.row, {
    loadReqPerSec: median(windows.map((w) => w.requests / (w.durationUs / 1e6))),
    // Requests per second of gateway CPU: on a shared machine the wall-clock rate and latency
    // follow the other load, the CPU each request costs does not.
    loadReqPerCpuS: median(windows.map((w) => (w.cpuS > 0 ? w.requests / w.cpuS : 0))),
    loadP50Ms: median(windows.map((w) => w.p50 / 1000)),
    loadP99Ms: median(windows.map((w) => w.p99 / 1000)),
    pid: gw.child.pid,
    rounds: windows.map((w) => ({
      requests: w.requests,
      cpuS: w.cpuS,
      p50Ms: w.p50 / 1000,
      p99Ms: w.p99 / 1000,
      startUs: w.startUs,
      endUs: w.endUs,
    })),
    warmupRequests: warmup.requests,
    mismatches: warmup.mismatches + windows.reduce((s, w) => s + w.mismatches, 0),
    errors: warmup.errors + windows.reduce((s, w) => s + w.errors, 0),
    afterRssMb: rssMb(gw.child.pid),
  });
}

async function stop(gw) {
  const { child } = gw;
  child.kill('SIGTERM');
  await Promise.race([new Promise((r) => child.once('exit', r)), sleep(5000)]);
  if (child.exitCode === null) child.kill('SIGKILL');
  children.delete(child);
}

/**
 * Boots every count's gateway (one at a time, so boots do not share the core), probes each, gives
 * each the same warm-up, then runs ROUNDS interleaved measured windows: every row sees the same
 * drift of a shared machine, and no row measures first requests of cold tenants under load.
 */
async function runAll(tmp) {
  const gws = [];
  try {
    for (const n of COUNTS) {
      const gw = await boot(n, tmp);
      gws.push(gw);
      await probe(gw, tmp);
      console.log(`  ${n} tenants: boot ${fmt(gw.row.bootMs / 1000, 1)} s, RSS ${fmt(gw.row.bootRssMb)} MB`);
    }
    const warmups = gws.map((gw) => warmUp(gw, tmp));
    const windows = gws.map(() => []);
    for (let r = 0; r < ROUNDS; r++) gws.forEach((gw, i) => windows[i].push(wrk(gw, tmp)));
    gws.forEach((gw, i) => summarize(gw, windows[i], warmups[i]));
    return gws.map((gw) => gw.row);
  } finally {
    for (const gw of gws) await stop(gw);
  }
}

const fmt = (v, d = 0) =>
  typeof v === 'number' && Number.isFinite(v) ? v.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d }) : '—';

/** The table of rows, each compared with the 1-tenant row. */
function printTable(rows, one) {
  const header = [
    'tenants',
    'boot s',
    'boot CPU s',
    'RSS boot MB',
    'RSS after MB',
    'cold p50 ms',
    'cold p99 ms',
    'warm p50 ms',
    'warm p99 ms',
    `load req/s`,
    'req/CPU-s',
    'load p50 ms',
    'load p99 ms',
    'p50 ÷ 1-tenant',
    'CPU-s rate ÷ 1-tenant',
    'mismatch',
  ];
  const table = rows.map((r) => [
    fmt(r.tenants),
    fmt(r.bootMs / 1000, 1),
    fmt(r.bootCpuS, 1),
    fmt(r.bootRssMb),
    fmt(r.afterRssMb),
    fmt(r.coldP50Ms, 2),
    fmt(r.coldP99Ms, 2),
    fmt(r.warmSeqP50Ms, 2),
    fmt(r.warmSeqP99Ms, 2),
    fmt(r.loadReqPerSec),
    fmt(r.loadReqPerCpuS),
    fmt(r.loadP50Ms, 2),
    fmt(r.loadP99Ms, 2),
    fmt(r.loadP50Ms / one.loadP50Ms, 2),
    fmt(r.loadReqPerCpuS / one.loadReqPerCpuS, 2),
    `${r.mismatches + r.errors}`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i].length)));
  const line = (cols) => cols.map((c, i) => c.padStart(widths[i])).join('  ');
  console.log(`\n${line(header)}\n${line(widths.map((w) => '-'.repeat(w)))}`);
  for (const row of table) console.log(line(row));
}

/** The table, the 10,000-tenant targets and how to read both. */
function printRows(rows) {
  const one = rows.find((r) => r.tenants === 1) ?? rows[0];
  printTable(rows, one);
  const big = rows.find((r) => r.tenants === 10_000);
  if (big) {
    console.log('\nTargets (10,000 tenants × 40 tools):');
    console.log(
      `  RSS ≤ 400 MB: ${fmt(Math.max(big.bootRssMb, big.afterRssMb))} MB — ${Math.max(big.bootRssMb, big.afterRssMb) <= 400 ? 'MET' : 'NOT MET'}`,
    );
    console.log(
      `  boot ≤ 10 s: ${fmt(big.bootMs / 1000, 1)} s wall, ${fmt(big.bootCpuS, 1)} s of gateway CPU — ${big.bootMs <= 10_000 ? 'MET' : 'NOT MET'}${big.bootMs > 10_000 && big.bootCpuS <= 10 ? ' on the wall clock (the CPU it used fits: the machine was busy)' : ''}`,
    );
    const r = big.loadP50Ms / one.loadP50Ms;
    console.log(`  tools/list p50 within 10% of 1 tenant (under load): ×${fmt(r, 2)} — ${r <= 1.1 ? 'MET' : 'NOT MET'}`);
    const c = big.loadReqPerCpuS / one.loadReqPerCpuS;
    console.log(
      `  (per gateway CPU-second: ×${fmt(c, 2)} of the 1-tenant rate — ${c >= 0.9 ? 'within' : 'not within'} 10%; robust to a busy machine)`,
    );
  }
  console.log(
    "\nboot = spawn to /healthz 200 (every tenant is compiled before the port opens); boot CPU = the gateway's utime+stime by then.\n" +
      'cold = the first tools/list of a tenant nobody asked before (its pages compiled on that request), one request at a time;\n' +
      'warm = the same tenants again, one at a time; load = wrk spreading requests over every tenant, each body compared\n' +
      `byte for byte, after a warm-up of ${fmt(WARMUP_REQUESTS)} requests that asked every tenant; medians of ${ROUNDS} interleaved rounds.\n` +
      'Every tenant lists the same 40 tools, so content-addressed pages collapse to one Buffer per distinct page: real\n' +
      'tenants differ, and then the page LRU bound (bytes) is what caps memory. The machine is shared: compare rows.',
  );
}

async function main() {
  if (!existsSync(GATEWAY_MAIN)) throw new Error('apps/gateway/dist/main.js not found (npm run build)');
  if (spawnSync('wrk', ['--version']).error) throw new Error('wrk is not installed (apt-get install -y wrk)');
  console.log(
    `bench/scale: file tenants × ${path.relative(ROOT, FIXTURE) || FIXTURE} (40 tools); gateway on cpu ${SERVER_CPU}, wrk -c${CONNECTIONS} on cpu ${LOADGEN_CPU}: ${fmt(WARMUP_REQUESTS)} warm-up requests, then ${ROUNDS} interleaved rounds of ${DURATION_S}s; load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'bench-scale-'));
  let rows;
  try {
    rows = await runAll(tmp);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  printRows(rows);
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(
    path.join(RESULTS_DIR, 'latest.json'),
    `${JSON.stringify({ at: new Date().toISOString(), loadavg: os.loadavg(), rows }, null, 2)}\n`,
  );
}

main().catch((err) => {
  console.error(`bench/scale failed: ${err.stack ?? err}`);
  process.exit(1);
});

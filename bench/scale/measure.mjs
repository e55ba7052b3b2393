// bench/scale's measurements, shared by its file and registry modes: one tools/list at a time
// (cold and warm probes), wrk windows with the gateway CPU they took, the warm-up, the medians of
// interleaved rounds, and the table. A gateway here is { n, child, base, row, expectedFile, script(from) }.
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { rssMb, settledRssMb } from '../rss.mjs';
import { measuredLatencyProblem, WRK_LATENCY_LUA } from '../wrk-latency.mjs';
import { freePort, HOST } from './registry-procs.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(HERE, '..', '..');
export const RESULTS_DIR = path.join(HERE, 'results');
/** SCALE_GATEWAY_MAIN: another build's gateway (e.g. a branch's worktree) measured the same way. */
export const GATEWAY_MAIN = process.env.SCALE_GATEWAY_MAIN ?? path.join(ROOT, 'apps', 'gateway', 'dist', 'main.js');
const SHARED_FIXTURE = '/work/shared/fixtures/saas-40-tools.json';
export const FIXTURE = existsSync(SHARED_FIXTURE) ? SHARED_FIXTURE : path.join(ROOT, 'config', 'fixtures', 'saas-40-tools.json');
const GATEWAY_ARGS = (process.env.SCALE_GATEWAY_ARGS ?? '').split(' ').filter(Boolean);
const BOOT_DEADLINE_MS = 180_000;

export const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
};
export const LIST_BODY = '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}';
export const DURATION_S = Number(process.env.SCALE_DURATION ?? 5);
export const CONNECTIONS = Number(process.env.SCALE_CONNECTIONS ?? 16);
export const COLD_SAMPLES = Number(process.env.SCALE_COLD_SAMPLES ?? 200);
const PROCESS_WARMUP_REQUESTS = Number(process.env.SCALE_PROCESS_WARMUP ?? 1000);
const PROCESS_WARMUP_TENANTS = 50;
export const ROUNDS = Math.max(1, Number(process.env.SCALE_ROUNDS ?? 3));
export const SERVER_CPU = process.env.SCALE_SERVER_CPU ?? '1';
export const LOADGEN_CPU = process.env.SCALE_LOADGEN_CPU ?? '0';
/** Seconds of each warm-up wrk run: wrk runs for its whole -d, so the warm-up is runs of this until enough requests were answered. */
const WARMUP_STEP_S = 2;

export const tenantId = (i) => `s${i}`;

export function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export async function listOnce(base, id) {
  const t0 = process.hrtime.bigint();
  const res = await fetch(`${base}/t/${id}/mcp`, { method: 'POST', headers: HEADERS, body: LIST_BODY });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, status: res.status, bytes };
}

export function percentile(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : null;
}

export const median = (xs) => percentile(xs, 50);

/**
 * The parts of a wrk script every mode shares: the expected body (compared byte for byte with
 * every answer), the headers, the mismatch count and the SCALEJSON line done() prints. `pick`
 * is Lua run once per request that sets `path` (and may use `counter`, already incremented).
 */
export function wrkScript({ expectedFile, from, prelude = '', pick }) {
  return `local latencyOf = dofile("${WRK_LATENCY_LUA}")
local f = assert(io.open("${expectedFile}", "rb"))
local expected = f:read("*a")
f:close()
${prelude}
local headers = { ["content-type"] = "application/json", ["accept"] = "application/json, text/event-stream", ["mcp-protocol-version"] = "2025-11-25" }
local body = '${LIST_BODY}'
local threads = {}
function setup(thread) table.insert(threads, thread) end
counter = ${from}
mismatches = 0
function request()
  counter = counter + 1
  local path
  ${pick}
  return wrk.format("POST", path, headers, body)
end
firstBad = ""
function response(status, h, b)
  if status ~= 200 or b ~= expected then
    mismatches = mismatches + 1
    if firstBad == "" then firstBad = status .. " " .. string.sub(b or "", 1, 300) end
  end
end
function done(summary, latency, requests)
  local m = 0
  local bad = ""
  for _, t in ipairs(threads) do
    m = m + t:get("mismatches")
    if bad == "" then bad = t:get("firstBad") end
  end
  if bad ~= "" then io.write("SCALEBAD " .. string.gsub(bad, "\\n", " ") .. "\\n") end
  local e = summary.errors
  local l = latencyOf.measured(summary, latency, ${CONNECTIONS})
  io.write(string.format('SCALEJSON {"requests":%d,"durationUs":%d,"mismatches":%d,"errors":%d,"timeouts":%d,"p50":%d,"p99":%d,"latencyUs":%s}\\n',
    summary.requests, summary.duration, m, e.connect + e.read + e.write + e.status + e.timeout, e.timeout, l.p50, l.p99, latencyOf.json(l)))
end
`;
}

/** One wrk run of `duration` s against gateway `gw`, its requests counted from `from`, with the gateway CPU it took. */
export function wrk(gw, tmp, duration = DURATION_S, from = 0) {
  const script = path.join(tmp, `scale-${gw.key ?? gw.n}.lua`);
  writeFileSync(script, gw.script(from));
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
  // The first answer that was not the expected 200 body (status and its start), kept in the row.
  const firstBad = out.stdout.split('\n').find((l) => l.startsWith('SCALEBAD '));
  if (firstBad) gw.row.firstMismatch ??= firstBad.slice('SCALEBAD '.length);
  return { ...result, cpuS, startUs, endUs: Number(process.hrtime.bigint() / 1000n) };
}

/**
 * Cold: the first tools/list of tenants nobody asked yet (a spread sample), one at a time; warm:
 * the same sample again, COLD_SAMPLES requests whatever n is. Sets the bytes every body must equal.
 */
export async function probe(gw, tmp) {
  const { n, base, row } = gw;
  const cold = [];
  const samples = Math.min(COLD_SAMPLES, n);
  row.firstRequestMs = await warmProcess(base, n, samples);
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
  gw.expectedFile = path.join(tmp, `expected-${gw.key ?? n}.json`);
  writeFileSync(gw.expectedFile, expected);
  Object.assign(row, {
    coldP50Ms: percentile(cold, 50),
    coldP99Ms: percentile(cold, 99),
    warmSeqP50Ms: percentile(warmSeq, 50),
    warmSeqP99Ms: percentile(warmSeq, 99),
  });
}

/**
 * The process's warm-up before the cold probe, so the cold columns time a tenant's first request
 * and not the process's (V8 compiles the request path, the cold path included, on its first
 * uses): PROCESS_WARMUP_REQUESTS requests over up to PROCESS_WARMUP_TENANTS tenants the probe
 * does not sample (each fetched cold once, then warm), or over unknown ids (404s) when it samples
 * every tenant. Returns the process's first request's latency, reported beside the cold columns.
 */
async function warmProcess(base, n, samples) {
  const ids = [];
  for (let k = 0; k < samples && ids.length < PROCESS_WARMUP_TENANTS; k++) {
    const i = Math.floor((k * n) / samples) + 1;
    if (i < n && i < Math.floor(((k + 1) * n) / samples)) ids.push(tenantId(i));
  }
  let first = null;
  for (let r = 0; r < PROCESS_WARMUP_REQUESTS; r++) {
    const id = ids.length > 0 ? ids[r % ids.length] : `scale-unknown-${r}`;
    const res = await listOnce(base, id);
    if (res.status !== (ids.length > 0 ? 200 : 404)) throw new Error(`process warm-up: tools/list of ${id}: HTTP ${res.status}`);
    first ??= res.ms;
  }
  return first;
}

/** wrk runs of WARMUP_STEP_S until `requests` were answered, each continuing the tenant sequence. */
export function warmUp(gw, tmp, requests) {
  const total = { requests: 0, mismatches: 0, errors: 0 };
  while (total.requests < requests) {
    const run = wrk(gw, tmp, WARMUP_STEP_S, total.requests);
    if (run.requests === 0) throw new Error(`warm-up of ${gw.n} tenants: no request answered in ${WARMUP_STEP_S}s`);
    total.requests += run.requests;
    total.mismatches += run.mismatches;
    total.errors += run.errors;
  }
  return total;
}

/** The measured windows' medians (and sums of mismatches and errors, warm-up included) into the row. */
export function summarize(gw, windows, warmup) {
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

/** Each gateway's warm-up, then ROUNDS measured windows interleaved across the gateways, summarized into their rows. */
export function measureInterleaved(gws, tmp, warmupRequests) {
  const warmups = gws.map((gw) => warmUp(gw, tmp, warmupRequests(gw)));
  const windows = gws.map(() => []);
  for (let r = 0; r < ROUNDS; r++) gws.forEach((gw, i) => windows[i].push(wrk(gw, tmp)));
  gws.forEach((gw, i) => summarize(gw, windows[i], warmups[i]));
}

/**
 * Spawns the gateway with `env` and waits for /healthz 200 (boot ms and CPU s into the row), then
 * the settled RSS. Shared by both modes; `name` names the log file.
 */
export async function bootGateway(n, name, env) {
  const port = await freePort();
  mkdirSync(path.join(RESULTS_DIR, 'logs'), { recursive: true });
  const log = createWriteStream(path.join(RESULTS_DIR, 'logs', `${name}.log`));
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
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  process.on('exit', () => child.kill('SIGKILL'));
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  const gw = { n, key: name, child, base: `http://${HOST}:${port}`, row: { tenants: n } };
  for (;;) {
    if (child.exitCode !== null) throw new Error(`gateway exited (${child.exitCode}); see results/logs/${name}.log`);
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

/** The columns both modes print, each load column compared with the 1-tenant row. */
export function loadColumns(one) {
  return [
    ['first ms', (r) => fmt(r.firstRequestMs, 2)],
    ['cold p50 ms', (r) => fmt(r.coldP50Ms, 2)],
    ['cold p99 ms', (r) => fmt(r.coldP99Ms, 2)],
    ['warm p50 ms', (r) => fmt(r.warmSeqP50Ms, 2)],
    ['warm p99 ms', (r) => fmt(r.warmSeqP99Ms, 2)],
    ['load req/s', (r) => fmt(r.loadReqPerSec)],
    ['req/CPU-s', (r) => fmt(r.loadReqPerCpuS)],
    ['load p50 ms', (r) => fmt(r.loadP50Ms, 2)],
    ['load p99 ms', (r) => fmt(r.loadP99Ms, 2)],
    ['p50 ÷ 1-tenant', (r) => fmt(r.loadP50Ms / one.loadP50Ms, 2)],
    ['CPU-s rate ÷ 1-tenant', (r) => fmt(r.loadReqPerCpuS / one.loadReqPerCpuS, 2)],
    ['mismatch', (r) => `${r.mismatches + r.errors}`],
  ];
}

export async function stop(gw) {
  const { child } = gw;
  child.kill('SIGTERM');
  await Promise.race([new Promise((r) => child.once('exit', r)), sleep(5000)]);
  if (child.exitCode === null) child.kill('SIGKILL');
}

export const fmt = (v, d = 0) =>
  typeof v === 'number' && Number.isFinite(v) ? v.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d }) : '—';

/** Prints a right-aligned table: `columns` is [header, (row) => text] pairs. */
export function printColumns(rows, columns) {
  const header = columns.map(([h]) => h);
  const table = rows.map((r) => columns.map(([, cell]) => cell(r)));
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i].length)));
  const line = (cols) => cols.map((c, i) => c.padStart(widths[i])).join('  ');
  console.log(`\n${line(header)}\n${line(widths.map((w) => '-'.repeat(w)))}`);
  for (const row of table) console.log(line(row));
}

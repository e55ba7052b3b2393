// bench/gateway — throughput/latency of the gateway's MCP endpoint next to two references, in one
// run: the official SDK 1.x stateless server (sdk-server.mjs) and a raw Fastify route writing a
// precompiled response (raw-server.mjs, the practical limit). Every response is validated before
// it counts. See README.md for how to run and read it.
//
//   npx node bench/gateway/run.mjs          (or: npm run bench:gateway, which builds first)
//
// Env: BENCH_DURATION (s per cell, default 10), BENCH_WARMUP (s, default 2),
//      BENCH_CONNECTIONS (default 64), BENCH_ROUNDS (default 1; >1 repeats the whole sequence and
//      reports each cell's median round), BENCH_TARGETS (comma list of target ids, default all).
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { startAuthFixture } from './auth-fixture.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');
const RESULTS_DIR = path.join(HERE, 'results');
// The team's 40-tool catalog (a copy of shared/fixtures/saas-40-tools.json kept in the repo).
const FIXTURE = path.join(ROOT, 'config', 'fixtures', 'saas-40-tools.json');
const HOST = '127.0.0.1';
const PROTOCOL_VERSION = '2025-11-25';

const DURATION_S = positiveNumber('BENCH_DURATION', 10);
const WARMUP_S = nonNegativeNumber('BENCH_WARMUP', 2);
const CONNECTIONS = Math.round(positiveNumber('BENCH_CONNECTIONS', 64));
const ROUNDS = Math.round(positiveNumber('BENCH_ROUNDS', 1));
const ONLY = (process.env.BENCH_TARGETS ?? '').split(',').map((s) => s.trim()).filter(Boolean);
const START_DEADLINE_MS = 30_000;
// Every fixture tool name must be listed by every target (the fixture's own `echo` included:
// each target replaces it with an `echo` that takes `{ text }`).
const FIXTURE_TOOL_NAMES = JSON.parse(readFileSync(FIXTURE, 'utf8')).tools.map((t) => t.name);
const MAX_INVALID_SAMPLES = 5;
const NOISY_OTHER_CPU_PCT = 15;

// ---------------------------------------------------------------------------------------------
// Targets. One entry = one row per workload. `role` marks the two reference rows the ratios are
// computed against. To add the authenticated gateway column later, add an entry like:
//
//   {
//     id: 'gateway-auth', label: 'gateway + bearer', role: 'subject',
//     ...gatewayLaunch({ tenantsYaml: yamlWithAuthConfig }),
//     prepare: async (ctx) => ({ headers: { authorization: `Bearer ${await mintToken(ctx)}` } }),
//   }
//
// `prepare(ctx)` runs before the server starts (ctx.tmpDir is a scratch dir) and may return
// extra request headers and extra env for the child process.
// ---------------------------------------------------------------------------------------------
const GATEWAY_MAIN = path.join(ROOT, 'apps', 'gateway', 'dist', 'main.js');

const BENCH_TENANTS_YAML = `# Written by bench/gateway/run.mjs; deleted at the end of the run.
tenants:
  - id: bench
    name: Bench tenant
    catalogs:
      # Only the demo echo: the fixture's own \`echo\` is then dropped as a duplicate, so the
      # gateway lists the same 40 tools (and about the same bytes) as the SDK and raw baselines.
      - builtin: demo
        tools: [echo]
      - fixture: ${FIXTURE}
`;

/** Launch spec for the gateway with a tenants file written to the run's temp dir. */
function gatewayLaunch({ tenantsYaml }) {
  return {
    mcpPath: '/t/bench/mcp',
    // The fixture's 40 names, its `echo` served by the demo bundle's echo.
    minTools: FIXTURE_TOOL_NAMES.length,
    missing: () => (existsSync(GATEWAY_MAIN) ? null : `${path.relative(ROOT, GATEWAY_MAIN)} not found (run npm run build)`),
    command: ({ port, tmpDir, id }) => {
      const tenantsFile = path.join(tmpDir, `${id}-tenants.yaml`);
      writeFileSync(tenantsFile, tenantsYaml);
      return {
        args: [GATEWAY_MAIN],
        env: { GATEWAY_PORT: String(port), GATEWAY_HOST: HOST, TENANTS_FILE: tenantsFile },
      };
    },
  };
}

/** Launch spec for one of the reference servers in this folder. */
function scriptLaunch(script) {
  return {
    mcpPath: '/mcp',
    minTools: FIXTURE_TOOL_NAMES.length,
    missing: () => null,
    command: ({ port }) => ({
      args: [path.join(HERE, script)],
      env: { PORT: String(port), HOST, FIXTURE },
    }),
  };
}

// The same tenant marked `auth.protected`: every request carries a valid ES256 access token
// (minted by auth-fixture.mjs, whose JWKS the gateway fetches once), so the row measures
// bearer verification on the hot path. Goal: within 10% of the unauthenticated gateway row.
const BENCH_AUTH_TENANTS_YAML = `${BENCH_TENANTS_YAML}    auth:
      protected: true
      scopes: [mcp:tools]
`;
const BENCH_GATEWAY_PUBLIC_URL = 'http://bench.local';

const TARGETS = [
  { id: 'gateway', label: 'gateway', role: 'subject', ...gatewayLaunch({ tenantsYaml: BENCH_TENANTS_YAML }) },
  {
    id: 'gateway-auth',
    label: 'gateway + bearer',
    role: 'subject',
    ...gatewayLaunch({ tenantsYaml: BENCH_AUTH_TENANTS_YAML }),
    prepare: async () => {
      const auth = await startAuthFixture({ tenant: 'bench', audience: `${BENCH_GATEWAY_PUBLIC_URL}/t/bench/mcp` });
      return { headers: { authorization: `Bearer ${auth.token}` }, env: { AUTH_PUBLIC_URL: auth.baseUrl, GATEWAY_PUBLIC_URL: BENCH_GATEWAY_PUBLIC_URL } };
    },
  },
  { id: 'sdk', label: 'SDK 1.x stateless', role: 'sdk', ...scriptLaunch('sdk-server.mjs') },
  { id: 'raw', label: 'raw Fastify (limit)', role: 'raw', ...scriptLaunch('raw-server.mjs') },
];

// ---------------------------------------------------------------------------------------------
// Workloads: a fixed JSON-RPC request and a check of the result it must produce.
// ---------------------------------------------------------------------------------------------
const WORKLOADS = [
  {
    id: 'tools/list',
    request: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
    check(result, target) {
      if (!Array.isArray(result.tools)) return 'result.tools is not an array';
      const min = target.minTools;
      if (result.tools.length < min) return `result.tools has ${result.tools.length} tools, expected >= ${min}`;
      const names = new Set();
      for (const tool of result.tools) {
        if (!tool || typeof tool.name !== 'string') return 'a tool has no string name';
        if (names.has(tool.name)) return `duplicate tool name "${tool.name}"`;
        names.add(tool.name);
      }
      if (!names.has('echo')) return 'result.tools has no "echo" tool';
      const missing = FIXTURE_TOOL_NAMES.filter((n) => !names.has(n));
      if (missing.length) return `result.tools lacks fixture tool(s) ${missing.slice(0, 5).join(', ')}`;
      return null;
    },
  },
  {
    id: 'tools/call echo',
    request: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hello' } } },
    check(result) {
      if (result.isError === true) return `tool returned isError: ${JSON.stringify(result.content).slice(0, 200)}`;
      if (!Array.isArray(result.content)) return 'result.content is not an array';
      const echoed = result.content.some((c) => c && c.type === 'text' && typeof c.text === 'string' && c.text.includes('hello'));
      return echoed ? null : 'result.content has no text block containing "hello"';
    },
  },
];

// ---------------------------------------------------------------------------------------------
// Response validation
// ---------------------------------------------------------------------------------------------
function headerValue(headers, name) {
  for (const [key, value] of Object.entries(headers ?? {})) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value.join(', ') : String(value);
  }
  return '';
}

/** JSON-RPC messages in an SSE body: each event's `data:` lines joined, parsed as JSON. */
function parseSse(body) {
  const messages = [];
  for (const event of body.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''))
      .join('\n');
    if (data.trim() === '') continue; // priming events carry an id and empty data
    messages.push(JSON.parse(data));
  }
  return messages;
}

/** Returns null when the response is the expected JSON-RPC result, else a reason. */
function checkResponse(workload, target, status, body, headers) {
  if (status !== 200) return `HTTP ${status}`;
  const contentType = headerValue(headers, 'content-type');
  let messages;
  try {
    messages = contentType.includes('text/event-stream') ? parseSse(body) : [JSON.parse(body)];
  } catch (error) {
    return `unparseable ${contentType || 'body'}: ${error.message}`;
  }
  const expectedId = workload.request.id;
  const response = messages.find((m) => m && typeof m === 'object' && m.id === expectedId && ('result' in m || 'error' in m));
  if (!response) return `no JSON-RPC response with id ${expectedId} in ${messages.length} message(s)`;
  if (response.jsonrpc !== '2.0') return 'jsonrpc is not "2.0"';
  if (response.error) return `JSON-RPC error ${response.error.code}: ${response.error.message}`;
  if (typeof response.result !== 'object' || response.result === null) return 'result is not an object';
  return workload.check(response.result, target);
}

/**
 * Per-request autocannon `onResponse` hook plus its counters. A body byte-identical to one that
 * already passed the full check is counted valid without re-parsing (a string compare instead of
 * JSON.parse of ~31 KB keeps the load generator's share of the 2 CPUs down); anything else gets
 * the full check.
 */
function makeValidator(workload, target) {
  const stats = { valid: 0, invalid: 0, samples: [], contentTypes: {} };
  let lastGood = null;
  const onResponse = (status, body, _context, headers) => {
    if (status === 200 && body === lastGood) {
      stats.valid++;
      return;
    }
    const contentType = headerValue(headers, 'content-type').split(';')[0] || '(none)';
    stats.contentTypes[contentType] = (stats.contentTypes[contentType] ?? 0) + 1;
    const reason = checkResponse(workload, target, status, body, headers);
    if (reason === null) {
      stats.valid++;
      lastGood = body;
      return;
    }
    stats.invalid++;
    if (stats.samples.length < MAX_INVALID_SAMPLES) {
      stats.samples.push({ status, reason, body: String(body).slice(0, 300) });
    }
  };
  return { stats, onResponse };
}

// ---------------------------------------------------------------------------------------------
// Child processes (every server the bench starts), cleaned up on exit, error and signals
// ---------------------------------------------------------------------------------------------
// autocannon's timeout timer (retimer) can be re-armed with a slightly negative delay when the
// event loop lags on a busy box; Node then prints a TimeoutNegativeWarning into the progress
// output. It is harmless (Node uses 1 ms), so keep it out of the report; other warnings still print.
process.removeAllListeners('warning');
process.on('warning', (warning) => {
  if (warning.name !== 'TimeoutNegativeWarning') console.error(`${warning.name}: ${warning.message}`);
});

const children = new Set();
const cannons = new Set();

function killChild(child, signal) {
  if (child.exitCode === null && child.signalCode === null) {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

async function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) {
    children.delete(child);
    return;
  }
  const exited = new Promise((resolve) => child.once('exit', resolve));
  killChild(child, 'SIGTERM');
  const forced = await Promise.race([exited.then(() => false), sleep(3000).then(() => true)]);
  if (forced) {
    killChild(child, 'SIGKILL');
    await Promise.race([exited, sleep(2000)]);
  }
  children.delete(child);
}

process.on('exit', () => {
  for (const child of children) killChild(child, 'SIGKILL');
});

let tmpDir = null;
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    console.error(`\n${signal}: stopping load and servers`);
    for (const cannon of cannons) cannon.stop();
    Promise.allSettled([...children].map(stopChild)).finally(() => {
      if (tmpDir) rmSync(tmpDir, { recursive: true, force: true });
      process.exit(130);
    });
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, HOST, () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** CPU seconds (user+system) a process has used so far, from /proc; null where unavailable. */
function processCpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime
    return ticks / 100; // USER_HZ is 100 on Linux
  } catch {
    return null;
  }
}

/**
 * Machine-wide CPU seconds spent in processes (user + nice + system + steal, all cores) from
 * /proc/stat; irq/softirq are left out because loopback networking of the bench itself lands
 * there. Null where unavailable.
 */
function machineBusySeconds() {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return (cpu[0] + cpu[1] + cpu[2] + (cpu[7] ?? 0)) / 100;
  } catch {
    return null;
  }
}

async function healthy(baseUrl) {
  try {
    const res = await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(1000) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

/**
 * Starts a target as a child process (same Node binary as this script) and waits, with a
 * deadline, for its `listening on http://127.0.0.1:<port>` line and for GET /healthz = 200.
 * Throws an Error whose message says why it did not come up.
 */
async function startTarget(target, ctx) {
  const missing = target.missing();
  if (missing) throw new Error(missing);
  const port = await freePort();
  const { args, env } = target.command({ port, tmpDir: ctx.tmpDir, id: target.id });
  mkdirSync(path.join(RESULTS_DIR, 'logs'), { recursive: true });
  const logPath = path.join(RESULTS_DIR, 'logs', `${target.id}.log`);
  const log = createWriteStream(logPath);
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'production', ...env, ...ctx.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);

  const tail = [];
  let sawListening = false;
  const onData = (chunk) => {
    log.write(chunk);
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line.trim() === '') continue;
      if (line.includes(`listening on http://${HOST}:`)) sawListening = true;
      tail.push(line);
      if (tail.length > 20) tail.shift();
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  let spawnError = null;
  child.once('error', (error) => {
    spawnError = error;
  });

  const baseUrl = `http://${HOST}:${port}`;
  const deadline = Date.now() + START_DEADLINE_MS;
  const fail = async (why) => {
    await stopChild(child);
    log.end();
    const output = tail.length ? `\n      last output:\n${tail.map((l) => `        ${l}`).join('\n')}` : '';
    throw new Error(`${why} (log: ${path.relative(ROOT, logPath)})${output}`);
  };
  for (;;) {
    if (spawnError) return fail(`spawn failed: ${spawnError.message}`);
    if (child.exitCode !== null || child.signalCode !== null) {
      return fail(`exited (${child.exitCode ?? child.signalCode}) before it was ready`);
    }
    if (sawListening && (await healthy(baseUrl))) break;
    if (Date.now() > deadline) {
      return fail(
        sawListening
          ? `GET /healthz did not answer 200 within ${START_DEADLINE_MS / 1000}s`
          : `no "listening on http://${HOST}:${port}" line within ${START_DEADLINE_MS / 1000}s`,
      );
    }
    await sleep(100);
  }
  return {
    baseUrl,
    pid: child.pid,
    stop: async () => {
      await stopChild(child);
      log.end();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Load
// ---------------------------------------------------------------------------------------------
function requestHeaders(extra) {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PROTOCOL_VERSION,
    ...extra,
  };
}

function cannon(opts) {
  return new Promise((resolve, reject) => {
    const instance = autocannon(opts, (error, result) => {
      cannons.delete(instance);
      if (error) reject(error);
      else resolve(result);
    });
    cannons.add(instance);
  });
}

async function runLoad({ url, path: mcpPath, headers, workload, target, duration }) {
  const validator = makeValidator(workload, target);
  const body = JSON.stringify(workload.request);
  const result = await cannon({
    url,
    connections: CONNECTIONS,
    duration,
    method: 'POST',
    headers,
    body,
    requests: [{ method: 'POST', path: mcpPath, headers, body, onResponse: validator.onResponse }],
  });
  return { result, stats: validator.stats };
}

/** One request through fetch before the load, so a broken target is reported, not hammered. */
async function preflight(url, headers, workload, target) {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify(workload.request),
      signal: AbortSignal.timeout(5000),
    });
    const text = await res.text();
    const reason = checkResponse(workload, target, res.status, text, Object.fromEntries(res.headers));
    return reason === null ? null : { reason, body: text.slice(0, 300) };
  } catch (error) {
    return { reason: `request failed: ${error.message}`, body: '' };
  }
}

/** Prepares and starts one target; returns { server, headers, url } or { error }. */
async function launch(target, ctx) {
  try {
    const prepared = { headers: {}, env: {}, ...(target.prepare ? await target.prepare(ctx) : {}) };
    const server = await startTarget(target, { ...ctx, env: prepared.env });
    console.log(`  ${target.label}: up at ${server.baseUrl} (pid ${server.pid})`);
    return { server, headers: requestHeaders(prepared.headers), url: `${server.baseUrl}${target.mcpPath}` };
  } catch (error) {
    console.log(`  ${target.label}: NOT RUN — ${error.message}`);
    return { error: error.message.split('\n')[0] };
  }
}

/** One measured run of one workload against one running target (warm-up first). */
async function measure(target, running, workload) {
  const { server, headers, url } = running;
  let warmupStats = null;
  if (WARMUP_S > 0) {
    warmupStats = (await runLoad({ url, path: target.mcpPath, headers, workload, target, duration: WARMUP_S })).stats;
  }
  const serverCpu0 = processCpuSeconds(server.pid);
  const machine0 = machineBusySeconds();
  const selfCpu0 = process.cpuUsage();
  const { result, stats } = await runLoad({ url, path: target.mcpPath, headers, workload, target, duration: DURATION_S });
  const serverCpu1 = processCpuSeconds(server.pid);
  const selfCpu = process.cpuUsage(selfCpu0);
  const machine1 = machineBusySeconds();
  const seconds = result.duration || DURATION_S;
  const serverCpuPct = serverCpu0 !== null && serverCpu1 !== null ? (100 * (serverCpu1 - serverCpu0)) / seconds : null;
  const loadgenCpuPct = (100 * (selfCpu.user + selfCpu.system)) / 1e6 / seconds;
  // CPU used by everything else on the machine during the run (other sessions, builds): the
  // noise indicator for a shared 2-core box.
  const otherCpuPct =
    machine0 !== null && machine1 !== null && serverCpuPct !== null
      ? Math.max(0, (100 * (machine1 - machine0)) / seconds - serverCpuPct - loadgenCpuPct)
      : null;
  return {
    reqPerSec: result.requests.average,
    totalResponses: result.requests.total,
    durationS: seconds,
    latencyMs: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      avg: result.latency.average,
      max: result.latency.max,
    },
    validReqPerSec: stats.valid / seconds,
    valid: stats.valid,
    invalid: stats.invalid,
    invalidSamples: stats.samples,
    contentTypes: stats.contentTypes,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    warmupInvalid: warmupStats ? warmupStats.invalid : 0,
    warmupInvalidSamples: warmupStats ? warmupStats.samples : [],
    serverCpuPct,
    // Responses per CPU-second the server process spent: much less sensitive than req/s to other
    // work on a shared machine, since it does not count time the server was not scheduled.
    reqPerServerCpuS: serverCpuPct ? result.requests.total / ((serverCpuPct / 100) * seconds) : null,
    loadgenCpuPct,
    otherCpuPct,
  };
}

function median(values) {
  const xs = values.filter((v) => typeof v === 'number' && Number.isFinite(v)).sort((a, b) => a - b);
  if (xs.length === 0) return null;
  const mid = Math.floor(xs.length / 2);
  return xs.length % 2 ? xs[mid] : (xs[mid - 1] + xs[mid]) / 2;
}

/** A table cell from one or more rounds: medians of rates/latencies/CPU, sums of failures. */
function mergeRounds(base, rounds) {
  const sum = (key) => rounds.reduce((acc, r) => acc + (r[key] ?? 0), 0);
  const med = (pick) => median(rounds.map(pick));
  const contentTypes = {};
  for (const r of rounds) {
    for (const [type, n] of Object.entries(r.contentTypes)) contentTypes[type] = (contentTypes[type] ?? 0) + n;
  }
  const invalid = sum('invalid');
  const errors = sum('errors');
  const timeouts = sum('timeouts');
  return {
    ...base,
    status: invalid > 0 || errors > 0 || timeouts > 0 ? 'invalid' : 'ok',
    reqPerSec: med((r) => r.reqPerSec),
    validReqPerSec: med((r) => r.validReqPerSec),
    latencyMs: {
      p50: med((r) => r.latencyMs.p50),
      p90: med((r) => r.latencyMs.p90),
      p99: med((r) => r.latencyMs.p99),
      avg: med((r) => r.latencyMs.avg),
      max: Math.max(...rounds.map((r) => r.latencyMs.max)),
    },
    totalResponses: sum('totalResponses'),
    valid: sum('valid'),
    invalid,
    invalidSamples: rounds.flatMap((r) => r.invalidSamples).slice(0, MAX_INVALID_SAMPLES),
    contentTypes,
    errors,
    timeouts,
    non2xx: sum('non2xx'),
    warmupInvalid: sum('warmupInvalid'),
    warmupInvalidSamples: rounds.flatMap((r) => r.warmupInvalidSamples).slice(0, MAX_INVALID_SAMPLES),
    serverCpuPct: med((r) => r.serverCpuPct),
    reqPerServerCpuS: med((r) => r.reqPerServerCpuS),
    loadgenCpuPct: med((r) => r.loadgenCpuPct),
    otherCpuPct: med((r) => r.otherCpuPct),
    rounds,
  };
}

/**
 * Starts every target (each its own child process; they idle while another is measured), then
 * measures workload by workload, target after target, so the rows a ratio compares run back to
 * back; with BENCH_ROUNDS > 1 that sequence repeats and each cell reports the median round.
 */
async function benchAll(targets, ctx) {
  const launched = [];
  const cells = [];
  try {
    for (const target of targets) {
      if (interrupted) break;
      launched.push({ target, ...(await launch(target, ctx)) });
    }
    const plan = [];
    for (const workload of WORKLOADS) {
      for (const { target, server, headers, url, error } of launched) {
        const base = { target: target.id, label: target.label, role: target.role, workload: workload.id };
        if (!server) {
          plan.push({ cell: { ...base, status: 'not-run', reason: error } });
          continue;
        }
        const bad = await preflight(url, headers, workload, target);
        if (bad) {
          console.log(`  ${target.label} / ${workload.id}: SKIPPED — preflight response invalid: ${bad.reason}`);
          if (bad.body) console.log(`    body: ${bad.body}`);
          plan.push({ cell: { ...base, status: 'skipped', reason: `preflight: ${bad.reason}` } });
          continue;
        }
        plan.push({ base, target, running: { server, headers, url }, workload, rounds: [] });
      }
    }
    for (let round = 1; round <= ROUNDS && !interrupted; round++) {
      if (ROUNDS > 1) console.log(`  round ${round}/${ROUNDS}`);
      for (const item of plan) {
        if (interrupted || item.cell) continue;
        const r = await measure(item.target, item.running, item.workload);
        item.rounds.push(r);
        console.log(
          `    ${item.target.label} / ${item.workload.id}: ${fmt(r.reqPerSec, 0)} req/s, p50 ${r.latencyMs.p50} ms, ` +
            `p99 ${r.latencyMs.p99} ms, invalid ${r.invalid}${r.errors ? `, errors ${r.errors}` : ''}`,
        );
      }
    }
    for (const item of plan) {
      if (item.cell) cells.push(item.cell);
      else if (item.rounds.length) cells.push(mergeRounds(item.base, item.rounds));
    }
  } finally {
    await Promise.allSettled(launched.filter((l) => l.server).map((l) => l.server.stop()));
  }
  return cells;
}

// ---------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------
function fmt(value, digits) {
  return typeof value === 'number' && Number.isFinite(value)
    ? value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : '—';
}

function addRatios(cells) {
  for (const workload of WORKLOADS) {
    const ref = (role, key) => cells.find((c) => c.role === role && c.workload === workload.id && c[key] > 0)?.[key];
    const ratio = (value, base) => (typeof value === 'number' && base ? value / base : null);
    for (const cell of cells.filter((c) => c.workload === workload.id && typeof c.reqPerSec === 'number')) {
      cell.vsSdk = ratio(cell.reqPerSec, ref('sdk', 'reqPerSec'));
      cell.vsRaw = ratio(cell.reqPerSec, ref('raw', 'reqPerSec'));
      cell.cpuVsSdk = ratio(cell.reqPerServerCpuS, ref('sdk', 'reqPerServerCpuS'));
      cell.cpuVsRaw = ratio(cell.reqPerServerCpuS, ref('raw', 'reqPerServerCpuS'));
    }
  }
}

function printTable(cells) {
  const header = ['target', 'workload', 'req/s', 'p50 ms', 'p99 ms', 'invalid', 'resp', '×SDK', '% raw', 'srv CPU', 'gen CPU', 'req/CPU-s', '% raw/CPU', 'note'];
  const rows = cells.map((c) => {
    if (c.status === 'not-run' || c.status === 'skipped') {
      return [c.label, c.workload, '—', '—', '—', '—', '—', '—', '—', '—', '—', '—', '—', `${c.status.toUpperCase()}: ${c.reason}`];
    }
    const invalidMark = c.status === 'invalid' ? ' !' : '';
    const notes = [];
    if (c.invalid > 0) notes.push(`INVALID RESPONSES (${c.invalid})`);
    if (c.errors > 0) notes.push(`${c.errors} conn errors`);
    if (c.timeouts > 0) notes.push(`${c.timeouts} timeouts`);
    if (c.warmupInvalid > 0) notes.push(`${c.warmupInvalid} invalid in warm-up`);
    if (c.otherCpuPct > NOISY_OTHER_CPU_PCT) notes.push(`noisy: other processes used ${fmt(c.otherCpuPct, 0)}% CPU`);
    const kinds = Object.keys(c.contentTypes).map((t) => (t.includes('event-stream') ? 'sse' : t.includes('json') ? 'json' : t));
    return [
      c.label,
      c.workload,
      fmt(c.reqPerSec, 0),
      fmt(c.latencyMs.p50, 0),
      fmt(c.latencyMs.p99, 0),
      `${c.invalid}${invalidMark}`,
      kinds.join('+') || '—',
      c.vsSdk != null ? `${fmt(c.vsSdk, 1)}×` : '—',
      c.vsRaw != null ? `${fmt(100 * c.vsRaw, 0)}%` : '—',
      c.serverCpuPct != null ? `${fmt(c.serverCpuPct, 0)}%` : '—',
      `${fmt(c.loadgenCpuPct, 0)}%`,
      fmt(c.reqPerServerCpuS, 0),
      c.cpuVsRaw != null ? `${fmt(100 * c.cpuVsRaw, 0)}%` : '—',
      notes.join('; '),
    ];
  });
  const numeric = new Set([2, 3, 4, 5, 7, 8, 9, 10, 11, 12]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cols) =>
    cols
      .map((col, i) => (i === cols.length - 1 ? col : numeric.has(i) ? col.padStart(widths[i]) : col.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  console.log(line(header));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const row of rows) console.log(line(row));
}

function printInvalidSamples(cells) {
  const withSamples = cells.filter((c) => c.invalidSamples?.length || c.warmupInvalidSamples?.length);
  if (withSamples.length === 0) return;
  console.log('\nInvalid responses (first few per cell):');
  for (const c of withSamples) {
    for (const [phase, samples] of [['run', c.invalidSamples ?? []], ['warm-up', c.warmupInvalidSamples ?? []]]) {
      for (const s of samples) {
        console.log(`  ${c.label} / ${c.workload} [${phase}]: HTTP ${s.status}: ${s.reason}`);
        console.log(`    body: ${s.body.replace(/\n/g, '\\n')}`);
      }
    }
  }
}

function packageVersion(name) {
  try {
    return JSON.parse(readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
  } catch {
    return 'unknown';
  }
}

function positiveNumber(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return value;
}

function nonNegativeNumber(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number >= 0, got "${raw}"`);
  return value;
}

// ---------------------------------------------------------------------------------------------
async function main() {
  const unknown = ONLY.filter((id) => !TARGETS.some((t) => t.id === id));
  if (unknown.length) throw new Error(`BENCH_TARGETS: unknown target(s) ${unknown.join(', ')}; known: ${TARGETS.map((t) => t.id).join(', ')}`);
  const targets = ONLY.length ? TARGETS.filter((t) => ONLY.includes(t.id)) : TARGETS;
  const cpus = os.cpus();
  const meta = {
    startedAt: new Date().toISOString(),
    node: process.version,
    cpus: cpus.length,
    cpuModel: cpus[0]?.model ?? 'unknown',
    loadAvgAtStart: os.loadavg(),
    connections: CONNECTIONS,
    durationS: DURATION_S,
    warmupS: WARMUP_S,
    rounds: ROUNDS,
    protocolVersion: PROTOCOL_VERSION,
    fixture: FIXTURE,
    versions: {
      autocannon: packageVersion('autocannon'),
      '@modelcontextprotocol/sdk': packageVersion('@modelcontextprotocol/sdk'),
      fastify: packageVersion('fastify'),
      express: packageVersion('express'),
    },
  };
  console.log(
    `bench/gateway: ${CONNECTIONS} connections, ${DURATION_S}s per cell after ${WARMUP_S}s warm-up` +
      `${ROUNDS > 1 ? `, ${ROUNDS} rounds (median)` : ''}; ` +
      `node ${meta.node}, ${meta.cpus} CPU(s) (${meta.cpuModel})`,
  );

  tmpDir = mkdtempSync(path.join(os.tmpdir(), 'bench-gateway-'));
  let cells;
  try {
    cells = await benchAll(targets, { tmpDir });
  } finally {
    rmSync(tmpDir, { recursive: true, force: true });
    tmpDir = null;
  }
  addRatios(cells);

  console.log('');
  printTable(cells);
  printInvalidSamples(cells);

  const gatewayList = cells.find((c) => c.target === 'gateway' && c.workload === 'tools/list');
  const goal = {
    metric: 'gateway tools/list req/s ÷ raw limit tools/list req/s',
    threshold: 0.8,
    ratio: null,
    met: null,
    perServerCpuRatio: null,
  };
  if (gatewayList && typeof gatewayList.vsRaw === 'number') {
    goal.ratio = gatewayList.vsRaw;
    goal.met = gatewayList.vsRaw >= 0.8 && gatewayList.status === 'ok';
    goal.perServerCpuRatio = gatewayList.cpuVsRaw ?? null;
  }
  const authList = cells.find((c) => c.target === 'gateway-auth' && c.workload === 'tools/list');
  goal.authOverhead = null;
  if (gatewayList?.reqPerSec > 0 && authList?.reqPerSec > 0) {
    const ratio = authList.reqPerSec / gatewayList.reqPerSec;
    // Per server CPU-second is the comparison to trust on a shared machine (see Notes).
    const perCpu = gatewayList.reqPerServerCpuS > 0 && authList.reqPerServerCpuS > 0 ? authList.reqPerServerCpuS / gatewayList.reqPerServerCpuS : null;
    const judged = perCpu ?? ratio;
    goal.authOverhead = { metric: 'gateway + bearer tools/list ÷ gateway tools/list (per server CPU-second; req/s beside)', threshold: 0.9, ratio, perServerCpuRatio: perCpu, met: judged >= 0.9 && authList.status === 'ok' };
    console.log(
      `\nGoal: bearer verification costs < 10% of tools/list throughput: ${fmt(100 * judged, 0)}% per server CPU-second ` +
        `(${fmt(100 * ratio, 0)}% of req/s) — ${goal.authOverhead.met ? 'MET' : 'NOT MET'}`,
    );
  }
  console.log(
    `\nGoal: gateway tools/list >= 80% of the raw limit: ` +
      (goal.ratio === null
        ? 'not measured'
        : `${fmt(100 * goal.ratio, 0)}% — ${goal.met ? 'MET' : 'NOT MET'}` +
          (goal.perServerCpuRatio != null ? ` (per server CPU-second: ${fmt(100 * goal.perServerCpuRatio, 0)}%)` : '')),
  );
  console.log(
    [
      `Notes: this machine has ${meta.cpus} CPU(s) and autocannon (this process) shares them with the server under test,`,
      `so every number is a lower bound, and the raw limit is capped partly by the load generator itself (see gen CPU).`,
      `req/s = autocannon's mean of per-second samples. A response is valid only with HTTP 200 and the expected JSON-RPC`,
      `result (SSE bodies parsed from their data: lines); "!" marks a cell with invalid responses, connection errors or`,
      `timeouts. ×SDK and % raw compare each row's req/s with the SDK and raw rows of the same workload.`,
      `srv CPU / gen CPU = CPU time of the server process / of this load generator during the cell (100% = one core);`,
      `req/CPU-s = responses per CPU-second of the server process, and % raw/CPU its ratio to the raw row: the`,
      `comparison to trust when the machine is busy, since req/s also moves with CPU taken by other processes;`,
      `"noisy" marks cells where other processes on the machine used more than ${NOISY_OTHER_CPU_PCT}% CPU meanwhile.`,
    ].join('\n'),
  );

  mkdirSync(RESULTS_DIR, { recursive: true });
  const outFile = path.join(RESULTS_DIR, 'latest.json');
  writeFileSync(outFile, `${JSON.stringify({ meta: { ...meta, finishedAt: new Date().toISOString() }, goal, cells }, null, 2)}\n`);
  console.log(`Results: ${path.relative(process.cwd(), outFile) || outFile}`);
}

main().catch(async (error) => {
  console.error(`bench/gateway failed: ${error.stack ?? error}`);
  for (const cannonInstance of cannons) cannonInstance.stop();
  await Promise.allSettled([...children].map(stopChild));
  if (tmpDir) rmSync(tmpDir, { recursive: true, force: true });
  process.exit(1);
});

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
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { rssMb, settledRssMb } from '../rss.mjs';
import { fileURLToPath } from 'node:url';
import { startAuthFixture } from './auth-fixture.mjs';

// Servers are spawned with this process's node: a run on another major measures another runtime
// (earlier numbers were taken on the machine's Node 20 by mistake).
if (!process.version.startsWith('v24.')) {
  console.error(`bench/gateway: refusing to run on Node ${process.version}; run it with Node 24 (npx node bench/gateway/run.mjs)`);
  process.exit(1);
}

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');
const RESULTS_DIR = path.join(HERE, 'results');
const FIXTURE = path.join(ROOT, 'config', 'fixtures', 'saas-40-tools.json');
const HOST = '127.0.0.1';
const PROTOCOL_VERSION = '2025-11-25';
const GATEWAY_MAIN = path.join(ROOT, 'apps', 'gateway', 'dist', 'main.js');

const DURATION_S = positiveNumber('BENCH_DURATION', 8);
const WARMUP_S = nonNegativeNumber('BENCH_WARMUP', 2);
const CONNECTIONS = Math.round(positiveNumber('BENCH_CONNECTIONS', 64));
const ROUNDS = Math.round(positiveNumber('BENCH_ROUNDS', 3));
const SERVER_CPU = process.env.BENCH_SERVER_CPU ?? '1';
const LOADGEN_CPU = process.env.BENCH_LOADGEN_CPU ?? '0';
const ONLY_TARGETS = list(process.env.BENCH_TARGETS);
const ONLY_WORKLOADS = list(process.env.BENCH_WORKLOADS);
const GATEWAY_ARGS = list(process.env.BENCH_GATEWAY_ARGS, ' ');
/** Redis of the `limited` row (limiter + usage stream), keys under a per-run namespace deleted at the end. */
const BENCH_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const LIMITED_NAMESPACE = `bench:gw:${process.pid}:${Date.now()}:`;
const START_DEADLINE_MS = 60_000;
const FIXTURE_TOOL_NAMES = JSON.parse(readFileSync(FIXTURE, 'utf8')).tools.map((t) => t.name);

const AUTH_TENANT = 'bench-auth';
const GATEWAY_PUBLIC_URL = 'http://bench.local';

function tenantsYaml(upstreamUrl) {
  const benchCatalogs = `    catalogs:
      # Only the demo echo: the fixture's own \`echo\` is then dropped as a duplicate, so the
      # gateway lists the fixture's 40 names like the SDK baselines.
      - builtin: demo
        tools: [echo]
      - fixture: ${FIXTURE}
`;
  return `# Written by bench/gateway/run.mjs; deleted at the end of the run.
tenants:
  - id: bench
    name: Bench tenant
${benchCatalogs}  - id: ${AUTH_TENANT}
    name: Bench tenant behind a bearer
    auth:
      protected: true
      scopes: [mcp:tools]
${benchCatalogs}  - id: proxy
    name: Bench tenant proxying to an SDK-built upstream
    catalogs:
      - upstream: { id: up, url: ${upstreamUrl}, stateful: true }
`;
}

// ---------------------------------------------------------------------------------------------
// Workloads. `targets` maps a target id to the MCP path it is measured on (absent = not run).
// ---------------------------------------------------------------------------------------------
const LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
const ECHO = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hello' } } };
const WORKLOADS = [
  { id: 'tools/list', request: LIST, kind: 'list', targets: { gateway: '/t/bench/mcp', limited: '/t/bench/mcp', raw: '/mcp', sdk1: '/mcp', sdk2: '/mcp' } },
  { id: 'tools/call', request: ECHO, kind: 'echo', targets: { gateway: '/t/bench/mcp', limited: '/t/bench/mcp', raw: '/mcp', sdk1: '/mcp', sdk2: '/mcp' } },
  { id: 'proxied call', request: ECHO, kind: 'echo', proxied: true, targets: { gateway: '/t/proxy/mcp', upstream: '/mcp' } },
  { id: 'list + bearer', request: LIST, kind: 'list', bearer: true, targets: { gateway: `/t/${AUTH_TENANT}/mcp` } },
].filter((w) => ONLY_WORKLOADS.length === 0 || ONLY_WORKLOADS.includes(w.id));

/** Semantic check of one preflight response; its bytes then become the expected bytes. */
function checkResult(workload, result) {
  if (workload.kind === 'list') {
    if (!Array.isArray(result.tools)) return 'result.tools is not an array';
    const names = new Set(result.tools.map((t) => t?.name));
    if (names.size !== result.tools.length) return 'duplicate tool names';
    const missing = FIXTURE_TOOL_NAMES.filter((n) => !names.has(n));
    if (missing.length) return `missing tools: ${missing.slice(0, 5).join(', ')}`;
    return null;
  }
  if (result.isError) return 'tools/call answered isError';
  const text = Array.isArray(result.content) ? result.content.find((c) => c?.type === 'text')?.text : undefined;
  return typeof text === 'string' && text.includes('hello') ? null : 'no text content containing "hello"';
}

/** JSON-RPC response from a JSON or a one-event SSE body. */
function parseRpc(text, contentType) {
  if ((contentType ?? '').includes('text/event-stream')) {
    const data = text.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim());
    for (const d of data) {
      const msg = JSON.parse(d);
      if (msg && msg.id !== undefined) return msg;
    }
    throw new Error('no JSON-RPC response in the event stream');
  }
  return JSON.parse(text);
}

// ---------------------------------------------------------------------------------------------
// Processes
// ---------------------------------------------------------------------------------------------
const children = new Set();
let tmpDir = null;
let interrupted = false;

function killChild(child, signal) {
  try {
    child.kill(signal);
  } catch {
    /* already gone */
  }
}

async function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) {
    children.delete(child);
    return;
  }
  const exited = new Promise((resolve) => child.once('exit', resolve));
  killChild(child, 'SIGTERM');
  if (await Promise.race([exited.then(() => false), sleep(5000).then(() => true)])) {
    killChild(child, 'SIGKILL');
    await Promise.race([exited, sleep(2000)]);
  }
  children.delete(child);
}

process.on('exit', () => {
  for (const child of children) killChild(child, 'SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    console.error(`\n${signal}: stopping load and servers`);
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

/** CPU seconds (utime + stime) a process has used so far, from /proc/<pid>/stat; null where unavailable. */
function processCpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // USER_HZ = 100
  } catch {
    return null;
  }
}


/** Machine-wide busy CPU seconds (user + nice + system + steal, all cores) from /proc/stat. */
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

/** Starts `node <args>` pinned to the server core and waits for its listening line and /healthz. */
async function startServer(id, args, env) {
  const port = await freePort();
  mkdirSync(path.join(RESULTS_DIR, 'logs'), { recursive: true });
  const logPath = path.join(RESULTS_DIR, 'logs', `${id}.log`);
  const log = createWriteStream(logPath);
  // taskset execs node, so the child's pid is node's (for /proc sampling).
  const child = spawn('taskset', ['-c', SERVER_CPU, process.execPath, ...args], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn', ...env, PORT: String(port), GATEWAY_PORT: String(port), HOST, GATEWAY_HOST: HOST },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const tail = [];
  let listening = false;
  const onData = (chunk) => {
    log.write(chunk);
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      if (line.includes(`listening on http://${HOST}:`) || line.includes(`:${port}`)) listening = true;
      tail.push(line);
      if (tail.length > 15) tail.shift();
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const baseUrl = `http://${HOST}:${port}`;
  const deadline = Date.now() + START_DEADLINE_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${id} exited (${child.exitCode ?? child.signalCode}) before it was ready (log: ${path.relative(ROOT, logPath)})\n${tail.join('\n')}`);
    }
    if ((listening || id.startsWith('gateway')) && (await healthy(baseUrl))) break;
    if (Date.now() > deadline) {
      await stopChild(child);
      throw new Error(`${id} not ready within ${START_DEADLINE_MS / 1000}s (log: ${path.relative(ROOT, logPath)})`);
    }
    await sleep(100);
  }
  // The idle RSS once boot-time work (JIT, lazy init, GC) has settled.
  const idleRssMb = await settledRssMb(child.pid);
  return { id, baseUrl, pid: child.pid, idleRssMb, stop: async () => { await stopChild(child); log.end(); } };
}

// ---------------------------------------------------------------------------------------------
// Load: wrk + a generated Lua script comparing every body with the expected bytes
// ---------------------------------------------------------------------------------------------
function requestHeaders(extra) {
  return { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': PROTOCOL_VERSION, ...extra };
}

function luaString(s) {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
}

/** A wrk script: POST `body` with `headers`; count responses that are not HTTP 200 + exactly `expectedFile`'s bytes. */
function writeLuaScript(file, { body, headers, expectedFile, mismatchFile }) {
  const headerLines = Object.entries(headers).map(([k, v]) => `wrk.headers[${luaString(k)}] = ${luaString(v)}`).join('\n');
  writeFileSync(
    file,
    `-- generated by bench/gateway/run.mjs
local f = assert(io.open(${luaString(expectedFile)}, "rb"))
local expected = f:read("*a")
f:close()
wrk.method = "POST"
wrk.body = ${luaString(body)}
${headerLines}
local threads = {}
function setup(thread)
  table.insert(threads, thread)
end
mismatches = 0
responses = 0
function response(status, headers, body)
  responses = responses + 1
  if status ~= 200 or body ~= expected then
    mismatches = mismatches + 1
    if mismatches == 1 then
      local out = io.open(${luaString(mismatchFile)}, "wb")
      if out then
        out:write("HTTP " .. status .. "\\n" .. (body or ""))
        out:close()
      end
    end
  end
end
function done(summary, latency, requests)
  local m, r = 0, 0
  for _, t in ipairs(threads) do
    m = m + t:get("mismatches")
    r = r + t:get("responses")
  end
  local e = summary.errors
  io.write(string.format('BENCHJSON {"requests":%d,"durationUs":%d,"bytes":%d,"mismatches":%d,"checked":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latencyUs":{"p50":%d,"p90":%d,"p99":%d,"mean":%.1f,"max":%d}}\\n',
    summary.requests, summary.duration, summary.bytes, m, r, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.mean, latency.max))
end
`,
  );
}

function runWrk(url, script, seconds) {
  return new Promise((resolve, reject) => {
    const args = ['-c', LOADGEN_CPU, 'wrk', '-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--timeout', '10s', '-s', script, url];
    const child = spawn('taskset', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let out = '';
    let err = '';
    // wrk's own CPU (the noise indicator subtracts it): its /proc entry is gone once it exits.
    let wrkCpuS = 0;
    const poll = setInterval(() => {
      wrkCpuS = processCpuSeconds(child.pid) ?? wrkCpuS;
    }, 200);
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.once('error', reject);
    child.once('exit', (code) => {
      clearInterval(poll);
      children.delete(child);
      const line = out.split('\n').find((l) => l.startsWith('BENCHJSON '));
      if (!line) return reject(new Error(`wrk exited ${code} without a result: ${(err || out).slice(0, 500)}`));
      resolve({ ...JSON.parse(line.slice('BENCHJSON '.length)), wrkCpuS });
    });
  });
}

/** wrk needs to be there; the bench installs the Debian package when it is not (CI images). */
function ensureWrk() {
  if (spawnSync('wrk', ['--version']).error === undefined) return;
  console.log('wrk not found: apt-get install -y wrk');
  const sudo = process.getuid?.() === 0 ? [] : ['sudo', '-n'];
  const run = (args) => spawnSync(sudo[0] ?? args[0], sudo.length ? [...sudo.slice(1), ...args] : args.slice(1), { stdio: 'inherit' });
  if (run(['apt-get', 'install', '-y', 'wrk']).status !== 0) {
    run(['apt-get', 'update']);
    if (run(['apt-get', 'install', '-y', 'wrk']).status !== 0) throw new Error('could not install wrk (apt-get install -y wrk)');
  }
}

// ---------------------------------------------------------------------------------------------
// Preparation: start everything, capture and validate each target's response bytes
// ---------------------------------------------------------------------------------------------
async function post(url, headers, body) {
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body), signal: AbortSignal.timeout(10_000) });
  return { status: res.status, contentType: res.headers.get('content-type'), sessionId: res.headers.get('mcp-session-id'), bytes: Buffer.from(await res.arrayBuffer()) };
}

/** Two identical, valid responses ⇒ their bytes are what every load response must equal. */
async function capture(url, headers, workload) {
  const a = await post(url, headers, workload.request);
  if (a.status !== 200) throw new Error(`HTTP ${a.status}: ${a.bytes.toString('utf8').slice(0, 300)}`);
  const rpc = parseRpc(a.bytes.toString('utf8'), a.contentType);
  if (!rpc.result) throw new Error(`no result: ${a.bytes.toString('utf8').slice(0, 300)}`);
  const bad = checkResult(workload, rpc.result);
  if (bad) throw new Error(bad);
  const b = await post(url, headers, workload.request);
  if (!a.bytes.equals(b.bytes)) throw new Error('two identical requests got different bytes (the byte-exact check cannot be used)');
  return { bytes: a.bytes, contentType: a.contentType };
}

/** The bench's own session with the upstream (for the "upstream direct" row). */
async function openSession(url) {
  const headers = requestHeaders({});
  const init = await post(url, headers, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'bench', version: '1' } } });
  if (init.status !== 200 || !init.sessionId) throw new Error(`upstream initialize failed: HTTP ${init.status}`);
  const withSession = { ...headers, 'mcp-session-id': init.sessionId };
  await fetch(url, { method: 'POST', headers: withSession, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) }).then((r) => r.arrayBuffer());
  return withSession;
}

/** Deletes the `limited` row's Redis keys (SCAN, bounded by what one run writes). */
async function deleteRedisNamespace(prefix) {
  const { Redis } = await import('ioredis');
  const r = new Redis(BENCH_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await r.connect();
    let cursor = '0';
    for (let i = 0; i < 10_000; i++) {
      const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      if (keys.length) await r.del(...keys);
      cursor = next;
      if (cursor === '0') break;
    }
  } finally {
    r.disconnect();
  }
}

async function startAll(ctx) {
  const servers = {};
  const want = (id) => ONLY_TARGETS.length === 0 || ONLY_TARGETS.includes(id);
  const needUpstream = WORKLOADS.some((w) => w.proxied);
  if (needUpstream) servers.upstream = await startServer('upstream', [path.join(HERE, 'upstream-server.mjs')], {});
  if (!existsSync(GATEWAY_MAIN)) throw new Error(`${path.relative(ROOT, GATEWAY_MAIN)} not found (run npm run build)`);
  const auth = await startAuthFixture({ tenant: AUTH_TENANT, audience: `${GATEWAY_PUBLIC_URL}/t/${AUTH_TENANT}/mcp` });
  ctx.bearer = auth.token;
  const tenantsFile = path.join(ctx.tmpDir, 'tenants.yaml');
  writeFileSync(tenantsFile, tenantsYaml(servers.upstream ? `${servers.upstream.baseUrl}/mcp` : 'http://127.0.0.1:9/mcp'));
  const gatewayEnv = {
    // The gateway's documented memory settings (docs/operations.md, "Gateway memory"), as npm start runs it.
    MALLOC_ARENA_MAX: '2',
    NODE_OPTIONS: '--max-semi-space-size=16',
    TENANTS_FILE: tenantsFile,
    CATALOG_SOURCES: 'file',
    AUTH_PUBLIC_URL: auth.baseUrl,
    GATEWAY_PUBLIC_URL,
  };
  // The gateway is always started: the raw row serves its captured bytes. It runs with limits and
  // metering off (the `limited` row below is the same build with them on).
  servers.gateway = await startServer('gateway', [...GATEWAY_ARGS, GATEWAY_MAIN], { ...gatewayEnv, LIMITS_ENABLED: 'false', USAGE_ENABLED: 'false' });
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
      ...Object.fromEntries(['TENANT_RPS', 'TENANT_BURST', 'SUBJECT_RPS', 'SUBJECT_BURST', 'MAX_TENANT_RPS', 'MAX_TENANT_BURST', 'MAX_SUBJECT_RPS', 'MAX_SUBJECT_BURST'].map((k) => [`LIMITS_${k}`, '1000000'])),
    });
  }
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
    servers.raw = await startServer('raw', [path.join(HERE, 'raw-server.mjs')], { RAW_LIST_RESULT: listFile, RAW_CALL_RESULT: callFile });
  }
  if (want('sdk1')) servers.sdk1 = await startServer('sdk1', [path.join(HERE, 'sdk-server.mjs')], { FIXTURE });
  if (want('sdk2')) servers.sdk2 = await startServer('sdk2', [path.join(HERE, 'sdk2-server.mjs')], { FIXTURE });
  if (!want('gateway')) servers.gateway.benchOnly = false;
  return servers;
}

const LABELS = { gateway: 'gateway', limited: 'gateway + limits + metering', raw: 'raw Fastify, gateway bytes', sdk1: 'SDK 1.x stateless', sdk2: 'SDK v2 (node:http bridge)', upstream: 'upstream direct (SDK 1.x)' };

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
        writeLuaScript(script, { body: JSON.stringify(workload.request), headers, expectedFile, mismatchFile });
        // CPU of the row's server: the gateway plus its upstream for the proxied row.
        const pids = [server.pid, ...(workload.proxied && targetId === 'gateway' ? [servers.upstream.pid] : [])];
        Object.assign(cell, { url, script, pids, mainPid: server.pid, responseBytes: bytes.length, resp: contentType?.includes('event-stream') ? 'sse' : 'json', mismatchFile });
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
  if (WARMUP_S > 0) {
    const warm = await runWrk(cell.url, cell.script, WARMUP_S);
    cell.warmupMismatches = (cell.warmupMismatches ?? 0) + warm.mismatches;
    await sleep(DRAIN_MS);
  }
  const cpu0 = cell.pids.map(processCpuSeconds);
  const machine0 = machineBusySeconds();
  const t0 = process.hrtime.bigint();
  const r = await runWrk(cell.url, cell.script, DURATION_S);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu1 = cell.pids.map(processCpuSeconds);
  const machine1 = machineBusySeconds();
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
    p90Ms: r.latencyUs.p90 / 1000,
    p99Ms: r.latencyUs.p99 / 1000,
    serverCpuPct,
    reqPerServerCpuS: serverCpuS > 0 ? r.requests / serverCpuS : null,
    // Everything else on the machine meanwhile (other sessions): the noise indicator.
    otherCpuPct: machine0 !== null && machine1 !== null ? Math.max(0, (100 * (machine1 - machine0 - r.wrkCpuS)) / seconds - serverCpuPct) : null,
    rssAfterMb: rssMb(cell.mainPid),
  };
}

async function measureAndDrain(cell) {
  const r = await measure(cell);
  await sleep(DRAIN_MS);
  return r;
}

function median(values) {
  const xs = values.filter((v) => typeof v === 'number' && Number.isFinite(v)).sort((a, b) => a - b);
  if (xs.length === 0) return null;
  const mid = Math.floor(xs.length / 2);
  return xs.length % 2 ? xs[mid] : (xs[mid - 1] + xs[mid]) / 2;
}

function summarize(cell) {
  if (cell.status === 'skipped') return cell;
  const med = (key) => median(cell.rounds.map((r) => r[key]));
  const sum = (pick) => cell.rounds.reduce((acc, r) => acc + pick(r), 0);
  const mismatches = sum((r) => r.mismatches);
  const errors = sum((r) => r.errors.connect + r.errors.read + r.errors.write + r.errors.timeout);
  return Object.assign(cell, {
    status: mismatches > 0 || errors > 0 || (cell.warmupMismatches ?? 0) > 0 ? 'FAILED' : 'ok',
    mismatches,
    connErrors: errors,
    checked: sum((r) => r.checked),
    reqPerSec: med('reqPerSec'),
    p50Ms: med('p50Ms'),
    p99Ms: med('p99Ms'),
    serverCpuPct: med('serverCpuPct'),
    reqPerServerCpuS: med('reqPerServerCpuS'),
    otherCpuPct: med('otherCpuPct'),
    rssAfterMb: Math.max(...cell.rounds.map((r) => r.rssAfterMb ?? 0)),
  });
}

// ---------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------
function fmt(value, digits = 0) {
  return typeof value === 'number' && Number.isFinite(value) ? value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '—';
}

function ratio(a, b) {
  return typeof a === 'number' && typeof b === 'number' && b > 0 ? a / b : null;
}

function printTable(cells) {
  const find = (target, workload) => cells.find((c) => c.target === target && c.workload === workload && c.status !== 'skipped');
  const header = ['workload', 'target', 'req/s', 'p50 ms', 'p99 ms', 'checked', 'mismatch', 'srv CPU', 'req/CPU-s', '÷raw CPU-s', '×SDK1', '×SDK2', 'idle MB', 'after MB', 'status'];
  const rows = cells.map((c) => {
    if (c.status === 'skipped') return [c.workload, c.label, '—', '—', '—', '—', '—', '—', '—', '—', '—', '—', fmt(c.idleRssMb), '—', `SKIPPED: ${c.reason}`];
    const raw = find('raw', c.workload);
    const sdk1 = find('sdk1', c.workload);
    const sdk2 = find('sdk2', c.workload);
    const vsRaw = c.target === 'raw' ? null : ratio(c.reqPerServerCpuS, raw?.reqPerServerCpuS);
    const notes = [c.status];
    if (c.connErrors) notes.push(`${c.connErrors} socket errors`);
    if (c.otherCpuPct > 25) notes.push(`noisy: others used ${fmt(c.otherCpuPct)}% CPU`);
    if (c.target === 'gateway' && c.workload === 'proxied call') notes.push('CPU = gateway + upstream');
    return [
      c.workload,
      c.label,
      fmt(c.reqPerSec),
      fmt(c.p50Ms, 2),
      fmt(c.p99Ms, 2),
      fmt(c.checked),
      fmt(c.mismatches),
      `${fmt(c.serverCpuPct)}%`,
      fmt(c.reqPerServerCpuS),
      vsRaw === null ? '—' : fmt(vsRaw, 2),
      c.target === 'sdk1' ? '—' : ratio(c.reqPerSec, sdk1?.reqPerSec) === null ? '—' : `${fmt(ratio(c.reqPerSec, sdk1?.reqPerSec), 1)}×`,
      c.target === 'sdk2' ? '—' : ratio(c.reqPerSec, sdk2?.reqPerSec) === null ? '—' : `${fmt(ratio(c.reqPerSec, sdk2?.reqPerSec), 1)}×`,
      fmt(c.idleRssMb),
      fmt(c.rssAfterMb),
      notes.join('; '),
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cols) => cols.map((col, i) => (i === cols.length - 1 ? col : i < 2 ? col.padEnd(widths[i]) : col.padStart(widths[i]))).join('  ').trimEnd();
  console.log(line(header));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const row of rows) console.log(line(row));
}

function goals(cells) {
  const find = (target, workload) => cells.find((c) => c.target === target && c.workload === workload && c.status === 'ok');
  const out = [];
  const add = (name, value, threshold, met, detail) => out.push({ name, value, threshold, met, detail });
  const gl = find('gateway', 'tools/list');
  const rl = find('raw', 'tools/list');
  const gc = find('gateway', 'tools/call');
  const rc = find('raw', 'tools/call');
  const gb = find('gateway', 'list + bearer');
  const gp = find('gateway', 'proxied call');
  const up = find('upstream', 'proxied call');
  const r1 = ratio(gl?.reqPerServerCpuS, rl?.reqPerServerCpuS);
  add('tools/list ÷ raw, per server CPU-second', r1, '≥ 0.85', r1 !== null && r1 >= 0.85, `req/s ratio ${fmt(ratio(gl?.reqPerSec, rl?.reqPerSec), 2)}`);
  const r2 = ratio(gc?.reqPerServerCpuS, rc?.reqPerServerCpuS);
  add('in-process tools/call ÷ raw, per server CPU-second', r2, '≥ 0.70', r2 !== null && r2 >= 0.7, `req/s ratio ${fmt(ratio(gc?.reqPerSec, rc?.reqPerSec), 2)}`);
  const r3 = ratio(gb?.reqPerServerCpuS, gl?.reqPerServerCpuS);
  add('tools/list with bearer ÷ without, per server CPU-second', r3, '≥ 0.90', r3 !== null && r3 >= 0.9, `req/s ratio ${fmt(ratio(gb?.reqPerSec, gl?.reqPerSec), 2)}`);
  const r4 = ratio(gl?.p99Ms, rl?.p99Ms);
  add('tools/list p99 ÷ raw p99', r4, '≤ 2', r4 !== null && r4 <= 2, `${fmt(gl?.p99Ms, 2)} vs ${fmt(rl?.p99Ms, 2)} ms`);
  const r5 = ratio(gp?.reqPerSec, up?.reqPerSec);
  add('proxied tools/call ÷ upstream direct, req/s', r5, '≥ 0.70', r5 !== null && r5 >= 0.7, `per CPU-s (gateway+upstream vs upstream) ${fmt(ratio(gp?.reqPerServerCpuS, up?.reqPerServerCpuS), 2)}`);
  const d50 = gp && up ? gp.p50Ms - up.p50Ms : null;
  add('proxied p50 overhead (ms, at 64 connections)', d50, '≤ 0.2', d50 !== null && d50 <= 0.2, `${fmt(gp?.p50Ms, 2)} vs ${fmt(up?.p50Ms, 2)} ms`);
  const d99 = gp && up ? gp.p99Ms - up.p99Ms : null;
  add('proxied p99 overhead (ms, at 64 connections)', d99, '≤ 1', d99 !== null && d99 <= 1, `${fmt(gp?.p99Ms, 2)} vs ${fmt(up?.p99Ms, 2)} ms`);
  for (const w of ['tools/list', 'tools/call']) {
    const off = find('gateway', w);
    const on = find('limited', w);
    const r = ratio(on?.reqPerSec, off?.reqPerSec);
    add(`${w} with limits + metering ÷ without, req/s`, r, '≥ 0.90', r !== null && r >= 0.9, `per server CPU-second ${fmt(ratio(on?.reqPerServerCpuS, off?.reqPerServerCpuS), 2)}; p99 ${fmt(on?.p99Ms, 2)} vs ${fmt(off?.p99Ms, 2)} ms`);
  }
  console.log('\nTargets (ratios from this run):');
  for (const g of out) console.log(`  ${g.name}: ${g.value === null ? 'not measured' : fmt(g.value, 2)} (${g.threshold}) — ${g.value === null ? '—' : g.met ? 'MET' : 'NOT MET'}  [${g.detail}]`);
  return out;
}

function packageVersion(name) {
  try {
    return JSON.parse(readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
  } catch {
    return 'unknown';
  }
}

function list(raw, sep = ',') {
  return (raw ?? '').split(sep).map((s) => s.trim()).filter(Boolean);
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
  ensureWrk();
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
    serverCpu: SERVER_CPU,
    loadgenCpu: LOADGEN_CPU,
    versions: {
      wrk: spawnSync('wrk', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0],
      '@modelcontextprotocol/sdk': packageVersion('@modelcontextprotocol/sdk'),
      '@modelcontextprotocol/server': packageVersion('@modelcontextprotocol/server'),
      fastify: packageVersion('fastify'),
    },
  };
  console.log(
    `bench/gateway: wrk -t1 -c${CONNECTIONS} on cpu ${LOADGEN_CPU}, servers on cpu ${SERVER_CPU}; ${WARMUP_S}s warm-up + ${DURATION_S}s per cell, ` +
      `${ROUNDS} interleaved round(s), medians; node ${meta.node}, ${meta.cpus} CPU(s); load average at start ${meta.loadAvgAtStart.map((l) => l.toFixed(2)).join(' ')}`,
  );
  tmpDir = mkdtempSync(path.join(os.tmpdir(), 'bench-gateway-'));
  const ctx = { tmpDir };
  let servers = {};
  let cells = [];
  try {
    servers = await startAll(ctx);
    for (const s of Object.values(servers)) console.log(`  ${s.id}: up at ${s.baseUrl} (pid ${s.pid}, idle RSS ${fmt(s.idleRssMb)} MB)`);
    cells = await planCells(servers, ctx);
    const runnable = cells.filter((c) => c.status !== 'skipped');
    for (let round = 1; round <= ROUNDS && !interrupted; round++) {
      console.log(`  round ${round}/${ROUNDS}`);
      for (const cell of runnable) {
        const r = await measureAndDrain(cell);
        cell.rounds.push(r);
        console.log(`    ${cell.workload} / ${cell.label}: ${fmt(r.reqPerSec)} req/s, p50 ${fmt(r.p50Ms, 2)} ms, p99 ${fmt(r.p99Ms, 2)} ms, srv CPU ${fmt(r.serverCpuPct)}%, mismatches ${r.mismatches}`);
      }
    }
    cells.forEach(summarize);
  } finally {
    await Promise.allSettled(Object.values(servers).map((s) => s.stop()));
    if (servers.limited) await deleteRedisNamespace(LIMITED_NAMESPACE).catch((e) => console.error(`could not delete ${LIMITED_NAMESPACE}* from Redis: ${e.message}`));
    rmSync(tmpDir, { recursive: true, force: true });
    tmpDir = null;
  }
  console.log('');
  printTable(cells);
  const goalList = goals(cells);
  const others = median(cells.flatMap((c) => (c.rounds ?? []).map((r) => r.otherCpuPct)));
  console.log(
    [
      '',
      `Machine load: load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} at the end; other processes used a median ${fmt(others)}% CPU during the cells`,
      `(100% = one core, of ${meta.cpus}). Absolute numbers move with that; ratios measured side by side in this run are what count.`,
      'checked = responses compared byte for byte with the preflight response (a row with any mismatch, socket error or',
      'timeout is FAILED; the first mismatching body is in results/logs/*.mismatch.txt). req/CPU-s = responses per CPU-second',
      'of the server process (from /proc/<pid>/stat); ÷raw CPU-s compares that with the raw row of the same workload.',
      'idle MB = the server process RSS after boot, before any load; after MB = the largest RSS seen after this row\'s cells.',
    ].join('\n'),
  );
  mkdirSync(RESULTS_DIR, { recursive: true });
  const outFile = path.join(RESULTS_DIR, 'latest.json');
  writeFileSync(outFile, `${JSON.stringify({ meta: { ...meta, finishedAt: new Date().toISOString(), loadAvgAtEnd: os.loadavg() }, goals: goalList, cells }, null, 2)}\n`);
  console.log(`Results: ${path.relative(process.cwd(), outFile) || outFile}`);
  if (cells.some((c) => c.status === 'FAILED')) process.exitCode = 1;
}

main().catch(async (error) => {
  console.error(`bench/gateway failed: ${error.stack ?? error}`);
  await Promise.allSettled([...children].map(stopChild));
  if (tmpDir) rmSync(tmpDir, { recursive: true, force: true });
  process.exit(1);
});

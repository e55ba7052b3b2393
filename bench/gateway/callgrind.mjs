// Instructions per tools/call, counted by valgrind's callgrind: a deterministic measure
// (the same total within ±0.5% run to run, whatever else the machine is doing, steal included)
// for changes of a few percent that wall-clock cells on a shared VM cannot resolve.
//
//   node bench/gateway/callgrind.mjs [gateway|rawproxy|local|limited ...] [--warm N] [--warm-max N] [--calls N] [--runs N] [--top N] [--callers REGEX]
//
// Targets: `gateway` and `rawproxy` answer a proxied tools/call (the bench's `proxied call` rows);
// `local` is the gateway answering the in-process demo echo (`tools/call`), `list` its `tools/list`, and `limited` the same
// with limits and usage metering on (Redis at REDIS_URL, limits too high to refuse, as the bench's
// `gateway + limits + metering` row; Redis's own instructions are not counted).
//
// Starts the bench's SDK upstream (plain node) and the target under
// `valgrind --tool=callgrind --instr-atstart=no` (with --perf-basic-prof, so JIT code has names),
// sends at least --warm sequential calls (JIT warm-up, not counted; 20,000 by default, then more
// until a window of --calls passes without an optimised compile — the README says why), turns
// counting on, sends --calls more, dumps, and prints total instructions ÷ calls (all threads of the target: main thread, V8's
// compiler and GC workers). With --top N, the N functions with the most exclusive instructions
// per call, JIT addresses resolved through /tmp/perf-<pid>.map; with --callers REGEX, which
// functions spend the most (inclusive) in the functions matching it, e.g. --callers 'Megamorphic'
// to find the code behind megamorphic property access. Every answer is checked.
// Needs valgrind (Debian package; on every machine here). Outputs: bench/gateway/results/callgrind/.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deleteRedisNamespace, settings, startServer } from './processes.mjs';
import { openSession, requestHeaders } from './wrk.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');
const OUT = path.join(HERE, 'results', 'callgrind');
const argv = process.argv.slice(2);
const flag = (name, dflt, parse = Number) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? parse(argv.splice(i, 2)[1]) : dflt;
};
const WARM = flag('warm', 20000);
const WARM_MAX = flag('warm-max', 100000);
const CALLS = flag('calls', 2000);
const RUNS = flag('runs', 3);
const TOP = flag('top', 0);
const CALLERS = flag('callers', undefined, (source) => new RegExp(source));
const targets = argv.length > 0 ? argv : ['gateway', 'rawproxy'];
const TARGETS = ['gateway', 'rawproxy', 'local', 'limited', 'list'];
for (const t of targets) if (!TARGETS.includes(t)) throw new Error(`unknown target ${t} (${TARGETS.join(', ')})`);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const NAMESPACE = `bench:callgrind:${process.pid}:`;
// Boot under callgrind takes tens of seconds; logs go to results/callgrind/logs.
Object.assign(settings, { root: ROOT, resultsDir: OUT, startDeadlineMs: 600_000 });
const ECHO = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hello' } } });
const LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });

async function calls(url, n, target) {
  const headers = requestHeaders({});
  const [body, expect] = target === 'list' ? [LIST, '"name":"echo"'] : [ECHO, '"hello"'];
  for (let i = 0; i < n; i++) {
    const res = await fetch(url, { method: 'POST', headers, body });
    const text = await res.text();
    if (res.status !== 200 || !text.includes(expect)) throw new Error(`unexpected answer: HTTP ${res.status} ${text.slice(0, 200)}`);
  }
}

// valgrind names its control pipes after $HOST (startServer sets it to settings.host): callgrind_control must see the same.
const control = (...args) => execFileSync('callgrind_control', args, { env: { ...process.env, HOST: settings.host }, stdio: 'ignore' });

// A fixed young generation: under valgrind V8 reads the slow clock as a low allocation rate and
// shrinks it, and the number of scavenges in a window (each walks Node's large startup object
// cache) then follows timing, not the code (README: "Steady state").
const NODE_ARGS = [
  '--perf-basic-prof',
  '--no-logfile-per-isolate',
  `--logfile=${OUT}/v8.log`,
  '--trace-opt',
  '--min-semi-space-size=16',
  '--max-semi-space-size=16',
];

/** One measured run of `target`: { perCall, file, pid }. */
async function run(target, upstreamUrl) {
  const wrap = [
    'valgrind',
    '--tool=callgrind',
    '--instr-atstart=no',
    '--smc-check=all-non-file',
    `--callgrind-out-file=${OUT}/${target}.%p.out`,
  ];
  // --trace-opt: the target's log then names every optimised compile, so a run can show none fell in its counted window.
  let server;
  let mcpPath;
  if (target !== 'rawproxy') {
    const tenants = path.join(OUT, 'tenants.yaml');
    const catalog = target === 'gateway' ? `upstream: { id: up, url: ${upstreamUrl}, stateful: true }` : '{ builtin: demo, tools: [echo] }';
    writeFileSync(tenants, `tenants:\n  - id: t\n    name: callgrind\n    catalogs:\n      - ${catalog}\n`);
    const env = {
      MALLOC_ARENA_MAX: '2',
      TENANTS_FILE: tenants,
      CATALOG_SOURCES: 'file',
      LIMITS_ENABLED: 'false',
      USAGE_ENABLED: 'false',
      AUTH_PUBLIC_URL: 'http://127.0.0.1:9',
    };
    if (target === 'limited') {
      const high = Object.fromEntries(
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
      );
      Object.assign(env, { REDIS_URL, REDIS_NAMESPACE: NAMESPACE, LIMITS_ENABLED: 'true', USAGE_ENABLED: 'true', ...high });
    }
    server = await startServer(
      `${target}-callgrind`,
      [...NODE_ARGS, path.join(ROOT, 'apps/gateway/dist/main.js')],
      env,
      settings.serverCpu,
      { wrap },
    );
    mcpPath = '/t/t/mcp';
  } else {
    const env = { UPSTREAM_URL: upstreamUrl, UPSTREAM_HEADERS: JSON.stringify(await openSession(upstreamUrl)) };
    server = await startServer('rawproxy-callgrind', [...NODE_ARGS, path.join(HERE, 'raw-proxy.mjs')], env, settings.serverCpu, { wrap });
    mcpPath = '/mcp';
  }
  try {
    const warmed = await warmUp(`${server.baseUrl}${mcpPath}`, target, server.logPath);
    const compilesBefore = await optimisedCompiles(server.logPath);
    control('-z', String(server.pid));
    control('-i', 'on', String(server.pid));
    await calls(`${server.baseUrl}${mcpPath}`, CALLS, target);
    control('-i', 'off', String(server.pid));
    control('-d', String(server.pid));
    const compiles = (await optimisedCompiles(server.logPath)) - compilesBefore;
    let best = { ir: 0, file: '' };
    for (const f of readdirSync(OUT).filter((name) => name.startsWith(`${target}.${server.pid}.out.`))) {
      const m = readFileSync(path.join(OUT, f), 'utf8').match(/^totals: (\d+)/m);
      if (m && Number(m[1]) > best.ir) best = { ir: Number(m[1]), file: path.join(OUT, f) };
    }
    return { perCall: best.ir / CALLS, file: best.file, pid: server.pid, compiles, warmed };
  } finally {
    await server.stop();
  }
}

/**
 * How many optimised compiles (Maglev or Turbofan) the target's log names so far. Its stdout reaches
 * the log through a pipe, so the event loop gets a few turns first: callgrind_control ran synchronously.
 */
/**
 * --warm calls, then more in windows of --calls until one window passes without an optimised
 * compile (V8 tiers request functions up until tens of thousands of calls), at most --warm-max.
 */
async function warmUp(url, target, logPath) {
  await calls(url, WARM, target);
  let warmed = WARM;
  let before = await optimisedCompiles(logPath);
  while (warmed < WARM_MAX) {
    await calls(url, CALLS, target);
    warmed += CALLS;
    const after = await optimisedCompiles(logPath);
    if (after === before) break;
    before = after;
  }
  return warmed;
}

async function optimisedCompiles(logPath) {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
  return (readFileSync(logPath, 'utf8').match(/\[completed optimizing /g) ?? []).length;
}

/**
 * Instructions by function, JIT code named from the perf map: `excl` (each function's own) and
 * `calls` (caller -> callee -> the callee's inclusive cost when called from there).
 */
function profile(file, pid) {
  // [start, size, name, line]: the map is appended to as code is made, and V8 reuses the
  // addresses of code it freed, so an address can lie in several entries: the latest (highest
  // line) is the code that ran in the counted window. (Taking any covering entry named boot-time
  // functions, realpathSync for one, for code compiled long after.)
  let map = [];
  try {
    map = readFileSync(`/tmp/perf-${pid}.map`, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l, line) => {
        const [a, s, ...name] = l.split(' ');
        return [parseInt(a, 16), parseInt(s, 16), name.join(' '), line];
      })
      .sort((x, y) => x[0] - y[0]);
  } catch {}
  const longest = map.reduce((m, e) => Math.max(m, e[1]), 0);
  const resolved = new Map();
  const jit = (name) => {
    const m = /^0x([0-9a-f]+)$/.exec(name);
    if (!m) return name;
    if (resolved.has(name)) return resolved.get(name);
    const a = parseInt(m[1], 16);
    let lo = 0;
    let hi = map.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (map[mid][0] <= a) lo = mid + 1;
      else hi = mid - 1;
    }
    let best;
    for (let i = hi; i >= 0 && map[i][0] > a - longest; i--) if (a < map[i][0] + map[i][1] && (!best || map[i][3] > best[3])) best = map[i];
    const out = best ? best[2].replace(/^JS:[*+^~]?'?/, 'JS:') : 'JIT (unnamed)';
    resolved.set(name, out);
    return out;
  };
  const names = new Map();
  const named = (tok) => {
    const m = /^\((\d+)\)(?: (.*))?$/.exec(tok);
    if (!m) return tok;
    if (m[2] !== undefined) names.set(m[1], m[2]);
    return names.get(m[1]) ?? '?';
  };
  const excl = new Map();
  const calls = new Map();
  let fn = '?';
  let callee = '?';
  let inCall = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('fn=')) {
      fn = jit(named(line.slice(3)));
      inCall = false;
    } else if (line.startsWith('cfn=')) callee = jit(named(line.slice(4)));
    else if (line.startsWith('calls=')) inCall = true;
    else if (/^[0-9+*-]/.test(line)) {
      const ir = Number(line.trim().split(/\s+/).pop());
      if (inCall) {
        // the callee's inclusive cost, not this function's own
        inCall = false;
        const from = calls.get(fn) ?? new Map();
        calls.set(fn, from.set(callee, (from.get(callee) ?? 0) + ir));
      } else excl.set(fn, (excl.get(fn) ?? 0) + ir);
    }
  }
  return { excl, calls };
}

/** The n entries of a name -> instructions map with the most, one line each, per call. */
const ranked = (costs, n) =>
  [...costs]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, ir]) => `    ${(ir / CALLS / 1000).toFixed(2).padStart(8)}k  ${name.slice(0, 140)}`);

/** For functions whose name matches `pattern`: the n callers that spend the most instructions in them (inclusive). */
function callersOf({ calls }, pattern, n) {
  const by = new Map();
  for (const [caller, callees] of calls) {
    if (pattern.test(caller)) continue; // recursion and the matched functions calling each other
    for (const [callee, ir] of callees) if (pattern.test(callee)) by.set(caller, (by.get(caller) ?? 0) + ir);
  }
  return ranked(by, n);
}

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
// The upstream beside the client, off the target's core.
const upstream = await startServer('upstream', [path.join(HERE, 'upstream-server.mjs')], {}, '0');
try {
  const upstreamUrl = `${upstream.baseUrl}/mcp`;
  console.log(
    `callgrind: tools/call at one connection (gateway, rawproxy: proxied; local, limited: in-process), at least ${WARM} warm-up calls (until a window of ${CALLS} compiles nothing), ${CALLS} counted, ${RUNS} runs per target`,
  );
  for (const target of targets) {
    const results = [];
    for (let i = 0; i < RUNS; i++) results.push(await run(target, upstreamUrl));
    const per = results.map((r) => r.perCall).sort((a, b) => a - b);
    console.log(
      `  ${target.padEnd(9)} median ${(per[per.length >> 1] / 1000).toFixed(1)}k instructions per call (runs: ${per.map((v) => (v / 1000).toFixed(1)).join(', ')}k; warm-up calls: ${results.map((r) => r.warmed).join(', ')}; optimised compiles in the counted window: ${results.map((r) => r.compiles).join(', ')})`,
    );
    if (TOP > 0 || CALLERS) {
      const prof = profile(results[0].file, results[0].pid);
      if (TOP > 0) console.log(ranked(prof.excl, TOP).join('\n'));
      if (CALLERS)
        console.log(
          `  callers of /${CALLERS.source}/ (instructions per call spent in it, inclusive):\n${callersOf(prof, CALLERS, Math.max(TOP, 20)).join('\n')}`,
        );
    }
  }
} finally {
  await upstream.stop();
  if (targets.includes('limited'))
    await deleteRedisNamespace(REDIS_URL, NAMESPACE).catch((e) => console.error(`could not delete ${NAMESPACE}* from Redis: ${e.message}`));
}

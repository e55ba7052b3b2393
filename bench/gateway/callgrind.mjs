// Instructions per proxied tools/call, counted by valgrind's callgrind: a deterministic measure
// (the same total within ±0.5% run to run, whatever else the machine is doing, steal included)
// for changes of a few percent that wall-clock cells on a shared VM cannot resolve.
//
//   node bench/gateway/callgrind.mjs [gateway|rawproxy ...] [--warm N] [--calls N] [--runs N] [--top N]
//
// Starts the bench's SDK upstream (plain node) and the target under
// `valgrind --tool=callgrind --instr-atstart=no` (with --perf-basic-prof, so JIT code has names),
// sends --warm sequential calls (JIT warm-up, not counted), turns counting on, sends --calls
// more, dumps, and prints total instructions ÷ calls (all threads of the target: main thread, V8's
// compiler and GC workers). With --top N, the N functions with the most exclusive instructions
// per call, JIT addresses resolved through /tmp/perf-<pid>.map. Every answer is checked.
// Needs valgrind (Debian package; on every machine here). Outputs: bench/gateway/results/callgrind/.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');
const OUT = path.join(HERE, 'results', 'callgrind');
const argv = process.argv.slice(2);
const flag = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv.splice(i, 2)[1]) : dflt;
};
const WARM = flag('warm', 3000);
const CALLS = flag('calls', 2000);
const RUNS = flag('runs', 3);
const TOP = flag('top', 0);
const targets = argv.length > 0 ? argv : ['gateway', 'rawproxy'];
for (const t of targets) if (t !== 'gateway' && t !== 'rawproxy') throw new Error(`unknown target ${t} (gateway, rawproxy)`);
// valgrind names its control pipes after $HOST; callgrind_control must see the same value.
const HOST = '127.0.0.1';
const H = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
const ECHO = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hello' } } };

function spawnLogged(cmd, args, env) {
  const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'warn', HOST, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const keep = (c) => (log = (log + c).slice(-4000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  child.log = () => log;
  return child;
}

function listening(child) {
  return new Promise((resolve, reject) => {
    const poll = setInterval(() => {
      const m = child.log().match(/listening on (http:\/\/[0-9.:]+)/);
      if (m) {
        clearInterval(poll);
        resolve(m[1]);
      }
    }, 50);
    child.once('exit', (code) => {
      clearInterval(poll);
      reject(new Error(`exited ${code}: ${child.log()}`));
    });
  });
}

async function ready(url, child) {
  const deadline = Date.now() + 600_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${child.log()}`);
    try {
      if ((await fetch(`${url}/healthz`)).status === 200) return;
    } catch {}
    if (Date.now() > deadline) throw new Error(`not ready in 10 min: ${child.log()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function post(url, headers, body) {
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: res.status, sessionId: res.headers.get('mcp-session-id'), text: await res.text() };
}

async function calls(url, n) {
  for (let i = 0; i < n; i++) {
    const r = await post(url, H, ECHO);
    if (r.status !== 200 || !r.text.includes('"hello"')) throw new Error(`unexpected answer: HTTP ${r.status} ${r.text.slice(0, 200)}`);
  }
}

const control = (...args) => execFileSync('callgrind_control', args, { env: { ...process.env, HOST }, stdio: 'ignore' });

/** One measured run of `target`: { perCall, file, pid }. */
async function run(target, upstreamUrl) {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const valgrind = ['--tool=callgrind', '--instr-atstart=no', '--smc-check=all-non-file', `--callgrind-out-file=${OUT}/${target}.%p.out`, process.execPath, '--perf-basic-prof', '--no-logfile-per-isolate', `--logfile=${OUT}/v8.log`];
  let child;
  let url;
  let mcpPath;
  if (target === 'gateway') {
    const tenants = path.join(OUT, 'tenants.yaml');
    writeFileSync(tenants, `tenants:\n  - id: proxy\n    name: callgrind\n    catalogs:\n      - upstream: { id: up, url: ${upstreamUrl}, stateful: true }\n`);
    child = spawnLogged('valgrind', [...valgrind, 'apps/gateway/dist/main.js'], {
      MALLOC_ARENA_MAX: '2', NODE_OPTIONS: '--max-semi-space-size=16', TENANTS_FILE: tenants, CATALOG_SOURCES: 'file', LIMITS_ENABLED: 'false', USAGE_ENABLED: 'false',
      GATEWAY_PORT: String(port), GATEWAY_HOST: HOST, GATEWAY_PUBLIC_URL: `http://${HOST}:${port}`, AUTH_PUBLIC_URL: 'http://127.0.0.1:9',
    });
    url = `http://${HOST}:${port}`;
    mcpPath = '/t/proxy/mcp';
  } else {
    const init = await post(upstreamUrl, H, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'callgrind', version: '1' } } });
    const session = { ...H, 'mcp-session-id': init.sessionId };
    await fetch(upstreamUrl, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) }).then((r) => r.text());
    child = spawnLogged('valgrind', [...valgrind, path.join(HERE, 'raw-proxy.mjs')], { PORT: String(port), UPSTREAM_URL: upstreamUrl, UPSTREAM_HEADERS: JSON.stringify(session) });
    url = await listening(child);
    mcpPath = '/mcp';
  }
  try {
    await ready(url, child);
    await calls(`${url}${mcpPath}`, WARM);
    control('-z', String(child.pid));
    control('-i', 'on', String(child.pid));
    await calls(`${url}${mcpPath}`, CALLS);
    control('-i', 'off', String(child.pid));
    control('-d', String(child.pid));
    const files = readdirSync(OUT).filter((f) => f.startsWith(`${target}.${child.pid}.out.`));
    let best = { ir: 0, file: '' };
    for (const f of files) {
      const m = readFileSync(path.join(OUT, f), 'utf8').match(/^totals: (\d+)/m);
      if (m && Number(m[1]) > best.ir) best = { ir: Number(m[1]), file: path.join(OUT, f) };
    }
    return { perCall: best.ir / CALLS, file: best.file, pid: child.pid };
  } finally {
    child.kill('SIGKILL');
  }
}

/** Exclusive instructions per call by function, JIT code named from the perf map. */
function top(file, pid, n) {
  let map = [];
  try {
    map = readFileSync(`/tmp/perf-${pid}.map`, 'utf8').split('\n').filter(Boolean).map((l) => {
      const [a, s, ...name] = l.split(' ');
      return [parseInt(a, 16), parseInt(s, 16), name.join(' ')];
    }).sort((x, y) => x[0] - y[0]);
  } catch {}
  const jit = (name) => {
    const m = /^0x([0-9a-f]+)$/.exec(name);
    if (!m) return name;
    const a = parseInt(m[1], 16);
    let lo = 0;
    let hi = map.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (map[mid][0] <= a) lo = mid + 1;
      else hi = mid - 1;
    }
    const e = map[hi];
    return e && a < e[0] + e[1] ? e[2].replace(/^JS:[*+^~]?'?/, 'JS:') : 'JIT (unnamed)';
  };
  const names = new Map();
  const named = (tok) => {
    const m = /^\((\d+)\)(?: (.*))?$/.exec(tok);
    if (!m) return tok;
    if (m[2] !== undefined) names.set(m[1], m[2]);
    return names.get(m[1]) ?? '?';
  };
  const excl = new Map();
  let fn = '?';
  let inCall = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('fn=')) {
      fn = jit(named(line.slice(3)));
      inCall = false;
    } else if (line.startsWith('cfn=')) named(line.slice(4));
    else if (line.startsWith('calls=')) inCall = true;
    else if (/^[0-9+*-]/.test(line)) {
      const ir = Number(line.trim().split(/\s+/).pop());
      if (inCall) inCall = false; // the callee's inclusive cost, not this function's own
      else excl.set(fn, (excl.get(fn) ?? 0) + ir);
    }
  }
  return [...excl].sort((a, b) => b[1] - a[1]).slice(0, n).map(([name, ir]) => `    ${(ir / CALLS / 1000).toFixed(2).padStart(8)}k  ${name.slice(0, 140)}`);
}

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
const upstream = spawnLogged(process.execPath, [path.join(HERE, 'upstream-server.mjs')], { PORT: '0' });
try {
  const upstreamUrl = `${await listening(upstream)}/mcp`;
  console.log(`callgrind: proxied tools/call at one connection, ${WARM} warm-up calls, ${CALLS} counted, ${RUNS} runs per target`);
  for (const target of targets) {
    const results = [];
    for (let i = 0; i < RUNS; i++) results.push(await run(target, upstreamUrl));
    const per = results.map((r) => r.perCall).sort((a, b) => a - b);
    console.log(`  ${target.padEnd(9)} median ${(per[per.length >> 1] / 1000).toFixed(1)}k instructions per call (runs: ${per.map((v) => (v / 1000).toFixed(1)).join(', ')}k)`);
    if (TOP > 0) console.log(top(results[0].file, results[0].pid, TOP).join('\n'));
  }
} finally {
  upstream.kill('SIGKILL');
}

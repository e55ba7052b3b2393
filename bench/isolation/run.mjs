// bench/isolation: does a misbehaving tenant X change what a healthy tenant Y gets?
//
// One gateway process (built dist, pinned to CPU 1) serves tenant Y (a healthy SDK-built
// upstream) and tenant X (an SDK-built upstream that misbehaves per tool). For each phase —
// X idle, then X hanging, crashing mid-response, answering garbage, answering 50 MB, answering
// after 2 s, sending the pathological ^(a+)+$ input, flooding batches — X's load runs while wrk
// (pinned to CPU 0 with this driver and the upstreams) measures Y's tools/list and proxied
// tools/call. Every Y response is checked by wrk's Lua (check.lua); every X response is checked
// and bucketed here. Prints Y's throughput ratio, p50/p99 ratios against the idle baseline and
// the gateway's peak RSS per phase. Run with `npm run bench:isolation` (builds first).
//
// The last phase, `notification flood`, runs on a second gateway backed by Redis (streams are
// resumable only there): X's upstream floods 1 MiB progress notifications while Y is measured,
// and Redis memory (INFO used_memory, and MEMORY USAGE of X's stream keys) is sampled
// before, during and after, against the documented per-tenant bound.
//
// Env: DURATION (s per wrk run, default 6), CONNECTIONS (wrk, default 8), X_CONCURRENCY (default 48),
// BENCH_REDIS_URL (redis://127.0.0.1:6379), FLOOD_CONCURRENCY (16), FLOOD_NOTIFICATIONS (8 per call).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { MiB, floodProbes, printFloodTable } from './flood-report.mjs';
import { cleanup, cpuCount, freePort, rssKb, start } from './processes.mjs';
import { measuredLatencyProblem, WRK_LATENCY_LUA } from '../wrk-latency.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const DURATION = Number(process.env.DURATION ?? 6);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 8);
const X_CONCURRENCY = Number(process.env.X_CONCURRENCY ?? 48);
// --- the platform ----------------------------------------------------------------------------
const readyUrl = (out) => {
  const line = out.split('\n').find((l) => l.startsWith('{'));
  return line ? JSON.parse(line).url : undefined;
};
// Y's upstream beside wrk on CPU 0; X's at the lowest priority there (its 50 MB answers stand for
// another machine's work and must not take CPU from the measurement), with room for them.
const urls = {
  y: (await start('taskset', ['-c', '0', process.execPath, path.join(here, 'upstreams.mjs'), 'y'], {}, readyUrl)).match,
  x: (
    await start(
      'nice',
      ['-n', '19', 'taskset', '-c', '0', process.execPath, '--max-old-space-size=3072', path.join(here, 'upstreams.mjs'), 'x'],
      {},
      readyUrl,
    )
  ).match,
};
const X_TOOLS = ['hang', 'crash', 'garbage', 'big', 'slow', 'match', 'flood'];
const dir = mkdtempSync(path.join(tmpdir(), 'sb-bench-isolation-'));
const tenantsFile = path.join(dir, 'tenants.yaml');
writeFileSync(
  tenantsFile,
  JSON.stringify({
    tenants: [
      { id: 'y', name: 'Healthy Y', catalogs: [{ upstream: { id: 'y', url: urls.y, prefix: 'y_' } }] },
      // One registration per misbehaviour (same server): each has its own breaker, as separate upstreams would.
      { id: 'x', name: 'Hostile X', catalogs: X_TOOLS.map((t) => ({ upstream: { id: t, url: urls.x, prefix: `${t}_` } })) },
    ],
  }),
);
const gatewayPort = await freePort();
const { child: gateway } = await start(
  'taskset',
  ['-c', cpuCount() > 1 ? '1' : '0', process.execPath, path.join(root, 'apps/gateway/dist/main.js')],
  { TENANTS_FILE: tenantsFile, GATEWAY_PORT: String(gatewayPort), LOG_LEVEL: 'warn', CATALOG_SOURCES: 'file' },
  (out) => out.includes('gateway listening on'),
);
const base = `http://127.0.0.1:${gatewayPort}`;
const post = (tenant, body, headers = {}, signal) =>
  fetch(`${base}/t/${tenant}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...headers,
    },
    body: JSON.stringify(body),
    signal,
  });

// Discovery at boot is asynchronous for unreachable upstreams; both are up, but wait until Y lists its tool.
for (let i = 0; ; i++) {
  const text = await (await post('y', { jsonrpc: '2.0', id: 1, method: 'tools/list' })).text();
  if (text.includes('"y_shout"')) break;
  if (i > 100) throw new Error(`tenant y never listed y_shout: ${text.slice(0, 200)}`);
  await new Promise((r) => setTimeout(r, 100));
}

// --- X's misbehaviours -----------------------------------------------------------------------
const call = (name, args = {}) => ({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: args } });
const BATCH = Array.from({ length: 500 }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/list' }));
const ALL_ATTACKS = [
  { id: 'idle' },
  { id: 'hang', body: call('hang_hang') },
  { id: 'crash mid-response', body: call('crash_crash') },
  { id: 'garbage', body: call('garbage_garbage') },
  // Two at a time, as in the issue's measurement (each is 50 MB the upstream must serialise).
  { id: '50 MB result', body: call('big_big'), concurrency: 2 },
  { id: '2 s latency', body: call('slow_slow') },
  { id: '^(a+)+$ input', body: call('match_match', { s: `${'a'.repeat(29)}!` }) },
  // No MCP-Protocol-Version header ⇒ 2025-03-26, the revision with batches.
  { id: 'batch flood (500)', body: BATCH, headers: { 'mcp-protocol-version': '' } },
  // Run apart, on a Redis-backed gateway (see floodPhase).
  { id: 'notification flood', redis: true },
];
// PHASES=hang,garbage runs only those (beside the idle baseline).
const only = process.env.PHASES?.split(',').map((p) => p.trim());
const SELECTED = ALL_ATTACKS.filter((a) => a.id === 'idle' || !only || only.some((p) => a.id.startsWith(p)));
const ATTACKS = SELECTED.filter((a) => !a.redis);

/** What X got back, bucketed (the response is checked: a healthy gateway answers every one). */
function bucket(status, text) {
  if (status !== 200) return `HTTP ${status}: ${text.slice(0, 80)}`;
  const m = text.match(/"text":"((?:[^"\\]|\\.){0,70})/) ?? text.match(/"message":"((?:[^"\\]|\\.){0,70})/);
  if (text.startsWith('[')) return `batch answered (${text.length} bytes)`;
  return m ? m[1].replace(/\d+/g, 'N') : text.slice(0, 70);
}

function runAttack(attack) {
  if (!attack.body) return { stop: async () => ({}) };
  const abort = new AbortController();
  const buckets = {};
  let stopped = false;
  const loops = Array.from({ length: attack.concurrency ?? (attack.id.startsWith('batch') ? 4 : X_CONCURRENCY) }, async () => {
    while (!stopped) {
      try {
        const headers = { ...(attack.headers ?? {}) };
        for (const [k, v] of Object.entries(headers)) if (v === '') delete headers[k];
        const res = await fetch(`${base}/t/x/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...(attack.headers?.['mcp-protocol-version'] === '' ? {} : { 'mcp-protocol-version': '2025-11-25' }),
          },
          body: JSON.stringify(attack.body),
          signal: abort.signal,
        });
        const text = await res.text();
        const b = bucket(res.status, text);
        buckets[b] = (buckets[b] ?? 0) + 1;
      } catch (err) {
        if (stopped) return;
        const b = `client error: ${err.cause?.code ?? err.message}`;
        buckets[b] = (buckets[b] ?? 0) + 1;
      }
    }
  });
  return {
    stop: async () => {
      stopped = true;
      abort.abort();
      await Promise.allSettled(loops);
      return buckets;
    },
  };
}

function wrk(body, expect, url = `${base}/t/y/mcp`) {
  const out = execFileSync(
    'taskset',
    ['-c', '0', 'wrk', '-t1', `-c${CONNECTIONS}`, `-d${DURATION}s`, '--timeout', '10s', '-s', path.join(here, 'check.lua'), url],
    {
      env: { ...process.env, BODY: JSON.stringify(body), EXPECT: expect, WRK_LATENCY_LUA, CONNECTIONS: String(CONNECTIONS) },
      encoding: 'utf8',
    },
  );
  const line = out.split('\n').find((l) => l.startsWith('RESULT '));
  if (!line) throw new Error(`wrk printed no RESULT:\n${out}`);
  const r = JSON.parse(line.slice(7));
  const bad = measuredLatencyProblem(r);
  if (bad) throw new Error(bad);
  return { ...r, rps: r.requests / (r.durationUs / 1e6) };
}

const Y_LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
const Y_CALL = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'y_shout', arguments: { text: 'hello' } } };
const rows = [];
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
console.log(
  `bench/isolation: gateway pid ${gateway.pid} on CPU ${cpuCount() > 1 ? 1 : 0}, wrk + upstreams + X's load on CPU 0; ${DURATION} s per run, ${CONNECTIONS} connections; load average before: ${load()}`,
);
// Warm-up (JIT, connection pools), not measured.
wrk(Y_LIST, '"y_shout"');
wrk(Y_CALL, 'HELLO');
for (const attack of ATTACKS) {
  const x = runAttack(attack);
  let peak = rssKb(gateway.pid, 'VmRSS');
  const sampler = setInterval(() => (peak = Math.max(peak, rssKb(gateway.pid, 'VmRSS'))), 100);
  if (attack.body) await new Promise((r) => setTimeout(r, 1000)); // let X's load reach its steady state
  const list = wrk(Y_LIST, '"y_shout"');
  const callR = wrk(Y_CALL, 'HELLO');
  clearInterval(sampler);
  const buckets = await x.stop();
  rows.push({ attack: attack.id, list, call: callR, peakMb: peak / 1024, buckets });
  console.log(
    `  ${attack.id}: list ${list.rps.toFixed(0)} req/s, call ${callR.rps.toFixed(0)} req/s, peak RSS ${(peak / 1024).toFixed(0)} MB`,
  );
}
const hwm = rssKb(gateway.pid, 'VmHWM') / 1024;

// --- the table -------------------------------------------------------------------------------
const baseRow = rows[0];
const pct = (v) => `${(v * 100).toFixed(0)}%`;
const ratio = (v) => `${v.toFixed(2)}×`;
const ms = (us) => (us / 1000).toFixed(1);
console.log('\nY under X (ratios against X idle; targets: throughput ≥ 90%, p99 ≤ 1.5×, RSS ≤ baseline + 200 MB)\n');
console.log(
  '| X is doing | Y tools/list req/s (ratio) | p50 ms (ratio) | p99 ms (ratio) | Y tools/call req/s (ratio) | p50 ms (ratio) | p99 ms (ratio) | Y invalid | gateway peak RSS MB (Δ) | verdict |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|');
let allOk = true;
for (const r of rows) {
  const cells = [];
  let ok = true;
  for (const w of ['list', 'call']) {
    const cur = r[w];
    const b = baseRow[w];
    const tr = cur.rps / b.rps;
    const p50 = cur.p50 / b.p50;
    const p99 = cur.p99 / b.p99;
    if (r !== baseRow && (tr < 0.9 || p99 > 1.5)) ok = false;
    cells.push(`${cur.rps.toFixed(0)} (${pct(tr)})`, `${ms(cur.p50)} (${ratio(p50)})`, `${ms(cur.p99)} (${ratio(p99)})`);
  }
  const invalid = r.list.invalid + r.list.errors + r.call.invalid + r.call.errors;
  const dRss = r.peakMb - baseRow.peakMb;
  if (invalid > 0 || dRss > 200) ok = false;
  allOk &&= ok;
  console.log(
    `| ${r.attack} | ${cells.join(' | ')} | ${invalid} | ${r.peakMb.toFixed(0)} (${dRss >= 0 ? '+' : ''}${dRss.toFixed(0)}) | ${r === baseRow ? 'baseline' : ok ? 'ok' : 'MISS'} |`,
  );
}
console.log(`\ngateway VmHWM (peak RSS over the whole run): ${hwm.toFixed(0)} MB; load average after: ${load()}`);
console.log('\nWhat X got back (each response checked and bucketed):');
for (const r of rows.slice(1)) {
  console.log(
    `  ${r.attack}: ${
      Object.entries(r.buckets)
        .map(([k, v]) => `${v} × ${k}`)
        .join('; ') || '(nothing completed)'
    }`,
  );
}
for (const r of rows) {
  for (const w of ['list', 'call']) if (r[w].sample) console.log(`  Y ${w} invalid sample under ${r.attack}: ${r[w].sample}`);
}
if (SELECTED.some((a) => a.redis)) allOk = (await floodPhase()) && allOk;
rmSync(dir, { recursive: true, force: true });
cleanup();
process.exit(allOk ? 0 : 1);

/**
 * X's upstream floods 1 MiB progress notifications (FLOOD_CONCURRENCY calls at a time, each
 * asking for progress so every notification is relayed and stored for resumption) on a
 * gateway with Redis, with the default byte budgets. Y is measured before (its own baseline on
 * this gateway) and during; Redis memory is sampled throughout and once more after.
 */
async function floodPhase() {
  gateway.kill('SIGTERM');
  await new Promise((r) => (gateway.exitCode !== null ? r() : gateway.once('exit', r)));
  const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const namespace = `bench-isolation-${process.pid}:`;
  const { gw2, port, url } = await startRedisGateway(redisUrl, namespace);
  const redis = new Redis(redisUrl);
  // The defaults this phase runs with (docs/operations.md "Redis budgets and sizing").
  const tenantBound = 16 * MiB;
  const probe = floodProbes(redis, namespace, gw2.pid);
  wrk(Y_LIST, '"y_shout"', url);
  const cpu0 = await probe.cpu();
  const before = {
    used: await probe.usedMb(),
    x: await probe.xKeysMb(),
    list: wrk(Y_LIST, '"y_shout"', url),
    call: wrk(Y_CALL, 'HELLO', url),
  };
  const cpu1 = await probe.cpu();
  const xClient = await startFloodClient(port);
  const peak = { used: 0, x: 0 };
  const sample = async () => {
    peak.used = Math.max(peak.used, await probe.usedMb());
    peak.x = Math.max(peak.x, await probe.xKeysMb());
  };
  const sampler = setInterval(sample, 250);
  // Measure Y only once X's flood has reached Redis (polled, bounded), not after a fixed pause.
  const floodingBy = Date.now() + 10_000;
  while (peak.x === 0 && Date.now() < floodingBy) await new Promise((r) => setTimeout(r, 50));
  const during = { list: wrk(Y_LIST, '"y_shout"', url), call: wrk(Y_CALL, 'HELLO', url) };
  const cpu2 = await probe.cpu();
  const got = await stopFloodClient(xClient);
  clearInterval(sampler);
  await sample();
  const after = { used: await probe.usedMb(), x: await probe.xKeysMb() };
  const ok = peak.x <= (tenantBound / MiB) * 1.25 && during.list.rps / before.list.rps >= 0.9 && during.call.rps / before.call.rps >= 0.9;
  printFloodTable({ got, before, during, after, peak, tenantBound, cpu: [cpu0, cpu1, cpu2], ok });
  const keys = await redis.keys(`${namespace}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
  gw2.kill('SIGTERM');
  return ok;
}

/** A gateway on Redis (resumable streams, so X's notifications land there), once it lists Y's tools. */
async function startRedisGateway(redisUrl, namespace) {
  const port = await freePort();
  const { child: gw2 } = await start(
    'taskset',
    ['-c', cpuCount() > 1 ? '1' : '0', process.execPath, path.join(root, 'apps/gateway/dist/main.js')],
    // Loopback upstreams are operator configuration here (REDIS_URL turns the SSRF guard on).
    {
      TENANTS_FILE: tenantsFile,
      GATEWAY_PORT: String(port),
      LOG_LEVEL: 'warn',
      CATALOG_SOURCES: 'file',
      REDIS_URL: redisUrl,
      REDIS_NAMESPACE: namespace,
      UPSTREAM_ALLOW_HTTP_HOSTS: '127.0.0.1',
      USAGE_ENABLED: 'false',
    },
    (out) => out.includes('gateway listening on'),
  );
  const url = `http://127.0.0.1:${port}/t/y/mcp`;
  for (let i = 0; ; i++) {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify(Y_LIST),
    });
    if ((await res.text()).includes('"y_shout"')) break;
    if (i > 100) throw new Error('tenant y never listed y_shout on the Redis-backed gateway');
    await new Promise((r) => setTimeout(r, 100));
  }
  return { gw2, port, url };
}

/** X's client in its own process at nice 19 (reading 1 MiB notifications must not take wrk's CPU). */
async function startFloodClient(port) {
  const args = [
    '-n',
    '19',
    'taskset',
    '-c',
    '0',
    process.execPath,
    path.join(here, 'flood-client.mjs'),
    `http://127.0.0.1:${port}/t/x/mcp`,
    process.env.FLOOD_CONCURRENCY ?? '16',
  ];
  const { child } = await start('nice', args, {}, (out) => out.includes('ready'));
  return child;
}

/** Stops X's client and reads the tally it prints on exit. */
function stopFloodClient(xClient) {
  return new Promise((resolve) => {
    let out = '';
    xClient.stdout.on('data', (d) => (out += d));
    xClient.removeAllListeners('exit');
    xClient.once('exit', () => resolve(JSON.parse(out.trim().split('\n').pop())));
    xClient.kill('SIGTERM');
  });
}

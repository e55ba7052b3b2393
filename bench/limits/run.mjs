// bench/limits: the hot-path cost of rate limiting + usage metering (issue 13, item 8).
// One run, side by side: the gateway with limits + metering off vs on (shared Redis limiter,
// usage records batched into the Redis stream), for tools/call (echo) and tools/list.
// wrk is pinned to one core (taskset -c 0), the gateway to the other (taskset -c 1).
// Usage: npm run build && node bench/limits/run.mjs   (BENCH_SECONDS, BENCH_CONNECTIONS)
import { spawn, execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const NS = `bench:limits:${randomUUID()}:`;
const tmp = mkdtempSync(path.join(tmpdir(), 'sb-bench-limits-'));

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });

const BODIES = {
  'tools/call': { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hello' } } },
  'tools/list': { jsonrpc: '2.0', id: 1, method: 'tools/list' },
};

function wrkScript(name, body) {
  const file = path.join(tmp, `${name.replace('/', '-')}.lua`);
  writeFileSync(
    file,
    `wrk.method = "POST"
wrk.body = ${JSON.stringify(JSON.stringify(body))}
wrk.headers["content-type"] = "application/json"
wrk.headers["accept"] = "application/json, text/event-stream"
wrk.headers["mcp-protocol-version"] = "2025-06-18"
local refused = 0
response = function(status, headers, body)
  if status ~= 200 or string.find(body, '"error"') then refused = refused + 1 end
end
done = function(summary, latency, requests) io.write("NON_OK " .. refused .. "\\n") end
`,
  );
  return file;
}

async function startGateway(mode) {
  const port = await freePort();
  const common = {
    GATEWAY_PORT: String(port),
    GATEWAY_HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    CATALOG_SOURCES: 'file',
    TENANTS_FILE: path.join(ROOT, 'config/tenants.yaml'),
  };
  const on = {
    REDIS_URL,
    REDIS_NAMESPACE: NS,
    LIMITS_ENABLED: 'true',
    USAGE_ENABLED: 'true',
    // Limits high enough never to refuse: this measures the cost of deciding, not of refusing.
    LIMITS_TENANT_RPS: '1000000',
    LIMITS_TENANT_BURST: '1000000',
    LIMITS_SUBJECT_RPS: '1000000',
    LIMITS_SUBJECT_BURST: '1000000',
    LIMITS_MAX_TENANT_RPS: '1000000',
    LIMITS_MAX_TENANT_BURST: '1000000',
    LIMITS_MAX_SUBJECT_RPS: '1000000',
    LIMITS_MAX_SUBJECT_BURST: '1000000',
  };
  const off = { LIMITS_ENABLED: 'false', USAGE_ENABLED: 'false' };
  const env = { ...process.env, ...common, ...(mode === 'on' ? on : off) };
  delete env.CHAIN_READER_URL;
  const child = spawn('taskset', ['-c', '1', process.execPath, path.join(ROOT, 'apps/gateway/dist/main.js')], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const url = `http://127.0.0.1:${port}/t/demo/mcp`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const r = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(BODIES['tools/list']),
      });
      if (r.status === 200) break;
    } catch {}
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`gateway (${mode}) did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, stop: () => new Promise((r) => (child.exitCode !== null ? r() : (child.once('exit', r), child.kill('SIGTERM')))) };
}

function wrk(url, script) {
  const out = execFileSync('taskset', ['-c', '0', 'wrk', '-t1', `-c${CONNECTIONS}`, `-d${SECONDS}s`, '--latency', '-s', script, url], {
    encoding: 'utf8',
  });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0);
  const p99 = /99%\s+([\d.]+\w+)/.exec(out)?.[1] ?? '?';
  const nonOk = Number(/NON_OK (\d+)/.exec(out)?.[1] ?? -1);
  return { rps, p99, nonOk };
}

const results = [];
try {
  for (const method of Object.keys(BODIES)) {
    const script = wrkScript(method, BODIES[method]);
    const row = { method };
    // off, on, off, on: interleaved so machine-load drift hits both sides alike; best of two each.
    for (const mode of ['off', 'on', 'off', 'on']) {
      const gw = await startGateway(mode);
      try {
        wrk(gw.url, script); // warm-up (JIT, connections), discarded
        const r = wrk(gw.url, script);
        const prev = row[mode];
        if (!prev || r.rps > prev.rps) row[mode] = r;
      } finally {
        await gw.stop();
      }
    }
    results.push(row);
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
  const r = new Redis(REDIS_URL);
  const keys = await r.keys(`${NS}*`);
  if (keys.length) await r.del(...keys);
  r.disconnect();
}

console.log(
  `\nbench/limits — ${SECONDS}s per run, ${CONNECTIONS} connections, wrk on core 0, gateway on core 1, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}\n`,
);
console.log('| method | off req/s | on req/s | on / off | p99 off | p99 on | non-OK on |');
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const r of results)
  console.log(
    `| ${r.method} | ${r.off.rps.toFixed(0)} | ${r.on.rps.toFixed(0)} | ${((100 * r.on.rps) / r.off.rps).toFixed(1)}% | ${r.off.p99} | ${r.on.p99} | ${r.on.nonOk} |`,
  );

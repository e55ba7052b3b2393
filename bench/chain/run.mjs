// bench/chain — 200 concurrent distinct read_contract_state calls through the gateway and directly
// to the chain-reader, with the old fixed 16 ms Multicall3 window ("before") and the adaptive
// window ("after"), in one run against one local anvil devnet. A JSON-RPC proxy in front of anvil
// counts every eth_call; each request's latency is timed by the client. See README.md.
//
//   npm run bench:chain          (builds first)   or   npx node bench/chain/run.mjs   (after a build)
//
// Env: BENCH_ROUNDS (default 5: each cell's median round is reported), BENCH_N (default 200),
//      BENCH_MAX_WAIT_MS (the "after" window bound, default the app's CHAIN_READER_BATCH_MAX_WAIT_MS),
//      BENCH_UPSTREAM_CONCURRENCY (the gateway's UPSTREAM_MAX_CONCURRENCY, default 256: with the
//      gateway's own 32 in flight + 32 queued per tenant and upstream, 200 concurrent calls from one
//      tenant are partly refused, and held-back calls could not join a batch anyway).
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');
const dist = path.join(ROOT, 'apps/chain-reader/dist');
const GATEWAY_MAIN = path.join(ROOT, 'apps/gateway/dist/main.js');
for (const f of [path.join(dist, 'main.js'), GATEWAY_MAIN]) {
  if (!existsSync(f)) {
    console.error(`${path.relative(ROOT, f)} not found: run npx tsc -b tsconfig.build.json (or npm run bench:chain)`);
    process.exit(1);
  }
}
const { startDevnet } = require(`${dist}/devnet/start-devnet.js`);
const { startCountingProxy } = require(`${dist}/devnet/counting-proxy.js`);
const { devnetChain } = require(`${dist}/chains/devnet-chain.js`);
const { ChainRuntime } = require(`${dist}/chain-runtime.js`);
const { createChainReaderApp } = require(`${dist}/create-app.js`);
const { loadConfig } = require(`${dist}/config.js`);

const N = Number(process.env.BENCH_N ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const PROTOCOL_VERSION = '2025-06-18';
// "after" = the app's defaults; BENCH_MAX_WAIT_MS sets CHAIN_READER_BATCH_MAX_WAIT_MS to show the trade-off.
const defaults = loadConfig(process.env.BENCH_MAX_WAIT_MS ? { CHAIN_READER_BATCH_MAX_WAIT_MS: process.env.BENCH_MAX_WAIT_MS } : {}).batch;
const MODES = [
  { id: 'before', label: 'before: fixed 16 ms window', batch: { wait: 16, maxWait: 16, batchSize: 16_384 } },
  { id: 'after', label: `after: adaptive (idle ${defaults.wait} ms, ≤ ${defaults.maxWait} ms)`, batch: defaults },
];

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

const devnet = await startDevnet({ port: 0 });
const proxy = await startCountingProxy(devnet.rpcUrl);
const tmp = mkdtempSync(path.join(os.tmpdir(), 'bench-chain-'));
const tenantsFile = path.join(tmp, 'tenants.yaml');
// limits.maxInflight: the bench is one tenant sending N calls at once (the gateway's default
// per-tenant cap of 64 would refuse the rest; that limit is not what this bench measures).
writeFileSync(
  tenantsFile,
  `tenants:\n  - id: bench\n    name: Chain bench\n    limits: { maxInflight: ${Math.max(64, N + 56)} }\n    catalogs:\n      - builtin: chain\n`,
);
const children = [];
const cleanup = [];

async function startChainReader(batch) {
  const rt = new ChainRuntime({
    // A long RPC timeout: on a loaded shared machine one aggregate3 can take seconds, and this
    // bench counts calls and latency, it does not test failover.
    chains: { devnet: { ...devnetChain(devnet, [proxy.url]), rpcTimeoutMs: 30_000 } },
    redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    redisPrefix: `cr-bench-${randomUUID().slice(0, 8)}`,
    batch,
    cache: { headTtlMs: 1_000, latestTtlSec: 60, blockTtlSec: 3600, panelTtlSec: 15, immutableTtlSec: 3600 },
  });
  await rt.cache.waitReady(2_000);
  const app = await createChainReaderApp(rt);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.getHttpAdapter().getInstance().server.address();
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      await app.close();
      await rt.close({ purge: true });
    },
  };
}

async function startGateway(chainReaderUrl) {
  const port = await freePort();
  const env = {
    PATH: process.env.PATH,
    GATEWAY_PORT: String(port),
    GATEWAY_HOST: '127.0.0.1',
    TENANTS_FILE: tenantsFile,
    CATALOG_SOURCES: 'file',
    CHAIN_READER_URL: chainReaderUrl,
    UPSTREAM_ALLOW_HTTP_HOSTS: '127.0.0.1,localhost',
    LOG_LEVEL: 'warn',
    UPSTREAM_MAX_CONCURRENCY: process.env.BENCH_UPSTREAM_CONCURRENCY ?? '256',
  };
  const child = spawn(process.execPath, [GATEWAY_MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  child.stdout.on('data', (c) => {
    if (out.length < 20_000) out += c;
  });
  child.stderr.on('data', (c) => {
    if (out.length < 20_000) out += c;
  });
  const url = `http://127.0.0.1:${port}/t/bench/mcp`;
  const deadline = Date.now() + 30_000;
  // Ready when it lists the chain tools (the chain upstream was discovered).
  for (;;) {
    if (child.exitCode !== null) throw new Error(`gateway exited: ${out.slice(-2000)}`);
    const listed = await rpc(url, 'tools/list', {}).catch(() => undefined);
    if (listed?.result?.tools?.some((t) => t.name === 'read_contract_state')) break;
    if (Date.now() > deadline) throw new Error(`gateway not ready in 30 s: ${out.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}

let id = 1;
async function rpc(url, method, params) {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': PROTOCOL_VERSION,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: id++, method, params }),
  });
  const text = await res.text();
  return JSON.parse(text.startsWith('{') ? text : /data: (.*)/.exec(text)[1]);
}

let holderSeed = 1;
/** N reads of distinct holders never read before (so every read is a cache miss). */
async function concurrentReads(url) {
  const holders = Array.from({ length: N }, () => `0x${(holderSeed++).toString(16).padStart(40, '0')}`);
  proxy.reset();
  const t0 = performance.now();
  const lat = await Promise.all(
    holders.map(async (h) => {
      const s = performance.now();
      const body = await rpc(url, 'tools/call', {
        name: 'read_contract_state',
        arguments: { chain: 'devnet', address: devnet.addresses.weth, function_name: 'balanceOf', args: [h] },
      });
      let answer;
      try {
        answer = body.result?.structuredContent ?? JSON.parse(body.result?.content?.[0]?.text ?? 'null');
      } catch {
        answer = undefined;
      }
      if (body.error || body.result?.isError || answer?.result !== '0')
        throw new Error(`bad answer: ${JSON.stringify(body).slice(0, 300)}`);
      return performance.now() - s;
    }),
  );
  const wall = performance.now() - t0;
  lat.sort((a, b) => a - b);
  const q = (p) => lat[Math.min(lat.length - 1, Math.ceil(p * lat.length) - 1)];
  return { eth_call: proxy.count('eth_call'), rpc: proxy.total(), p50: q(0.5), p99: q(0.99), wall };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const rows = [];
try {
  for (const mode of MODES) {
    const cr = await startChainReader(mode.batch);
    cleanup.push(cr.close);
    const gw = await startGateway(cr.url);
    // Warm-up (not counted): connections, JIT, the gateway's upstream session.
    await concurrentReads(gw.url);
    await concurrentReads(cr.url);
    for (const [pathLabel, url] of [
      ['gateway', gw.url],
      ['direct', cr.url],
    ]) {
      const runs = [];
      for (let r = 0; r < ROUNDS; r += 1) runs.push(await concurrentReads(url));
      rows.push({
        mode: mode.label,
        path: pathLabel,
        eth_call: median(runs.map((x) => x.eth_call)),
        eth_call_range: `${Math.min(...runs.map((x) => x.eth_call))}–${Math.max(...runs.map((x) => x.eth_call))}`,
        rpc: median(runs.map((x) => x.rpc)),
        p50: median(runs.map((x) => x.p50)),
        p99: median(runs.map((x) => x.p99)),
        wall: median(runs.map((x) => x.wall)),
      });
    }
    await gw.stop();
    await cr.close();
    cleanup.pop();
  }
} finally {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  for (const f of cleanup) await f().catch(() => undefined);
  await proxy.close();
  await devnet.stop();
  rmSync(tmp, { recursive: true, force: true });
}

const fmt = (ms) => ms.toFixed(1);
console.log(
  `\nchain-reader bench: ${N} concurrent distinct read_contract_state calls, median of ${ROUNDS} rounds (anvil devnet on 127.0.0.1; eth_call counted by a JSON-RPC proxy)\n`,
);
const header = ['window', 'path', 'eth_call (range)', 'JSON-RPC', 'p50 ms', 'p99 ms', 'wall ms'];
const table = rows.map((r) => [r.mode, r.path, `${r.eth_call} (${r.eth_call_range})`, String(r.rpc), fmt(r.p50), fmt(r.p99), fmt(r.wall)]);
const widths = header.map((h, i) => Math.max(h.length, ...table.map((t) => t[i].length)));
console.log(`| ${header.map((h, i) => h.padEnd(widths[i])).join(' | ')} |`);
console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const t of table) console.log(`| ${t.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`);
const before = rows.find((r) => r.path === 'gateway' && r.mode.startsWith('before'));
const after = rows.find((r) => r.path === 'gateway' && r.mode.startsWith('after'));
console.log(
  `\nthrough the gateway: eth_call ${before.eth_call} → ${after.eth_call} (target ≤ 3); p99 ${fmt(before.p99)} → ${fmt(after.p99)} ms = ${(after.p99 / before.p99).toFixed(2)}× (target ≤ 1.5×)`,
);
process.exit(0);

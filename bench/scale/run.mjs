// bench/scale — one gateway serving many tenants, each the 40-tool fixture: boot time, RSS, the
// first tools/list of a cold tenant, and warm tools/list latency with requests spread over every
// tenant (wrk, byte-exact checks). Every gateway is booted first; then each gets the same wrk
// warm-up and the measured windows run in interleaved rounds (medians), so a busy shared machine
// drifts every row alike. See README.md. Run: npx node bench/scale/run.mjs (or npm run bench:scale,
// which builds first).
//
// SCALE_MODE=file: file tenants (TENANTS_FILE), requests spread evenly, 1,000s of tenants.
// SCALE_MODE=registry (default): registry-published tenants seeded into a throw-away database and a private
// Redis, served through the real registry → Redis → gateway path, with a Zipf(1.1) request mix
// (registry-mode.mjs).
//
// Env: SCALE_TENANTS (comma list, default 1,10000,100000; file mode 1,1000,10000), SCALE_DURATION
//      (s of warm load, default 5), SCALE_ROUNDS (default 3), SCALE_WARMUP_REQUESTS (default 20000; file
//      mode: at least every tenant once), SCALE_CONNECTIONS (default 16), SCALE_COLD_SAMPLES (default 200),
//      SCALE_SERVER_CPU / SCALE_LOADGEN_CPU (default 1 / 0), SCALE_GATEWAY_ARGS (extra node args for the gateway).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  bootGateway,
  CONNECTIONS,
  DURATION_S,
  FIXTURE,
  fmt,
  GATEWAY_MAIN,
  LOADGEN_CPU,
  loadColumns,
  measureInterleaved,
  printColumns,
  probe,
  RESULTS_DIR,
  ROOT,
  ROUNDS,
  SERVER_CPU,
  stop,
  tenantId,
  wrkScript,
} from './measure.mjs';

const MODE = process.env.SCALE_MODE ?? 'registry';
const COUNTS = (process.env.SCALE_TENANTS ?? (MODE === 'registry' ? '1,10000,100000' : '1,1000,10000'))
  .split(',')
  .map((s) => Number(s.trim()))
  .filter((n) => Number.isInteger(n) && n > 0);
// The same warm-up for every row (JIT, page cache), and in file mode at least one request per tenant of the largest.
const WARMUP_REQUESTS = Math.max(Number(process.env.SCALE_WARMUP_REQUESTS ?? 20_000), ...(MODE === 'file' ? COUNTS : []));

for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

function tenantsYaml(n) {
  const lines = ['# Written by bench/scale/run.mjs; deleted at the end of the run.', 'tenants:'];
  for (let i = 0; i < n; i++)
    lines.push(`  - id: ${tenantId(i)}`, `    name: Scale tenant ${i}`, '    catalogs:', `      - fixture: ${FIXTURE}`);
  return `${lines.join('\n')}\n`;
}

/**
 * File mode's wrk requests: request k goes to tenant (k × 7919) mod n — 7919 is prime, so any n it
 * does not divide sees every tenant once in n consecutive requests.
 */
const spreadPick = (n) => `path = "/t/s" .. ((counter * 7919) % ${n}) .. "/mcp"`;

async function bootFileGateway(n, tmp) {
  const file = path.join(tmp, `tenants-${n}.yaml`);
  writeFileSync(file, tenantsYaml(n));
  const gw = await bootGateway(n, `gateway-${n}`, { TENANTS_FILE: file, CATALOG_SOURCES: 'file' });
  gw.script = (from) => wrkScript({ expectedFile: gw.expectedFile, from, pick: spreadPick(n) });
  return gw;
}

/**
 * Boots every count's gateway (one at a time, so boots do not share the core), probes each, gives
 * each the same warm-up, then runs ROUNDS interleaved measured windows: every row sees the same
 * drift of a shared machine, and no row measures first requests of cold tenants under load.
 */
async function runFile(tmp) {
  const gws = [];
  try {
    for (const n of COUNTS) {
      const gw = await bootFileGateway(n, tmp);
      gws.push(gw);
      await probe(gw, tmp);
      console.log(`  ${n} tenants: boot ${fmt(gw.row.bootMs / 1000, 1)} s, RSS ${fmt(gw.row.bootRssMb)} MB`);
    }
    measureInterleaved(gws, tmp, () => WARMUP_REQUESTS);
    return gws.map((gw) => gw.row);
  } finally {
    for (const gw of gws) await stop(gw);
  }
}

/** The table, the 10,000-tenant targets and how to read both. */
function printFileRows(rows) {
  const one = rows.find((r) => r.tenants === 1) ?? rows[0];
  printColumns(rows, [
    ['tenants', (r) => fmt(r.tenants)],
    ['boot s', (r) => fmt(r.bootMs / 1000, 1)],
    ['boot CPU s', (r) => fmt(r.bootCpuS, 1)],
    ['RSS boot MB', (r) => fmt(r.bootRssMb)],
    ['RSS after MB', (r) => fmt(r.afterRssMb)],
    ...loadColumns(one),
  ]);
  const big = rows.find((r) => r.tenants === 10_000);
  if (big) {
    const rss = Math.max(big.bootRssMb, big.afterRssMb);
    console.log('\nTargets (10,000 tenants × 40 tools):');
    console.log(`  RSS ≤ 400 MB: ${fmt(rss)} MB — ${rss <= 400 ? 'MET' : 'NOT MET'}`);
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
  if (!existsSync(GATEWAY_MAIN)) throw new Error(`${GATEWAY_MAIN} not found (npm run build)`);
  if (spawnSync('wrk', ['--version']).error) throw new Error('wrk is not installed (apt-get install -y wrk)');
  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  const what = MODE === 'registry' ? 'registry-published tenants (Zipf 1.1)' : 'file tenants';
  console.log(
    `bench/scale: ${what} × ${path.relative(ROOT, FIXTURE) || FIXTURE} (40 tools); gateway on cpu ${SERVER_CPU}, wrk -c${CONNECTIONS} on cpu ${LOADGEN_CPU}: ${fmt(WARMUP_REQUESTS)} warm-up requests, then ${ROUNDS} interleaved rounds of ${DURATION_S}s; load average ${load}`,
  );
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'bench-scale-'));
  let rows;
  try {
    if (MODE === 'registry') {
      const { runRegistry, printRegistryRows } = await import('./registry-mode.mjs');
      rows = await runRegistry(COUNTS, tmp, WARMUP_REQUESTS);
      printRegistryRows(rows, WARMUP_REQUESTS);
    } else if (MODE === 'file') {
      rows = await runFile(tmp);
      printFileRows(rows);
    } else throw new Error(`SCALE_MODE=${MODE}: expected file or registry`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(
    path.join(RESULTS_DIR, MODE === 'registry' ? 'latest-registry.json' : 'latest.json'),
    `${JSON.stringify({ at: new Date().toISOString(), mode: MODE, loadavg: os.loadavg(), rows }, null, 2)}\n`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  main().catch((err) => {
    console.error(`bench/scale failed: ${err.stack ?? err}`);
    process.exit(1);
  });

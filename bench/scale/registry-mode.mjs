// bench/scale's registry mode: per tenant count, a throw-away Postgres database and a private
// redis-server; tenant s0 published through the registry's admin API from a real 40-tool upstream
// and copied in bulk (registry-seed.mjs); the registry booted on that database (its boot
// reconciliation pushes every tenant document to Redis, as after a Redis flush), its periodic
// reconciliation measured, then a gateway reading the registry's Redis, driven by wrk with a
// Zipf(1.1) mix over all tenants (zipf.mjs) in the same interleaved rounds as the file mode.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import pg from 'pg';
import {
  bootGateway,
  cpuSeconds,
  FIXTURE,
  fmt,
  loadColumns,
  measureInterleaved,
  printColumns,
  probe,
  ROOT,
  ROUNDS,
  stop,
  wrkScript,
} from './measure.mjs';
import { createDatabase, LOG_DIR, spawnChild, startRedis } from './registry-procs.mjs';
import { bulkCopy, prefillRedis, secrets, seedFirstTenant } from './registry-seed.mjs';
import { writeSequence, zipfLua, zipfSequence } from './zipf.mjs';

const REGISTRY_MAIN = path.join(ROOT, 'apps', 'registry', 'dist', 'main.js');
/**
 * Period of the registry's Redis verification for the whole run (REGISTRY_REDIS_VERIFY_MS; default the
 * registry's own), and how many periods the idle measurement covers. A shorter period measures faster,
 * but the registry keeps verifying at it while the gateway boots and is loaded.
 */
const RECONCILE_MS = Number(process.env.SCALE_RECONCILE_MS ?? 30_000);
const RECONCILE_PERIODS = Number(process.env.SCALE_RECONCILE_PERIODS ?? 2);
const ZIPF_S = Number(process.env.SCALE_ZIPF_S ?? 1.1);
const ZIPF_SEED = Number(process.env.SCALE_ZIPF_SEED ?? 1);
/** The registry's boot compares every tenant's Redis document with Postgres (and pushes those that differ) before it listens. */
const REGISTRY_BOOT_DEADLINE_MS = Number(process.env.SCALE_REGISTRY_BOOT_S ?? 7200) * 1000;
const REGISTRY_READY = /registry listening on (http:\/\/\S+)/;
/**
 * SCALE_PREFILL=1 (default): the bench writes every copy's document into Redis before the registry
 * boots (as a Redis that kept its data after a registry restart), so the boot compares and pushes
 * none; 0: Redis holds only s0, and the boot pushes the N-1 others (as after a Redis flush).
 */
const PREFILL = process.env.SCALE_PREFILL !== '0';

function registryEnv(row, verifyMs) {
  return {
    PATH: process.env.PATH ?? '',
    DATABASE_URL: row.db.url,
    REGISTRY_PORT: '0',
    REDIS_URL: row.redis.url,
    SECRETS_KEY: row.secrets.secretsKey,
    INTERNAL_TOKEN: row.secrets.internalToken,
    REGISTRY_OPERATOR_KEY: row.secrets.operatorKey,
    REGISTRY_ALLOW_HTTP_HOSTS: '127.0.0.1',
    DISCOVERY_REFRESH_MS: '0',
    REGISTRY_REDIS_VERIFY_MS: String(verifyMs),
    LOG_LEVEL: 'warn',
  };
}

/** The registry's /readyz (its reconciliation stats). */
async function readyz(url) {
  const res = await fetch(`${url}/readyz`);
  return res.json();
}

async function redisFacts(url) {
  const r = new Redis(url, { lazyConnect: true });
  await r.connect();
  try {
    const info = await r.info('memory');
    return { tenants: await r.scard('sb:tenants'), usedMb: Number(/used_memory:(\d+)/.exec(info)[1]) / 1024 / 1024 };
  } finally {
    r.disconnect();
  }
}

/**
 * Seeds `n` tenants into the row's database: s0 through a registry of its own (no periodic
 * verification) and the admin API, then the bulk copies with that registry stopped.
 */
async function seed(row, n, upstreamUrl) {
  const t0 = Date.now();
  const reg = await spawnChild(`registry-seed-${n}`, process.execPath, [REGISTRY_MAIN], registryEnv(row, 0), REGISTRY_READY);
  try {
    row.facts.tools = await seedFirstTenant(reg.match[1], row.secrets.operatorKey, upstreamUrl);
  } finally {
    await reg.stop();
  }
  const t1 = Date.now();
  const { verified, versions } = await bulkCopy(row.db.url, n);
  row.facts.verifiedCopies = verified;
  row.facts.seedApiMs = t1 - t0;
  row.facts.seedSqlMs = Date.now() - t1;
  if (PREFILL) {
    const t2 = Date.now();
    const r = new Redis(row.redis.url, { lazyConnect: true });
    await r.connect();
    try {
      await prefillRedis(r, versions);
    } finally {
      r.disconnect();
    }
    row.facts.prefillMs = Date.now() - t2;
  }
}

/**
 * Boots the registry on the seeded database (spawn to "listening" = its boot reconciliation, which
 * pushes every tenant to Redis) and checks it: every tenant pushed and listed in Redis, and the
 * sampled copies the boot recompiled from their rows found at the seeded version (nothing republished).
 */
async function bootRegistry(row, n) {
  const reg = await spawnChild(
    `registry-${n}`,
    process.execPath,
    [REGISTRY_MAIN],
    registryEnv(row, RECONCILE_MS),
    REGISTRY_READY,
    REGISTRY_BOOT_DEADLINE_MS,
  );
  row.registry = reg;
  row.registryUrl = reg.match[1];
  row.facts.registryBootMs = reg.readyMs;
  row.facts.registryBootCpuS = cpuSeconds(reg.child.pid);
  const boot = (await readyz(row.registryUrl)).reconcile?.lastRun;
  // s0 is in Redis since its publish; the copies too when pre-filled.
  row.facts.bootPushed = boot?.repaired.pushed;
  if (boot?.reason !== 'boot' || boot.repaired.pushed !== (PREFILL ? 0 : n - 1))
    throw new Error(`registry boot reconciliation of ${n} tenants: ${JSON.stringify(boot)} (see results/logs/registry-${n}.log)`);
  if (boot.repaired.outbox !== 0)
    throw new Error(
      `the registry republished ${boot.repaired.outbox} seeded tenant(s): their seeded snapshot version was not what it compiles to`,
    );
  const c = new pg.Client(row.db.url);
  await c.connect();
  const pending = (await c.query('SELECT count(*)::int AS n FROM registry.publish_outbox')).rows[0].n;
  await c.end();
  if (pending !== 0)
    throw new Error(`${pending} seeded tenant(s) still pending after the registry's boot (see results/logs/registry-${n}.log)`);
  const redis = await redisFacts(row.redis.url);
  if (redis.tenants !== n) throw new Error(`Redis lists ${redis.tenants} tenants after the registry's boot, not ${n}`);
}

/**
 * The periodic reconciliation's cost: the registry's CPU over RECONCILE_PERIODS periods of
 * RECONCILE_MS, as a share of one core (every other timer of an idle registry included), and the
 * wall time of its last periodic run.
 */
async function measureReconcile(row) {
  const before = await readyz(row.registryUrl);
  const cpu0 = cpuSeconds(row.registry.child.pid);
  const t0 = Date.now();
  await sleep(RECONCILE_PERIODS * RECONCILE_MS);
  const cpuS = cpuSeconds(row.registry.child.pid) - cpu0;
  const after = await readyz(row.registryUrl);
  const wallS = (Date.now() - t0) / 1000;
  Object.assign(row.facts, {
    reconcileRuns: after.reconcile.runs - before.reconcile.runs,
    reconcileMs: after.reconcile.lastRun?.reason === 'periodic' ? after.reconcile.lastRun.ms : null,
    reconcileCoreShare: cpuS / wallS,
  });
}

async function bootRegistryGateway(row, n, tmp) {
  const gw = await bootGateway(n, `gateway-registry-${n}`, {
    CATALOG_SOURCES: 'registry',
    REDIS_URL: row.redis.url,
    REGISTRY_URL: row.registryUrl,
    INTERNAL_TOKEN: row.secrets.internalToken,
    SECRETS_KEY: row.secrets.secretsKey,
    // The limiter runs (Redis buckets) but never refuses: the 1-tenant row sends every request to one tenant, from one caller.
    LIMITS_TENANT_RPS: '1000000',
    LIMITS_TENANT_BURST: '1000000',
    LIMITS_MAX_TENANT_RPS: '1000000',
    LIMITS_MAX_TENANT_BURST: '1000000',
    LIMITS_SUBJECT_RPS: '1000000',
    LIMITS_SUBJECT_BURST: '1000000',
    LIMITS_MAX_SUBJECT_RPS: '1000000',
    LIMITS_MAX_SUBJECT_BURST: '1000000',
    // Cold look-ups unthrottled unless the caller says otherwise: the cold columns measure a first fetch, not the shedding.
    GATEWAY_TENANT_FETCH_PER_SEC: process.env.GATEWAY_TENANT_FETCH_PER_SEC ?? '100000',
  });
  const seqFile = path.join(tmp, `zipf-${n}.txt`);
  row.facts.zipfTenants = writeSequence(seqFile, zipfSequence(n, row.sequenceLength, ZIPF_S, ZIPF_SEED));
  const lua = zipfLua(seqFile);
  gw.script = (from) => wrkScript({ expectedFile: gw.expectedFile, from, ...lua });
  return gw;
}

/** One count's processes, seeded, checked and measured up to the gateway's cold probe. */
async function prepareRow(rows, n, tmp, upstreamUrl, sequenceLength) {
  const row = { n, facts: { tenants: n }, secrets: secrets(), sequenceLength };
  rows.push(row);
  row.redis = await startRedis(`redis-${n}`);
  row.db = await createDatabase();
  await seed(row, n, upstreamUrl);
  const { seedApiMs, seedSqlMs, prefillMs } = row.facts;
  console.log(
    `  ${fmt(n)} tenants: seeded in ${fmt(seedApiMs / 1000, 1)} s (API) + ${fmt(seedSqlMs / 1000, 1)} s (SQL copies)${prefillMs === undefined ? '' : ` + ${fmt(prefillMs / 1000, 1)} s (Redis pre-fill)`}`,
  );
  await bootRegistry(row, n);
  await measureReconcile(row);
  row.facts.pgMb = await row.db.sizeMb();
  const { registryBootMs, reconcileCoreShare, bootPushed } = row.facts;
  console.log(
    `  ${fmt(n)} tenants: registry boot (compare every tenant, ${fmt(bootPushed)} pushed) ${fmt(registryBootMs / 1000, 1)} s, reconcile ${fmt(reconcileCoreShare * 100, 1)}% of a core`,
  );
  row.gw = await bootRegistryGateway(row, n, tmp);
  try {
    await probe(row.gw, tmp);
  } catch (err) {
    // A gateway that booted without its tenants (e.g. one MGET of every document timing out) is a
    // result, not a crash of the bench: the row says why, and the other rows are still measured.
    row.gw.row.failed = `${err.message.split('\n')[0]}${gatewayWarnings(n)}`;
    console.log(`  ${fmt(n)} tenants: NOT SERVED — ${row.gw.row.failed}`);
    return;
  }
  const { bootMs, bootRssMb, coldP99Ms } = row.gw.row;
  console.log(`  ${fmt(n)} tenants: gateway boot ${fmt(bootMs / 1000, 2)} s, RSS ${fmt(bootRssMb)} MB, cold p99 ${fmt(coldP99Ms, 2)} ms`);
}

/** The distinct warnings of the row's gateway log (why it has no tenants), as a suffix. */
function gatewayWarnings(n) {
  const log = readFileSync(path.join(LOG_DIR, `gateway-registry-${n}.log`), 'utf8');
  const messages = new Set();
  for (const line of log.split('\n')) {
    const m = /"err":"([^"]*)","msg":"([^"]*)"/.exec(line);
    if (m) messages.add(`${m[2]}: ${m[1]}`);
  }
  return messages.size ? ` (gateway log: ${[...messages].join('; ')})` : '';
}

async function teardown(rows, upstream) {
  for (const row of rows) {
    if (row.gw) await stop(row.gw);
    if (row.registry) await row.registry.stop();
    if (row.redis) await row.redis.stop();
    if (row.db) await row.db.drop();
  }
  if (upstream) await upstream.stop();
}

/**
 * Every count's row prepared one at a time (seeding and boots do not share the machine), then the
 * same Zipf warm-up for each (`warmupRequests`, the sequence's whole length, so the measured
 * windows, which replay it from the start, ask only tenants asked before) and ROUNDS interleaved windows.
 */
export async function runRegistry(counts, tmp, warmupRequests) {
  const rows = [];
  let upstream;
  try {
    upstream = await spawnChild(
      'upstream',
      process.execPath,
      [path.join(ROOT, 'bench', 'gateway', 'sdk-server.mjs')],
      { ...process.env, PORT: '0', HOST: '127.0.0.1', FIXTURE },
      /listening on (http:\/\/\S+)/,
      60_000,
    );
    for (const n of counts) await prepareRow(rows, n, tmp, `${upstream.match[1]}/mcp`, warmupRequests);
    measureInterleaved(
      rows.filter((r) => !r.gw.row.failed).map((r) => r.gw),
      tmp,
      () => warmupRequests,
    );
    for (const row of rows) {
      row.facts.redisMb = (await redisFacts(row.redis.url)).usedMb;
      Object.assign(row.gw.row, row.facts);
    }
    return rows.map((r) => r.gw.row);
  } finally {
    await teardown(rows, upstream);
  }
}

/** The table, the targets of issue #49 for the largest count, and how to read both. */
export function printRegistryRows(rows, warmupRequests) {
  const one = rows.find((r) => r.tenants === 1) ?? rows[0];
  printColumns(rows, [
    ['tenants', (r) => fmt(r.tenants)],
    ['seed s (API + SQL)', (r) => `${fmt(r.seedApiMs / 1000, 1)} + ${fmt(r.seedSqlMs / 1000, 1)}`],
    ['prefill s', (r) => (r.prefillMs === undefined ? '—' : fmt(r.prefillMs / 1000, 1))],
    ['registry boot s', (r) => fmt(r.registryBootMs / 1000, 1)],
    ['boot CPU s (reg)', (r) => fmt(r.registryBootCpuS, 1)],
    ['boot pushed', (r) => fmt(r.bootPushed)],
    ['reconcile ms', (r) => fmt(r.reconcileMs)],
    ['reconcile % core', (r) => fmt(r.reconcileCoreShare * 100, 1)],
    ['Redis MB', (r) => fmt(r.redisMb)],
    ['PG MB', (r) => fmt(r.pgMb)],
    ['gw boot s', (r) => fmt(r.bootMs / 1000, 2)],
    ['boot CPU s', (r) => fmt(r.bootCpuS, 1)],
    ['RSS rest MB', (r) => fmt(r.bootRssMb)],
    ['RSS after MB', (r) => fmt(r.afterRssMb)],
    ['Zipf tenants', (r) => fmt(r.zipfTenants)],
    ...loadColumns(one),
  ]);
  for (const r of rows.filter((x) => x.failed)) console.log(`\n${fmt(r.tenants)} tenants NOT SERVED: ${r.failed}`);
  printTargets(
    rows.reduce((a, b) => (b.tenants > a.tenants ? b : a)),
    one,
  );
  console.log(
    "\nseed = s0 through the admin API + the bulk SQL copies; prefill = the copies' documents written to Redis by the bench;\n" +
      'registry boot = spawn to listening (its boot reconciliation compared every tenant with Redis and pushed those that differed);\n' +
      `reconcile = the registry's CPU over ${RECONCILE_PERIODS} periods of ${fmt(RECONCILE_MS / 1000)} s (REGISTRY_REDIS_VERIFY_MS), idle\n` +
      "timers included, and its last periodic run's wall ms; Redis MB = used_memory after the load; PG MB = pg_database_size.\n" +
      'gw boot = gateway spawn to /healthz 200; RSS rest = settled after boot; cold = first tools/list of sampled tenants, one at a\n' +
      `time, before any load; load = wrk, Zipf(${ZIPF_S}) over all tenants (Zipf tenants = distinct tenants in its ${fmt(warmupRequests)}-request\n` +
      `sequence), after a warm-up that asked the whole sequence; medians of ${ROUNDS} interleaved rounds. The machine is shared: compare rows.`,
  );
}

function printTargets(big, one) {
  const rss = Math.max(big.bootRssMb, big.afterRssMb);
  const p50 = big.loadP50Ms / one.loadP50Ms;
  const met = (ok) => (ok ? 'MET' : 'NOT MET');
  console.log(`\nTargets (issue #49, ${fmt(big.tenants)} registry tenants × 40 tools):`);
  console.log(`  gateway RSS ≤ 600 MB after load: ${fmt(rss)} MB — ${met(rss <= 600)}`);
  console.log(
    `  gateway boot ≤ 3 s: ${fmt(big.bootMs / 1000, 2)} s (1 tenant: ${fmt(one.bootMs / 1000, 2)} s) — ${met(big.bootMs <= 3000)}`,
  );
  console.log(`  warm p50 within 10% of the 1-tenant gateway (Zipf load): ×${fmt(p50, 2)} — ${met(p50 <= 1.1)}`);
  console.log(`  cold first-request p99 ≤ 25 ms: ${fmt(big.coldP99Ms, 2)} ms — ${met(big.coldP99Ms <= 25)}`);
  console.log(`  reconcile ≤ 5% of one registry core: ${fmt(big.reconcileCoreShare * 100, 1)}% — ${met(big.reconcileCoreShare <= 0.05)}`);
}

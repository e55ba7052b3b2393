#!/usr/bin/env node
// Runs the official MCP conformance suites against the gateway's `conformance` tenant (`npm run
// conformance`, after `npm run build`; `npm test` builds first), on two topologies: `single` (one
// gateway) and `pair` (two gateways behind a loopback round-robin TCP proxy that alternates per
// connection, sharing GATEWAY_STATE_KEYS and Redis, so a client's follow-up POST (an answer to an
// elicitation) often lands on the other replica). For each: starts `node apps/gateway/dist/main.js`, then runs, one after
// the other, against http://127.0.0.1:<port>/t/conformance/mcp:
//   stable            conformance 0.1.16 (node_modules/conformance-stable), active suite
//   next-2025-11-25   conformance 0.2.0-alpha.12 (node_modules/conformance-next), --requirements 2025-11-25
//   next-2026-07-28   the same, --requirements 2026-07-28, also counting the tasks extension's
//                     server scenarios (`tasks-*`, which the suite runs but does not score)
// each with its baseline from conformance/ (only what a stateless server cannot do; see
// conformance/README.md). Results go to results/conformance/<run>/ (one folder per scenario
// with checks.json, plus suite.log). Exits non-zero when any run fails its baseline.
// Environment: CONFORMANCE_RUNS=stable,next-2026-07-28 limits the runs;
// CONFORMANCE_TOPOLOGIES=single (or pair) limits the topologies; CONFORMANCE_VERBOSE=1 streams
// the suites' own output. The pair topology uses Redis at REDIS_URL (default
// redis://127.0.0.1:6379) under a namespace of its own.
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, mkdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { roundRobinProxy } from './round-robin-proxy.cjs';
import { explainHints } from './explain-hints.cjs';
import { setTimeout as sleep } from 'node:timers/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const GATEWAY_ENTRY = join(ROOT, 'apps/gateway/dist/main.js');
const RESULTS_ROOT = join(ROOT, 'results/conformance');
const TENANT_PATH = '/t/conformance/mcp';
const GATEWAY_START_TIMEOUT_MS = 20_000;
/** A whole suite run may not take longer than this (a hung scenario must not hang CI). */
const RUN_TIMEOUT_MS = 240_000;

const RUNS = [
  {
    id: 'stable',
    label: 'conformance 0.1.16, active suite',
    entry: 'node_modules/conformance-stable/dist/index.js',
    args: [],
    baseline: 'conformance/expected-failures-0.1.16.yml',
  },
  {
    id: 'next-2025-11-25',
    label: 'conformance 0.2.0-alpha.12, --requirements 2025-11-25',
    entry: 'node_modules/conformance-next/dist/index.js',
    args: ['--requirements', '2025-11-25', '--timeout', '15000'],
    baseline: 'conformance/expected-failures-next-2025-11-25.yml',
  },
  {
    id: 'next-2026-07-28',
    label: 'conformance 0.2.0-alpha.12, --requirements 2026-07-28',
    entry: 'node_modules/conformance-next/dist/index.js',
    args: ['--requirements', '2026-07-28', '--timeout', '15000'],
    baseline: 'conformance/expected-failures-next-2026-07-28.yml',
    // The gateway implements the tasks extension (io.modelcontextprotocol/tasks, SEP-2663): its
    // server scenarios (`tasks-*`, not scored by the suite) count here like the scored ones.
    scoreExtensions: ['tasks-'],
  },
];

const verbose = process.env.CONFORMANCE_VERBOSE === '1';
/** Children to kill if this script is interrupted (the gateway, the running suite). */
const children = new Set();
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    for (const child of children) child.kill('SIGKILL');
    process.exit(130);
  });
}

async function main() {
  const only = process.env.CONFORMANCE_RUNS?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const runs = only ? RUNS.filter((r) => only.includes(r.id)) : RUNS;
  if (runs.length === 0) throw new Error(`CONFORMANCE_RUNS matches no run (known: ${RUNS.map((r) => r.id).join(', ')})`);
  if (!existsSync(GATEWAY_ENTRY)) throw new Error(`${GATEWAY_ENTRY} is missing: run \`npm run build\` first`);
  for (const run of runs) {
    if (!existsSync(join(ROOT, run.entry))) throw new Error(`${run.entry} is missing (npm dependency of the root package)`);
  }

  // The suites (and the Inspector-style clients they embed) may write under $HOME: keep that out of the real one.
  const home = mkdtempSync(join(tmpdir(), 'switchboard-conformance-'));
  const topologies = (process.env.CONFORMANCE_TOPOLOGIES ?? 'single,pair')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  const results = [];
  const started = Date.now();
  const urls = [];
  try {
    for (const topology of topologies) {
      if (topology !== 'single' && topology !== 'pair')
        throw new Error(`CONFORMANCE_TOPOLOGIES: unknown topology ${topology} (single, pair)`);
      const stack = topology === 'single' ? await startSingle(home) : await startPair(home);
      urls.push(`${topology} ${stack.url}`);
      try {
        for (const run of runs) results.push({ ...(await runSuite(run, stack.url, home, topology)), topology });
      } finally {
        await stack.stop();
      }
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  console.log(`\nConformance summary (${((Date.now() - started) / 1000).toFixed(1)} s; ${urls.join('; ')})`);
  for (const r of results) {
    const verdict = r.ok ? 'OK  ' : 'FAIL';
    console.log(
      `  ${verdict} ${r.topology.padEnd(6)} ${r.run.id.padEnd(16)} ${String(r.passed).padStart(3)} passed, ${String(r.failed).padStart(3)} failed ` +
        `(${r.expected.length} expected) of ${r.total} scenarios; exit ${r.code}${r.timedOut ? ' (timed out)' : ''}`,
    );
    if (r.unexpected.length > 0) console.log(`       unexpected failures: ${r.unexpected.join(', ')}`);
    for (const hint of r.hints) console.log(`       ${hint}`);
    if (r.stale.length > 0) console.log(`       listed as expected but passed (stale): ${r.stale.join(', ')}`);
    if (r.missing.length > 0) console.log(`       scored but produced no result: ${r.missing.join(', ')}`);
    if (r.extensions.length > 0)
      console.log(
        `       of which extension scenarios (counted here): ${r.extensions.filter((s) => s.passed).length}/${r.extensions.length} passed`,
      );
    if (r.notScored.length > 0) {
      const failing = r.notScored.filter((s) => !s.passed).map((s) => s.name);
      console.log(
        `       not scored (extension/pending): ${r.notScored.length - failing.length}/${r.notScored.length} passed${failing.length ? `; failing: ${failing.join(', ')}` : ''}`,
      );
    }
    if (r.total === 0) console.log(`       no scenario results were written; see ${r.log}`);
  }
  if (results.some((r) => !r.ok)) {
    console.log(`\nDetails: results/conformance/<run>/suite.log and <scenario>/checks.json`);
    process.exitCode = 1;
  }
}

/** One gateway on a free port. */
async function startSingle(home) {
  const port = await freePort();
  const gateway = await startGateway(port, home, {});
  return { url: `http://127.0.0.1:${port}${TENANT_PATH}`, stop: () => stopGateway(gateway) };
}

/**
 * Two gateways that share their state keys and Redis (the server-to-client relay), behind a
 * round-robin TCP proxy: each new client connection goes to the next gateway in turn.
 */
async function startPair(home) {
  const shared = {
    GATEWAY_STATE_KEYS: randomBytes(32).toString('base64'),
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_NAMESPACE: `conformance-${process.pid}-${randomBytes(3).toString('hex')}:`,
    CATALOG_SOURCES: 'file',
  };
  const ports = [await freePort(), await freePort()];
  const gateways = [];
  try {
    for (const [i, port] of ports.entries())
      gateways.push(await startGateway(port, home, { ...shared, GATEWAY_REPLICA_ID: `replica-${i}` }));
  } catch (err) {
    await Promise.all(gateways.map(stopGateway));
    throw err;
  }
  const proxy = await roundRobinProxy(ports);
  return {
    url: `http://127.0.0.1:${proxy.port}${TENANT_PATH}`,
    stop: async () => {
      await proxy.close();
      await Promise.all(gateways.map(stopGateway));
    },
  };
}

/** Asks the OS for a free loopback port (closed again before the gateway binds it). */
function freePort() {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Starts the gateway and resolves once it prints its listening line (or /healthz answers). */
async function startGateway(port, home, extraEnv) {
  const child = spawn(process.execPath, [GATEWAY_ENTRY], {
    cwd: ROOT,
    env: {
      ...process.env,
      HOME: home,
      GATEWAY_PORT: String(port),
      GATEWAY_HOST: '127.0.0.1',
      TENANTS_FILE: 'config/tenants.yaml',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let output = '';
  let listening = false;
  const onData = (chunk) => {
    const text = chunk.toString();
    output += text;
    if (output.length > 64_000) output = output.slice(-32_000);
    if (/gateway listening on http:\/\//.test(output)) listening = true;
    if (verbose) process.stderr.write(`[gateway] ${text}`);
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  let exited = null;
  child.once('exit', (code, signal) => (exited = { code, signal }));

  const deadline = Date.now() + GATEWAY_START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (exited) throw new Error(`gateway exited during start-up (${JSON.stringify(exited)}):\n${output}`);
    if (listening || (await healthy(port))) return child;
    await sleep(100);
  }
  await stopGateway(child);
  throw new Error(`gateway did not start within ${GATEWAY_START_TIMEOUT_MS} ms:\n${output}`);
}

async function healthy(port) {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(1000) });
    return res.ok;
  } catch {
    return false;
  }
}

/** SIGTERM, then SIGKILL if the gateway is still there after 5 s. */
async function stopGateway(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await gone;
  clearTimeout(timer);
}

/** Runs one suite with its baseline; resolves with the per-scenario outcome read from checks.json. */
async function runSuite(run, url, home, topology) {
  const outDir = join(RESULTS_ROOT, topology, run.id);
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const logPath = join(outDir, 'suite.log');
  const log = createWriteStream(logPath);
  const args = [join(ROOT, run.entry), 'server', '--url', url, ...run.args, '--expected-failures', join(ROOT, run.baseline), '-o', outDir];
  console.log(`\n▶ ${topology} · ${run.id}: ${run.label}`);
  const revisionScored = await scoredScenarios(run, home);
  // Extension scenarios this run counts too (named in the revision's requirements as `reason: extension`).
  const extensionNames =
    revisionScored && run.scoreExtensions
      ? extensionScenarios(run).filter((n) => run.scoreExtensions.some((prefix) => n.startsWith(prefix)))
      : [];
  const scored = revisionScored ? [...revisionScored, ...extensionNames] : undefined;
  const t0 = Date.now();
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  for (const stream of [child.stdout, child.stderr]) {
    stream.on('data', (chunk) => {
      log.write(chunk);
      if (verbose) process.stdout.write(chunk);
    });
  }
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, RUN_TIMEOUT_MS);
  const code = await new Promise((r) => child.once('close', (c) => r(c ?? 1)));
  clearTimeout(timer);
  await new Promise((r) => log.end(r));

  const expectedList = readBaseline(join(ROOT, run.baseline));
  const all = readScenarioResults(outDir);
  const scoredSet = scored ? new Set(scored) : undefined;
  const scenarios = scoredSet ? all.filter((s) => scoredSet.has(s.name)) : all;
  const notScored = scoredSet ? all.filter((s) => !scoredSet.has(s.name)) : [];
  const extensions = all.filter((s) => extensionNames.includes(s.name));
  const failedNames = scenarios.filter((s) => !s.passed).map((s) => s.name);
  const expected = failedNames.filter((n) => expectedList.includes(n));
  const unexpected = failedNames.filter((n) => !expectedList.includes(n));
  const stale = expectedList.filter((n) => scenarios.some((s) => s.name === n && s.passed));
  const missing = scoredSet ? [...scoredSet].filter((n) => !all.some((s) => s.name === n)) : [];
  // The suite's exit code covers what it scores; the extension scenarios counted here need their own check.
  const ok = code === 0 && !timedOut && scenarios.length > 0 && missing.length === 0 && unexpected.length === 0;
  console.log(
    `  ${ok ? 'ok' : 'FAILED'} in ${((Date.now() - t0) / 1000).toFixed(1)} s: ` +
      `${scenarios.length - failedNames.length}/${scenarios.length} scenarios passed` +
      (failedNames.length ? `; failed: ${failedNames.map((n) => (expectedList.includes(n) ? `${n} (expected)` : n)).join(', ')}` : '') +
      (notScored.length ? `; not scored by the suite: ${notScored.filter((s) => s.passed).length}/${notScored.length} passed` : ''),
  );
  return {
    run,
    code,
    timedOut,
    ok,
    log: logPath,
    total: scenarios.length,
    passed: scenarios.length - failedNames.length,
    failed: failedNames.length,
    expected,
    unexpected,
    stale,
    missing,
    notScored,
    extensions,
    hints: scenarios.filter((s) => unexpected.includes(s.name)).flatMap((s) => s.hints),
  };
}

/** Server scenarios the revision's requirements file lists as not scored because they belong to an extension. */
function extensionScenarios(run) {
  const i = run.args.indexOf('--requirements');
  const file = join(ROOT, dirname(dirname(run.entry)), 'requirements', `${run.args[i + 1]}.yaml`);
  const doc = parseYaml(readFileSync(file, 'utf8')) ?? {};
  const list = Array.isArray(doc.not_scored) ? doc.not_scored : [];
  return list.filter((e) => e && e.leg === 'server' && e.reason === 'extension' && typeof e.scenario === 'string').map((e) => e.scenario);
}

/**
 * Per-scenario outcome with the suites' baseline semantics: a scenario passes only when none
 * of its checks is FAILURE or WARNING. Folders are `server-<scenario>-<ISO timestamp>`.
 */
function readScenarioResults(outDir) {
  const out = [];
  for (const entry of readdirSync(outDir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const file = join(outDir, entry.name, 'checks.json');
    if (!existsSync(file)) continue;
    const name = entry.name.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '');
    let checks;
    try {
      checks = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      checks = [{ status: 'FAILURE' }];
    }
    const passed = Array.isArray(checks) && !checks.some((c) => c.status === 'FAILURE' || c.status === 'WARNING');
    out.push({ name, passed, hints: passed ? [] : explainHints(checks, name) });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** Scenario names under `server:` in a baseline file. */
function readBaseline(path) {
  const doc = parseYaml(readFileSync(path, 'utf8')) ?? {};
  const list = doc.server ?? [];
  if (!Array.isArray(list) || !list.every((n) => typeof n === 'string'))
    throw new Error(`${path}: server must be a list of scenario names`);
  return list;
}

/**
 * The server scenarios a `--requirements` revision scores (the alpha suite also runs
 * extension and pending scenarios, reported but never scored); undefined for other runs.
 */
async function scoredScenarios(run, home) {
  const i = run.args.indexOf('--requirements');
  if (i === -1) return undefined;
  const { code, output } = await capture(process.execPath, [join(ROOT, run.entry), 'list', '--requirements', run.args[i + 1]], home);
  if (code !== 0) throw new Error(`conformance list failed for ${run.id}:\n${output}`);
  // `list` prints "Server scenarios …:" then "  - name" lines, then other sections.
  const names = [];
  let inServer = false;
  for (const line of output.split('\n')) {
    const item = line.match(/^\s+-\s+(\S+)/);
    if (item) {
      if (inServer) names.push(item[1]);
    } else if (line.trim() !== '') {
      inServer = /^Server scenarios/.test(line.trim());
    }
  }
  return names;
}

function capture(cmd, args, home) {
  return new Promise((resolveRun) => {
    const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    child.once('close', (code) => resolveRun({ code: code ?? 1, output }));
  });
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});

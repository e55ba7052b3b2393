// Time from `npm start` (scripts/start.mjs) to a served `tools/list` of the demo tenant, on free
// ports with a private redis-server (so it never meets another run's queues), then stops it.
//
//   node bench/scale/npm-start.mjs            warm: whatever the tree's build state is
//   node bench/scale/npm-start.mjs --cold     removes every dist/ and tsbuildinfo first (a cold build)
//   … --until-running                          also waits for every service ("Switchboard is running")
//
// Prints the progress lines start.mjs writes (prefixed with their time since spawn) and a summary;
// every line goes to bench/scale/results/logs/npm-start.log.
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const DEADLINE_MS = 600_000;
const cold = process.argv.includes('--cold');
// Also wait for start.mjs's "Switchboard is running" (every service ready) and report that time too.
const untilRunning = process.argv.includes('--until-running');
let runningAfter;

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function served(url) {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}',
      signal: AbortSignal.timeout(2_000),
    });
    const body = await res.text();
    return res.status === 200 && body.includes('"tools"');
  } catch {
    return false;
  }
}

if (cold) {
  // Every build output tsc -b and vite write, so nothing is up to date.
  const outputs = spawnSync('git', ['ls-files', '--others', '--ignored', '--exclude-standard', '--directory', 'apps', 'libs'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .stdout.split('\n')
    .filter((p) => /(^|\/)dist\/$|\.tsbuildinfo$/.test(p));
  for (const p of outputs) rmSync(path.join(ROOT, p), { recursive: true, force: true });
  console.log(`cold: removed ${outputs.length} build outputs`);
}

const [gateway, registry, auth, chain, pg, redisPort] = await Promise.all([
  freePort(),
  freePort(),
  freePort(),
  freePort(),
  freePort(),
  freePort(),
]);
const redisDir = mkdtempSync(path.join(os.tmpdir(), 'npm-start-redis-'));
const redis = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--dir', redisDir, '--save', ''], {
  stdio: 'ignore',
});
const env = {
  ...process.env,
  GATEWAY_PORT: String(gateway),
  REGISTRY_PORT: String(registry),
  AUTH_PORT: String(auth),
  CHAIN_READER_PORT: String(chain),
  REGISTRY_EMBEDDED_PG_PORT: String(pg),
  REDIS_URL: `redis://127.0.0.1:${redisPort}`,
};
const t0 = Date.now();
const since = () => ((Date.now() - t0) / 1000).toFixed(1).padStart(6);
const child = spawn(process.execPath, [path.join(ROOT, 'scripts/start.mjs')], {
  cwd: ROOT,
  env,
  stdio: ['ignore', 'pipe', 'pipe'],
  detached: true,
});
const LOG = path.join(ROOT, 'bench/scale/results/logs/npm-start.log');
mkdirSync(path.dirname(LOG), { recursive: true });
writeFileSync(LOG, '');
const echo = (chunk) => {
  for (const line of chunk.toString().split('\n')) {
    if (!line.trim()) continue;
    appendFileSync(LOG, `${since()} s  ${line}\n`);
    if (line.startsWith('Switchboard is running')) runningAfter ??= since().trim();
    if (/npm start|ready in|Switchboard is running|failed/.test(line) && !line.includes('"level"')) console.log(`${since()} s  ${line}`);
  }
};
child.stdout.on('data', echo);
child.stderr.on('data', echo);
const url = `http://127.0.0.1:${gateway}/t/demo/mcp`;
let result = 'not served';
try {
  while (Date.now() - t0 < DEADLINE_MS && child.exitCode === null) {
    if (await served(url)) {
      result = `served tools/list after ${since().trim()} s`;
      break;
    }
    await sleep(100);
  }
  while (untilRunning && runningAfter === undefined && Date.now() - t0 < DEADLINE_MS && child.exitCode === null) await sleep(200);
} finally {
  process.kill(-child.pid, 'SIGTERM');
  await Promise.race([new Promise((r) => child.once('exit', r)), sleep(15_000)]);
  if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid, 'SIGKILL');
  redis.kill('SIGTERM');
  rmSync(redisDir, { recursive: true, force: true });
}
console.log(`npm start (${cold ? 'cold build' : 'warm'}): ${result}${runningAfter ? `; every service ready after ${runningAfter} s` : ''}`);

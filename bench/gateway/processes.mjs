// bench/gateway: the processes a run starts (servers pinned with taskset, wrk), their CPU from
// /proc, and stopping them all on exit or a signal. `state.tmpDir` is removed on interruption.
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { settledRssMb } from '../rss.mjs';

/** Where servers run and log: set once by run.mjs before anything starts. */
export const settings = { root: '', resultsDir: '', host: '127.0.0.1', serverCpu: '1', startDeadlineMs: 60_000 };
export const state = { tmpDir: null, interrupted: false };
export const children = new Set();
export function killChild(child, signal) {
  try {
    child.kill(signal);
  } catch {
    /* already gone */
  }
}

export async function stopChild(child) {
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
    if (state.interrupted) return;
    state.interrupted = true;
    console.error(`\n${signal}: stopping load and servers`);
    Promise.allSettled([...children].map(stopChild)).finally(() => {
      if (state.tmpDir) rmSync(state.tmpDir, { recursive: true, force: true });
      process.exit(130);
    });
  });
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, settings.host, () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** CPU seconds (utime + stime) a process has used so far, from /proc/<pid>/stat; null where unavailable. */
export function processCpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // USER_HZ = 100
  } catch {
    return null;
  }
}

/**
 * Machine-wide CPU seconds (all cores) from /proc/stat: `busy` = user + nice + system + steal;
 * `steal` = time a vCPU was ready but the hypervisor ran other guests (a VM's noise no process
 * here causes, and not in any process's utime/stime). `cores` has each core's busy seconds
 * (`cpuN` lines), so a cell can say whether the load generator's core was the bottleneck.
 */
export function machineCpuSeconds() {
  try {
    const lines = readFileSync('/proc/stat', 'utf8').split('\n');
    const fields = (line) => line.trim().split(/\s+/).slice(1).map(Number);
    const f = fields(lines[0]);
    const steal = (f[7] ?? 0) / 100;
    // Per core, busy is everything but idle and iowait: loopback traffic's softirq work is in no
    // process's time, and on wrk's core it is a good part of what the load generator costs.
    const cores = {};
    for (const line of lines) {
      const m = /^cpu(\d+)\s/.exec(line);
      if (!m) continue;
      const c = fields(line);
      cores[m[1]] = { busy: (c[0] + c[1] + c[2] + (c[5] ?? 0) + (c[6] ?? 0) + (c[7] ?? 0)) / 100 };
    }
    return { busy: (f[0] + f[1] + f[2]) / 100 + steal, steal, cores };
  } catch {
    return null;
  }
}

export async function healthy(baseUrl) {
  try {
    const res = await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(1000) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

/** Moves a running process (all its threads) to `cpu`. */
export function pinProcess(pid, cpu) {
  const r = spawnSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`taskset -a -p -c ${cpu} ${pid} failed: ${(r.stderr || r.stdout || '').trim()}`);
}

/**
 * Starts `node <args>` pinned to the server core and waits for its listening line and /healthz.
 * `wrap` is a command node runs under (callgrind.mjs: valgrind), which execs in the same pid.
 */
export async function startServer(id, args, env, cpu = settings.serverCpu, { wrap = [] } = {}) {
  const port = await freePort();
  mkdirSync(path.join(settings.resultsDir, 'logs'), { recursive: true });
  const logPath = path.join(settings.resultsDir, 'logs', `${id}.log`);
  const log = createWriteStream(logPath);
  // taskset execs node, so the child's pid is node's (for /proc sampling).
  const child = spawn('taskset', ['-c', cpu, ...wrap, process.execPath, ...args], {
    cwd: settings.root,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
      ...env,
      PORT: String(port),
      GATEWAY_PORT: String(port),
      HOST: settings.host,
      GATEWAY_HOST: settings.host,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const tail = [];
  let listening = false;
  const onData = (chunk) => {
    log.write(chunk);
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      if (line.includes(`listening on http://${settings.host}:`) || line.includes(`:${port}`)) listening = true;
      tail.push(line);
      if (tail.length > 15) tail.shift();
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const baseUrl = `http://${settings.host}:${port}`;
  const deadline = Date.now() + settings.startDeadlineMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `${id} exited (${child.exitCode ?? child.signalCode}) before it was ready (log: ${path.relative(settings.root, logPath)})\n${tail.join('\n')}`,
      );
    }
    if ((listening || id.startsWith('gateway')) && (await healthy(baseUrl))) break;
    if (Date.now() > deadline) {
      await stopChild(child);
      throw new Error(`${id} not ready within ${settings.startDeadlineMs / 1000}s (log: ${path.relative(settings.root, logPath)})`);
    }
    await sleep(100);
  }
  // The idle RSS once boot-time work (JIT, lazy init, GC) has settled.
  const idleRssMb = await settledRssMb(child.pid);
  return {
    id,
    baseUrl,
    pid: child.pid,
    idleRssMb,
    logPath,
    stop: async () => {
      await stopChild(child);
      log.end();
    },
  };
}

/** Deletes a limited gateway's Redis keys under `prefix` (SCAN, bounded by what one run writes). */
export async function deleteRedisNamespace(url, prefix) {
  const { Redis } = await import('ioredis');
  const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
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

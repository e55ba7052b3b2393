// bench/isolation's child processes (started with a readiness match, killed on exit) and the
// few facts of the machine it reads.
import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';

const children = new Set();

export function cleanup() {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
}
process.on('exit', cleanup);
process.on('SIGINT', () => process.exit(130));

export function start(cmd, args, env, ready) {
  const childEnv = { ...process.env, ...env };
  // The bench's gateway serves the file source only, whatever the caller's environment says.
  for (const key of ['REDIS_URL', 'REGISTRY_URL', 'CATALOG_SOURCES']) if (env[key] === undefined) delete childEnv[key];
  const child = spawn(cmd, args, { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} not ready in 60 s:\n${out}`)), 60_000);
    const onData = (d) => {
      out += d;
      const m = ready(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, match: m });
      }
    };
    child.stdout.on('data', onData);
    // BENCH_LOG=<file>: keep every child's output (the gateway's warnings say why a call failed).
    if (process.env.BENCH_LOG) child.stdout.on('data', (d) => appendFileSync(process.env.BENCH_LOG, d));
    child.stderr.on('data', (d) => (out += d));
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}:\n${out}`)));
  });
}

export function rssKb(pid, field) {
  const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`${field}:\\s+(\\d+) kB`));
  return m ? Number(m[1]) : 0;
}

export function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

export function cpuCount() {
  // All CPUs of the machine (this driver itself may already be pinned to one).
  return os.cpus().length;
}

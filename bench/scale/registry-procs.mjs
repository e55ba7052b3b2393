// bench/scale's registry-mode processes: a private redis-server, the 40-tool upstream, the built
// registry and gateway as children (killed on exit), a throw-away Postgres database, and the
// free ports they listen on.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(HERE, '..', '..');
export const LOG_DIR = path.join(HERE, 'results', 'logs');
export const HOST = '127.0.0.1';
const PG_ADMIN = process.env.SCALE_PG_ADMIN ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const children = new Set();
/** Databases not dropped yet: an interrupted run (Ctrl-C exits at once) drops them with psql on its way out. */
const databases = new Set();
process.on('exit', () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  for (const name of databases) spawnSync('psql', [PG_ADMIN, '-qc', `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`], { stdio: 'ignore' });
});

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, HOST, () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * Spawns a child (its output to results/logs/<name>.log) and resolves once `ready` matches its
 * output, with the match and the ms it took; rejects when it exits first or `timeoutMs` passes.
 */
export function spawnChild(name, cmd, args, env, ready, timeoutMs = 180_000) {
  mkdirSync(LOG_DIR, { recursive: true });
  const log = createWriteStream(path.join(LOG_DIR, `${name}.log`));
  const t0 = Date.now();
  const child = spawn(cmd, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${name} not ready in ${timeoutMs / 1000} s; see results/logs/${name}.log`)),
      timeoutMs,
    );
    const onData = (d) => {
      if (out === null) return;
      out = (out + d).slice(-64 * 1024);
      const m = ready.exec(out);
      if (!m) return;
      out = null;
      clearTimeout(timer);
      resolve({ child, match: m, readyMs: Date.now() - t0, stop: () => stopChild(child) });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code ?? signal}; see results/logs/${name}.log`));
    });
  });
}

/** SIGTERM, then SIGKILL after 5 s. */
export async function stopChild(child) {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    await Promise.race([new Promise((r) => child.once('exit', r)), sleep(5_000)]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  children.delete(child);
}

/** A private redis-server on a free port (no persistence), so its used_memory is this row's alone. */
export async function startRedis(name) {
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-scale-redis-'));
  const args = ['--port', String(port), '--bind', HOST, '--dir', dir, '--save', '', '--appendonly', 'no'];
  const proc = await spawnChild(name, 'redis-server', args, process.env, /Ready to accept connections/, 30_000);
  return {
    url: `redis://${HOST}:${port}`,
    pid: proc.child.pid,
    stop: async () => {
      await proc.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fresh database (the registry's migrations create its schema), dropped by `drop`. */
export async function createDatabase() {
  const name = `sb_scale_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client(PG_ADMIN);
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  databases.add(name);
  const url = new URL(PG_ADMIN);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    /** pg_database_size of this database, in MB. */
    sizeMb: async () => {
      const c = new pg.Client(PG_ADMIN);
      await c.connect();
      try {
        const { rows } = await c.query('SELECT pg_database_size($1)::float8 AS bytes', [name]);
        return rows[0].bytes / 1024 / 1024;
      } finally {
        await c.end();
      }
    },
    drop: async () => {
      const c = new pg.Client(PG_ADMIN);
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
      databases.delete(name);
    },
  };
}

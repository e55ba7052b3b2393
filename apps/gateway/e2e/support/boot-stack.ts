import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '@switchboard/testing';
import path from 'node:path';
import type { LoopbackMap } from './loopback-net';

/**
 * Runs a deployment's services as local processes, each with exactly the environment the
 * deployment gives it, on a loopback "network" (support/loopback-net.ts): the deployment's
 * host names resolve to 127.0.0.1 and its fixed ports are stand-in free ports.
 */
const REPO_ROOT = path.resolve(__dirname, '../../../..');
const LOOPBACK_PRELOAD = path.join(__dirname, 'loopback-net.ts');
export type Env = Record<string, string>;

/** The four apps: their main file and the port each listens on in the deployment. */
export const APP_MAIN = {
  'chain-reader': 'apps/chain-reader/dist/main.js',
  registry: 'apps/registry/dist/main.js',
  auth: 'apps/auth/dist/main.js',
  gateway: 'apps/gateway/dist/main.js',
} as const;
export type AppName = keyof typeof APP_MAIN;

export { freePort };

export interface Proc {
  name: string;
  child: ChildProcess;
  /** Everything it printed so far (for failure messages). */
  output(): string;
  /** Resolves with the first match of `pattern` in its output; rejects when it exits first or the deadline passes. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  stop(): Promise<void>;
}

function track(name: string, child: ChildProcess): Proc {
  let out = '';
  const waiters: Array<() => void> = [];
  const onData = (chunk: Buffer) => {
    out += chunk.toString();
    for (const w of waiters.splice(0)) w();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  child.on('exit', () => {
    for (const w of waiters.splice(0)) w();
  });
  return {
    name,
    child,
    output: () => out,
    waitFor(pattern, timeoutMs = 90_000) {
      const deadline = Date.now() + timeoutMs;
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = out.match(pattern);
          if (m) return resolve(m);
          if (child.exitCode !== null || child.signalCode !== null)
            return reject(new Error(`${name} exited (${child.exitCode ?? child.signalCode}) before ${pattern}:\n${out.slice(-4000)}`));
          if (Date.now() > deadline) return reject(new Error(`${name}: no ${pattern} within ${timeoutMs} ms:\n${out.slice(-4000)}`));
          waiters.push(check);
          setTimeout(check, 500).unref();
        };
        check();
      });
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** A private Redis on a free port (no persistence). */
export async function startRedis(): Promise<{ port: number; proc: Proc }> {
  const port = await freePort();
  const proc = track(
    'redis',
    spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  await proc.waitFor(/Ready to accept connections/, 20_000);
  return { port, proc };
}

/** A private PostgreSQL on a free port with one user and database (support/private-postgres.mjs). */
export async function startPostgres(user: string, password: string, database: string): Promise<{ port: number; proc: Proc }> {
  const port = await freePort();
  const proc = track(
    'postgres',
    spawn(process.execPath, [path.join(__dirname, 'private-postgres.mjs'), String(port), user, password, database], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  await proc.waitFor(/postgres ready on/, 90_000);
  return { port, proc };
}

/**
 * Starts one app with `env` (and nothing else from this process but PATH) under the
 * loopback preload. The caller waits for its readiness.
 */
export function startApp(app: AppName, env: Env, network: LoopbackMap): Proc {
  const child = spawn(
    process.execPath,
    ['--disable-warning=MODULE_TYPELESS_PACKAGE_JSON', '--import', LOOPBACK_PRELOAD, path.join(REPO_ROOT, APP_MAIN[app])],
    {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', ...env, SB_LOOPBACK: JSON.stringify(network) },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return track(app, child);
}

/** Polls `url` until it answers 2xx (deadline, no fixed sleeps). */
export async function waitHealthy(url: string, proc: Proc, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc.child.exitCode !== null) throw new Error(`${proc.name} exited with ${proc.child.exitCode}:\n${proc.output().slice(-4000)}`);
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${proc.name} not healthy at ${url} within ${timeoutMs} ms:\n${proc.output().slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

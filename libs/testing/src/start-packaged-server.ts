import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './built-apps';
import { freePort } from './free-port';

/** An MCP server from an npm package (written by nobody here), running as its own process. */
export interface ReferenceServer {
  /** `http://localhost:<port>/mcp` (localhost is the registry's test allow-list). */
  url: string;
  port: number;
  /** The npm package it ships in, and that package's installed version (for the compatibility table). */
  package: string;
  version: string;
  /** The tail of what it printed (for failure messages). */
  output(): string;
  stop(): Promise<void>;
}

/** How to start one: the package (under the repository's node_modules), its script and arguments, and the variable it reads its port from. */
export interface PackagedServerLaunch {
  package: string;
  script: string;
  args: string[];
  portEnv: string;
}

/**
 * Starts a packaged server's Streamable HTTP transport on `port` (default: a free loopback port;
 * the same port again is a restarted server that forgot every session) and waits for its
 * "listening on port" line. The reference servers have env-dumping tools (server-everything's
 * `get-env`), so the process gets only PATH and its port, never the test's secrets.
 */
export async function startPackagedServer(launch: PackagedServerLaunch, port?: number, timeoutMs = 20_000): Promise<ReferenceServer> {
  const listenOn = port ?? (await freePort());
  const dir = path.join(REPO_ROOT, 'node_modules', launch.package);
  const { version } = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string };
  const child = spawn(process.execPath, [path.join(dir, launch.script), ...launch.args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', [launch.portEnv]: String(listenOn) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${launch.package} not listening in ${timeoutMs} ms:\n${out}`)), timeoutMs);
    // It logs every request: keep only the tail, and keep reading so the pipe never fills.
    const onData = (chunk: Buffer) => {
      out = (out + chunk.toString()).slice(-4_000);
      if (/listening on port/i.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${launch.package} exited with ${code ?? signal}:\n${out}`));
    });
  });
  return {
    url: `http://localhost:${listenOn}/mcp`,
    port: listenOn,
    package: launch.package,
    version,
    output: () => out,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 3_000).unref();
      }),
  };
}

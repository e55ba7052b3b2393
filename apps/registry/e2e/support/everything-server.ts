import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { freePort, REPO_ROOT } from '@switchboard/testing';

/** The official reference server (`@modelcontextprotocol/server-everything`), running as its own process. */
export interface ReferenceServer {
  /** `http://localhost:<port>/mcp` (localhost is the registry's test allow-list). */
  url: string;
  /** The package version, for the compatibility table. */
  version: string;
  close(): Promise<void>;
}

const PACKAGE_DIR = path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything');

/**
 * Starts server-everything's Streamable HTTP transport (stateful: it keeps one SDK server per
 * `Mcp-Session-Id`) on a free loopback port and waits for its "listening" line. Its `get-env`
 * tool returns the process environment, so it gets only PATH and PORT, never the test's secrets.
 */
export async function startEverythingServer(timeoutMs = 15_000): Promise<ReferenceServer> {
  const port = await freePort();
  const { version } = JSON.parse(readFileSync(path.join(PACKAGE_DIR, 'package.json'), 'utf8')) as { version: string };
  const child = spawn(process.execPath, [path.join(PACKAGE_DIR, 'dist/index.js'), 'streamableHttp'], {
    cwd: PACKAGE_DIR,
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server-everything not listening in ${timeoutMs} ms:\n${out}`)), timeoutMs);
    // It logs every request: keep only the tail (for a failure message), and keep reading so the pipe never fills.
    const onData = (chunk: Buffer) => {
      out = (out + chunk.toString()).slice(-4_000);
      if (/listening on port/.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`server-everything exited with ${code ?? signal}:\n${out}`));
    });
  });
  return {
    url: `http://localhost:${port}/mcp`,
    version,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

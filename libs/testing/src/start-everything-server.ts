import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from './built-apps';
import { freePort } from './free-port';
import { pollUntil } from './poll-until';

/**
 * The official reference server `@modelcontextprotocol/server-everything` (a dev dependency,
 * written by nobody here) in its Streamable HTTP mode on a free port: stateful sessions, and
 * the tools it registers only for clients declaring sampling, elicitation, roots or tasks.
 */
export async function startEverythingServer(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'streamableHttp'], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  await pollUntil('server-everything listening', () => /listening on port/i.test(out) || child.exitCode !== null, 20_000);
  if (child.exitCode !== null) throw new Error(`server-everything exited: ${out}`);
  return {
    url: `http://localhost:${port}/mcp`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

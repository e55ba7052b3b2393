import { spawn } from 'node:child_process';
import path from 'node:path';
import { freePort } from '@switchboard/testing';
import { REPO_ROOT } from './harness';

/** The official reference server (`@modelcontextprotocol/server-everything`), stateful Streamable HTTP, as a child process. */
export interface EverythingUpstream {
  /** `http://localhost:<port>/mcp` (localhost is the test allow-list). */
  url: string;
  output(): string;
  stop(): Promise<void>;
}

/** Starts it on `port` (default: a free one); the same port again is a restarted server that forgot every session. */
export async function startEverything(port?: number): Promise<EverythingUpstream & { port: number }> {
  port ??= await freePort();
  const script = path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
  const child = spawn(process.execPath, [script, 'streamableHttp'], { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '', PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server-everything not ready:\n${out}`)), 20_000);
    child.stderr.on('data', (c: Buffer) => {
      out += c.toString();
      if (/listening on port/.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server-everything exited with ${code}:\n${out}`));
    });
  });
  return {
    port,
    url: `http://localhost:${port}/mcp`,
    output: () => out,
    stop: () =>
      new Promise<void>((res) => {
        if (child.exitCode !== null) return res();
        child.once('exit', () => res());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 3_000).unref();
      }),
  };
}

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { freePort, REPO_ROOT } from '@switchboard/testing';

/** An official MCP server from an npm package (written by nobody here), running as its own process. */
export interface ReferenceServer {
  /** `http://localhost:<port>/mcp` (localhost is the registry's test allow-list). */
  url: string;
  /** The npm package it ships in, and that package's installed version (for the compatibility table). */
  package: string;
  version: string;
  close(): Promise<void>;
}

interface Launch {
  /** The npm package, resolved under the repository's node_modules. */
  package: string;
  /** The script inside the package and its arguments. */
  script: string;
  args: string[];
  /** The environment variable the script reads its port from. */
  portEnv: string;
}

/**
 * Starts a packaged server's Streamable HTTP transport on a free loopback port and waits for its
 * "listening on port" line. Both servers here have an env-dumping tool (server-everything's
 * `get-env`), so the process gets only PATH and its port, never the test's secrets.
 */
async function startPackagedServer(launch: Launch, timeoutMs = 15_000): Promise<ReferenceServer> {
  const port = await freePort();
  const dir = path.join(REPO_ROOT, 'node_modules', launch.package);
  const { version } = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string };
  const child = spawn(process.execPath, [path.join(dir, launch.script), ...launch.args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', [launch.portEnv]: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${launch.package} not listening in ${timeoutMs} ms:\n${out}`)), timeoutMs);
    // It logs every request: keep only the tail (for a failure message), and keep reading so the pipe never fills.
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
    url: `http://localhost:${port}/mcp`,
    package: launch.package,
    version,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

/**
 * `@modelcontextprotocol/server-everything`, the reference server that exercises every MCP
 * feature; stateful (one SDK server per `Mcp-Session-Id`).
 */
export function startEverythingServer(): Promise<ReferenceServer> {
  return startPackagedServer({ package: '@modelcontextprotocol/server-everything', script: 'dist/index.js', args: ['streamableHttp'], portEnv: 'PORT' });
}

/**
 * The TypeScript SDK's own example server (`examples/server/simpleStreamableHttp.js`, shipped in
 * `@modelcontextprotocol/sdk`): stateful, with tasks, form elicitation and logging during calls.
 */
export function startSdkExampleServer(): Promise<ReferenceServer> {
  return startPackagedServer({ package: '@modelcontextprotocol/sdk', script: 'dist/cjs/examples/server/simpleStreamableHttp.js', args: [], portEnv: 'MCP_PORT' });
}

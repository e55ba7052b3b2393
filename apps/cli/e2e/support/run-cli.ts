import { execFile } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from '@switchboard/testing';

/** The installed entry point: bin/switchboard.cjs over the built dist (run `npx tsc -b tsconfig.build.json` first). */
export const CLI_BIN = path.join(REPO_ROOT, 'apps/cli/bin/switchboard.cjs');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built CLI as a child process (asynchronously: the test's upstreams live in this
 * process and must keep answering while the CLI waits on discovery).
 */
export function runCli(args: string[], env: Record<string, string | undefined>): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI_BIN, ...args],
      { env: { PATH: process.env.PATH, ...env }, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

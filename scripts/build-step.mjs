// The build step of `npm start`: `tsc -b` (incremental: a no-op when nothing changed) and the
// console's vite build, skipped when its inputs are unchanged since the last build (a sha256 of
// apps/console's files, package.json and package-lock.json, stored beside the output). Prints a
// progress line per step so a cold build is not half a minute of silence.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const CONSOLE_DIR = 'apps/console';
const STAMP = '.inputs-sha256';

/** sha256 over the console build's inputs: every file under apps/console except dist/ and node_modules/, plus the root manifests. */
function consoleInputsHash(root) {
  const hash = createHash('sha256');
  const walk = (dir) => {
    for (const name of readdirSync(dir).sort()) {
      if (name === 'dist' || name === 'node_modules') continue;
      const file = path.join(dir, name);
      if (statSync(file).isDirectory()) walk(file);
      else
        hash
          .update(`${path.relative(root, file)}\0`)
          .update(readFileSync(file))
          .update('\0');
    }
  };
  walk(path.join(root, CONSOLE_DIR));
  for (const file of ['package.json', 'package-lock.json']) {
    const full = path.join(root, file);
    if (existsSync(full)) hash.update(`${file}\0`).update(readFileSync(full)).update('\0');
  }
  return hash.digest('hex');
}

/** How often a running step says it is still running (a cold tsc -b is minutes of otherwise silent work). */
const PROGRESS_EVERY_MS = 10_000;

/** Runs `node args…` in `root` as one step: a line when it starts, one every 10 s while it runs, one when it ends. */
function step(root, label, args) {
  const t0 = Date.now();
  const seconds = () => ((Date.now() - t0) / 1000).toFixed(1);
  process.stdout.write(`${label}…\n`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit' });
    const ticker = setInterval(() => process.stdout.write(`${label}: still running (${seconds()} s)\n`), PROGRESS_EVERY_MS);
    child.once('error', (err) => {
      clearInterval(ticker);
      reject(err);
    });
    child.once('exit', (code, signal) => {
      clearInterval(ticker);
      if (code === 0) {
        process.stdout.write(`${label}: done in ${seconds()} s\n`);
        resolve();
      } else reject(new Error(`${label} failed (${signal ?? `exit code ${code}`})`));
    });
  });
}

/** Runs the build; rejects when a step fails. */
export async function buildAll(root) {
  await step(root, 'npm start: building the TypeScript projects (tsc -b; incremental)', [
    path.join(root, 'node_modules/typescript/bin/tsc'),
    '-b',
    'tsconfig.build.json',
  ]);
  const stampFile = path.join(root, CONSOLE_DIR, 'dist', STAMP);
  const inputs = consoleInputsHash(root);
  if (
    existsSync(path.join(root, CONSOLE_DIR, 'dist', 'index.html')) &&
    existsSync(stampFile) &&
    readFileSync(stampFile, 'utf8').trim() === inputs
  ) {
    process.stdout.write('npm start: console build up to date (inputs unchanged), skipping vite\n');
    return;
  }
  await step(root, 'npm start: building the console (vite)', [
    path.join(root, 'node_modules/vite/bin/vite.js'),
    'build',
    CONSOLE_DIR,
    '--logLevel',
    'warn',
  ]);
  writeFileSync(stampFile, `${inputs}\n`);
}

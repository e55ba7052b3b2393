// The build step of `npm start`: `tsc -b` (incremental: a no-op when nothing changed) and the
// console's vite build, skipped when its inputs are unchanged since the last build (a sha256 of
// apps/console's files, package.json and package-lock.json, stored beside the output). Prints a
// progress line per step so a cold build is not half a minute of silence.
import { spawnSync } from 'node:child_process';
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
      else hash.update(`${path.relative(root, file)}\0`).update(readFileSync(file)).update('\0');
    }
  };
  walk(path.join(root, CONSOLE_DIR));
  for (const file of ['package.json', 'package-lock.json']) {
    const full = path.join(root, file);
    if (existsSync(full)) hash.update(`${file}\0`).update(readFileSync(full)).update('\0');
  }
  return hash.digest('hex');
}

function timed(label, fn) {
  const t0 = Date.now();
  process.stdout.write(`${label}…\n`);
  const result = fn();
  process.stdout.write(`${label}: done in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  return result;
}

/** Runs the build; throws when a step fails. */
export function buildAll(root) {
  const tsc = timed('npm start: building the TypeScript projects (tsc -b; incremental)', () =>
    spawnSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-b', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' }),
  );
  if (tsc.status !== 0) throw new Error('build failed');
  const stampFile = path.join(root, CONSOLE_DIR, 'dist', STAMP);
  const inputs = consoleInputsHash(root);
  if (existsSync(path.join(root, CONSOLE_DIR, 'dist', 'index.html')) && existsSync(stampFile) && readFileSync(stampFile, 'utf8').trim() === inputs) {
    process.stdout.write('npm start: console build up to date (inputs unchanged), skipping vite\n');
    return;
  }
  const vite = timed('npm start: building the console (vite)', () =>
    spawnSync(process.execPath, [path.join(root, 'node_modules/vite/bin/vite.js'), 'build', CONSOLE_DIR, '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' }),
  );
  if (vite.status !== 0) throw new Error('console build failed');
  writeFileSync(stampFile, `${inputs}\n`);
}

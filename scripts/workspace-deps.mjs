#!/usr/bin/env node
// Per-workspace production dependencies, computed from the source: every bare module a
// package's non-test source imports (import/export from, import(), require()), mapped to its
// npm package, excluding node: built-ins. Used three ways:
//   node scripts/workspace-deps.mjs check            each libs/* and apps/* package.json declares exactly these (a test runs it)
//   node scripts/workspace-deps.mjs write            rewrite the declarations (versions from the root package.json)
//   node scripts/workspace-deps.mjs closure <app>    the app's production package closure in node_modules, with its size
//   node scripts/workspace-deps.mjs prune <app>      delete every other package from node_modules (an npm-install image; ours bundle: ops/images/bundle.mjs)
import { builtinModules } from 'node:module';
import { existsSync, lstatSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const rootPkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const versions = { ...rootPkg.devDependencies, ...rootPkg.dependencies };
const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
// require.resolve too: a package read from disk (an ABI, a worker's module path) is used at run time.
const IMPORT = /(?:\bfrom\s+|\bimport\s*\(\s*|\brequire(?:\.resolve)?\s*\(\s*|^\s*import\s+)['"]([^'"./][^'"]*)['"]/gm;

function workspaces() {
  return ['libs', 'apps']
    .flatMap((d) => readdirSync(path.join(root, d)).map((n) => `${d}/${n}`))
    .filter((d) => existsSync(path.join(root, d, 'package.json')));
}

function sourceFiles(dir) {
  const out = [];
  // Spec helpers a package's tsconfig keeps out of its build (libs/mcp-http's src/testing/ edge kit) are test code.
  const tsconfig = path.join(dir, '..', 'tsconfig.json');
  const exclude = existsSync(tsconfig) ? (JSON.parse(readFileSync(tsconfig, 'utf8')).exclude ?? []) : [];
  const excluded = new Set(exclude.filter((g) => /^src\/[\w-]+\/\*\*$/.test(g)).map((g) => path.join(dir, '..', g.slice(0, -3))));
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        if (!excluded.has(p)) walk(p);
      } else if (/\.(ts|tsx|mjs|js)$/.test(e.name) && !/\.(spec|test)\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(p);
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

/** External packages a workspace's source imports (type-only imports included: they name what the code is written against). */
function imported(ws) {
  const names = new Set();
  for (const f of sourceFiles(path.join(root, ws, 'src'))) {
    for (const m of readFileSync(f, 'utf8').matchAll(IMPORT)) {
      const spec = m[1];
      if (builtins.has(spec) || spec.startsWith('node:')) continue;
      const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
      names.add(name);
    }
  }
  return names;
}

/**
 * What a workspace's package.json must declare: every package its source imports, at the version
 * it already declares (libs pin transitive OpenTelemetry packages) or the root's. Imports used only
 * off the production path (the embedded Postgres of `npm start`, the devnet's compiler) are listed
 * in the package's `switchboard.devOnly` and go to `devDependencies` instead, out of the images.
 */
function expected(ws) {
  const pkg = JSON.parse(readFileSync(path.join(root, ws, 'package.json'), 'utf8'));
  const devOnly = new Set(pkg.switchboard?.devOnly ?? []);
  const deps = {};
  const devDeps = {};
  for (const name of [...imported(ws)].sort()) {
    if (name.startsWith('@types/')) continue;
    const version = name.startsWith('@switchboard/')
      ? '0.1.0'
      : (pkg.dependencies?.[name] ?? pkg.devDependencies?.[name] ?? versions[name] ?? 'MISSING (not in the root package.json)');
    (devOnly.has(name) ? devDeps : deps)[name] = version;
  }
  return { pkg, deps, devDeps };
}

/** Production closure of an app: its declared deps, its libs' declared deps, and their dependencies as installed. */
export function closure(app) {
  const names = [];
  const addWorkspace = (ws) => {
    const pkg = JSON.parse(readFileSync(path.join(root, ws, 'package.json'), 'utf8'));
    for (const d of Object.keys(pkg.dependencies ?? {})) {
      if (d.startsWith('@switchboard/')) addWorkspace(`libs/${d.slice('@switchboard/'.length)}`);
      else names.push(d);
    }
  };
  addWorkspace(app);
  return packageClosure(names);
}

/** The installed directories of these packages and of everything they depend on (optional and required peer deps included). */
export function packageClosure(names) {
  const queue = names.map((n) => [n, root]);
  const resolveDir = (name, from) => {
    for (let d = from; ; d = path.dirname(d)) {
      const p = path.join(d, 'node_modules', name);
      if (existsSync(path.join(p, 'package.json'))) return p;
      if (d === root || d === path.dirname(d)) return undefined;
    }
  };
  const dirs = new Set();
  while (queue.length) {
    const [name, from] = queue.pop();
    const dir = resolveDir(name, from);
    if (!dir || dirs.has(dir)) continue;
    dirs.add(dir);
    const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
    for (const d of Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies })) queue.push([d, dir]);
    for (const d of Object.keys(pkg.peerDependencies ?? {})) if (!pkg.peerDependenciesMeta?.[d]?.optional) queue.push([d, dir]);
  }
  return dirs;
}

function size(p) {
  const st = lstatSync(p);
  if (st.isSymbolicLink()) return 0;
  if (!st.isDirectory()) return st.size;
  let total = 0;
  for (const e of readdirSync(p)) total += size(path.join(p, e));
  return total;
}

const [cmd, arg] = process.argv.slice(2);
if (process.argv[1] && path.resolve(process.argv[1]) !== fileURLToPath(import.meta.url)) {
  // imported (ops/images/bundle.mjs): no command line
} else if (cmd === 'check' || cmd === 'write') {
  const problems = [];
  for (const ws of workspaces()) {
    const { pkg, deps, devDeps } = expected(ws);
    const same = (a, b) => JSON.stringify(Object.entries(a ?? {}).sort()) === JSON.stringify(Object.entries(b ?? {}).sort());
    if (cmd === 'write') {
      pkg.dependencies = deps;
      if (Object.keys(devDeps).length) pkg.devDependencies = devDeps;
      else delete pkg.devDependencies;
      writeFileSync(path.join(root, ws, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
    } else {
      if (!same(pkg.dependencies, deps))
        problems.push(
          `${ws}/package.json dependencies: declared ${JSON.stringify(pkg.dependencies ?? {})}, the source imports ${JSON.stringify(deps)}`,
        );
      if (!same(pkg.devDependencies, devDeps))
        problems.push(
          `${ws}/package.json devDependencies: declared ${JSON.stringify(pkg.devDependencies ?? {})}, dev-only imports ${JSON.stringify(devDeps)}`,
        );
    }
  }
  if (problems.length) {
    process.stderr.write(
      `${problems.join('\n')}\nrun: node scripts/workspace-deps.mjs write && npm install --package-lock-only --ignore-scripts (updates only package-lock.json)\n`,
    );
    process.exit(1);
  }
} else if (cmd === 'closure' || cmd === 'prune') {
  if (!arg || !existsSync(path.join(root, arg, 'package.json'))) throw new Error('usage: workspace-deps.mjs closure|prune apps/<name>');
  const keep = closure(arg);
  if (cmd === 'closure') {
    const bytes = [...keep].reduce((t, d) => t + size(d), 0);
    process.stdout.write(`${JSON.stringify({ app: arg, packages: keep.size, bytes, mb: Math.round(bytes / 1e5) / 10 })}\n`);
  } else {
    // Keep the closure, the workspace links (@switchboard/*) and npm's own metadata; delete the rest.
    const nm = path.join(root, 'node_modules');
    const keepTop = new Set(
      [...keep].filter((d) => path.dirname(d) === nm || path.dirname(path.dirname(d)) === nm).map((d) => path.relative(nm, d)),
    );
    for (const e of readdirSync(nm)) {
      if (e.startsWith('.') || e === '@switchboard') continue;
      const entries = e.startsWith('@') ? readdirSync(path.join(nm, e)).map((s) => `${e}/${s}`) : [e];
      for (const name of entries)
        if (!keepTop.has(name) && statSync(path.join(nm, name)).isDirectory())
          rmSync(path.join(nm, name), { recursive: true, force: true });
    }
  }
} else {
  process.stderr.write('usage: workspace-deps.mjs check | write | closure apps/<name> | prune apps/<name>\n');
  process.exit(2);
}

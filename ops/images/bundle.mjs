#!/usr/bin/env node
// One app's runtime tree for its image: the compiled app and libs (tsc output: esbuild cannot
// emit the decorator metadata NestJS injects by) bundled into one file by esbuild, plus the few
// packages that must stay on disk, each with its own dependency closure, and the app's data files.
//   node ops/images/bundle.mjs apps/<name> <out-dir>
//   node ops/images/bundle.mjs --with-fixtures apps/gateway <out-dir>   the development gateway (below)
// Layout under <out-dir> mirrors the repository (apps/<name>/dist/main.js, apps/<name>/migrations,
// node_modules/…) so every path the code derives from __dirname resolves as it does in the repo.
import { build } from 'esbuild';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { closure as appClosure, packageClosure } from '../../scripts/workspace-deps.mjs';
import { checkBundle } from './check-bundle.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Packages loaded from node_modules at run time instead of from the bundle, and why:
 * - oidc-provider, node-pg-migrate: ESM-only, loaded through createRequire (apps/auth/src/oidc/native-modules.ts);
 * - pg, ioredis: OpenTelemetry's instrumentations patch them by hooking require(); bundled, they would not be traced;
 * - bullmq: reads its Lua scripts from its own directory; msgpackr-extract: a native addon (optional, bullmq's msgpackr);
 * - re2-wasm: reads its .wasm next to itself; swagger-ui-dist, @uniswap/v3-core: files read via require.resolve;
 * - @shazow/whatsabi: required by path inside a worker thread (apps/chain-reader/src/analysis/whatsabi-thread.ts);
 * - pino: its transports and thread-stream start workers from files in its package.
 * Only those an app's closure contains are kept.
 */
export const EXTERNAL = [
  'oidc-provider',
  'node-pg-migrate',
  'pg',
  'ioredis',
  'bullmq',
  'msgpackr-extract',
  're2-wasm',
  'swagger-ui-dist',
  '@simplewebauthn/browser',
  '@uniswap/v3-core',
  '@shazow/whatsabi',
  'pino',
];

/** Files besides code an app reads at run time (relative to the repository). */
const DATA = {
  'apps/auth': ['apps/auth/migrations', 'apps/auth/package.json'],
  'apps/registry': ['apps/registry/migrations', 'apps/registry/package.json', 'apps/console/dist'],
  'apps/gateway': ['apps/gateway/package.json'],
  'apps/chain-reader': ['apps/chain-reader/package.json'],
};

/**
 * Modules that are not installed (NestJS's optional @nestjs/microservices, class-validator…) stay
 * require() calls: at run time they throw MODULE_NOT_FOUND exactly as they do from node_modules,
 * which is what the optional-require sites expect.
 */
const keepUnresolved = {
  name: 'keep-unresolved',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === 'probe' || args.path.startsWith('node:')) return undefined;
      const r = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: 'probe' });
      return r.errors.length ? { path: args.path, external: true } : undefined;
    });
  },
};

/** __dirname / __filename as the file's place in the repository layout, not the bundle's. */
const repoDirname = {
  name: 'repo-dirname',
  setup(b) {
    b.onLoad({ filter: /[\\/](apps|libs)[\\/][^\\/]+[\\/]dist[\\/].*\.js$/ }, (args) => {
      const rel = path.relative(root, args.path).split(path.sep).join('/');
      const text = readFileSync(args.path, 'utf8')
        .replace(/\b__dirname\b/g, `__repoPath(${JSON.stringify(path.posix.dirname(rel))})`)
        .replace(/\b__filename\b/g, `__repoPath(${JSON.stringify(rel)})`);
      return { contents: text, loader: 'js', resolveDir: path.dirname(args.path) };
    });
  },
};

/** The package the gateway imports by a name held in a variable (apps/gateway/src/catalog-source/load-fixtures.ts). */
const FIXTURES = { lib: 'libs/fixtures', name: '@switchboard/fixtures', app: 'apps/gateway' };

/**
 * The development gateway's entry: the app's own main, with libs/fixtures compiled into the same
 * bundle and exported (lazily: `__commonJS` wrappers run on first require) for the package stub
 * below. One bundle means one copy of @switchboard/catalog, @switchboard/protocol and the MCP SDK,
 * so `instanceof McpError` / `instanceof Tool` hold for what the fixtures throw and build; a
 * second, self-contained bundle of the fixtures would carry classes of its own.
 */
function fixturesEntry(entry) {
  const lib = path.join(root, FIXTURES.lib, JSON.parse(readFileSync(path.join(root, FIXTURES.lib, 'package.json'), 'utf8')).main);
  if (!existsSync(lib)) throw new Error(`${lib} is missing: run npx tsc -b ${FIXTURES.lib}/tsconfig.json first`);
  return {
    contents: `exports.developmentFixtures = () => require(${JSON.stringify(lib)});\nrequire(${JSON.stringify(entry)});\n`,
    resolveDir: root,
    sourcefile: 'image-entry-with-fixtures.js',
    loader: 'js',
  };
}

/**
 * node_modules/@switchboard/fixtures in the development image: what the gateway's import() finds,
 * handing over the bundle's own copy. The bundle is the process's main module, already in
 * require's cache, so requiring it returns its exports without running it again.
 */
function writeFixturesStub(out, outfile) {
  const dir = path.join(out, 'node_modules', FIXTURES.name);
  mkdirSync(dir, { recursive: true });
  const main = path.relative(dir, outfile).split(path.sep).join('/');
  writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify({ name: FIXTURES.name, private: true, main: 'index.js' }, null, 2)}\n`);
  writeFileSync(
    path.join(dir, 'index.js'),
    `'use strict';\n// libs/fixtures lives inside the gateway's bundle (ops/images/bundle.mjs --with-fixtures): one copy of its classes.\nmodule.exports = require(${JSON.stringify(main)}).developmentFixtures();\n`,
  );
}

export async function bundleApp(app, out, { withFixtures = false } = {}) {
  const appPkg = JSON.parse(readFileSync(path.join(root, app, 'package.json'), 'utf8'));
  const entry = path.join(root, app, appPkg.main ?? 'dist/main.js');
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run npx tsc -b ${app}/tsconfig.json first`);
  if (withFixtures && app !== FIXTURES.app)
    throw new Error(`--with-fixtures is for ${FIXTURES.app} only (the app that loads ${FIXTURES.name})`);
  rmSync(out, { recursive: true, force: true });
  const outfile = path.join(out, app, appPkg.main ?? 'dist/main.js');
  const depth = path.posix.relative(path.posix.dirname(path.relative(out, outfile).split(path.sep).join('/')), '.') || '.';

  // Which of the externals this app reaches: those in its production closure.
  const closure = appClosure(app);
  const external = EXTERNAL.filter((n) => closure.has(path.join(root, 'node_modules', n)));
  const result = await build({
    ...(withFixtures ? { stdin: fixturesEntry(entry) } : { entryPoints: [entry] }),
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'cjs',
    minifySyntax: true,
    keepNames: true, // NestJS and error messages use class and function names
    legalComments: 'linked',
    // No source maps: frames keep their names (keepNames) and point into one readable file.
    metafile: true,
    logLevel: 'warning',
    external: external.flatMap((n) => [n, `${n}/*`]),
    banner: { js: `const __repoPath = (p) => require('node:path').join(__dirname, ${JSON.stringify(depth)}, p);` },
    plugins: [keepUnresolved, repoDirname],
  });

  // node_modules: the externals and everything they depend on, at the paths npm installed them.
  // Nested node_modules are closure members of their own (copied only when needed); source maps,
  // type declarations and docs are never loaded (license texts stay).
  const dirs = packageClosure(external);
  const skip = (src, dir) =>
    (/[\\/]node_modules$/.test(src) && src !== dir) ||
    (/\.(map|d\.[cm]?ts|md|markdown)$/i.test(src) && !/^(licen[cs]e|notice|copying)/i.test(path.basename(src)));
  for (const dir of [...dirs].sort()) {
    cpSync(dir, path.join(out, path.relative(root, dir)), { recursive: true, dereference: true, filter: (src) => !skip(src, dir) });
  }
  for (const rel of DATA[app] ?? [])
    if (existsSync(path.join(root, rel))) cpSync(path.join(root, rel), path.join(out, rel), { recursive: true, dereference: true });
  if (withFixtures) writeFixturesStub(out, outfile);
  writeFileSync(path.join(out, 'package.json'), `${JSON.stringify({ name: 'switchboard-image', private: true }, null, 2)}\n`);
  // Beside the tree (not inside it: the image copies the tree), for reading what went into the bundle.
  writeFileSync(`${out}.meta.json`, JSON.stringify(result.metafile));
  // Every module the bundle loads at run time must be in the tree (ops/images/check-bundle.mjs).
  const check = checkBundle(out, app, { withFixtures });
  if (check.problems.length) throw new Error(`${app}: the image tree lacks what the bundle loads:\n  ${check.problems.join('\n  ')}`);
  return { external, packages: dirs.size, fixtures: withFixtures, loadsChecked: check.checked };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const withFixtures = args[0] === '--with-fixtures';
  const [app, out] = withFixtures ? args.slice(1) : args;
  if (!app || !out) {
    process.stderr.write('usage: bundle.mjs [--with-fixtures] apps/<name> <out-dir>\n');
    process.exit(2);
  }
  mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
  try {
    const r = await bundleApp(app, path.resolve(out), { withFixtures });
    process.stdout.write(`${JSON.stringify({ app, ...r })}\n`);
  } catch (err) {
    process.stderr.write(`bundle.mjs: ${err.message}\n`);
    process.exit(1);
  }
}

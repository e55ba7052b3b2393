#!/usr/bin/env node
// Checks that an app's image tree (ops/images/bundle.mjs output) carries every module its bundle
// loads at run time: each require()/import()/require.resolve() left in the bundle must resolve
// inside the tree (a Node builtin, an EXTERNAL package copied with its closure, the fixtures stub),
// and a load by a computed name, which no bundler can follow, is allowed only at the sites listed
// below. A `require(id)` in libs/telemetry once left the OpenTelemetry SDK out of every image and
// the apps crashed as soon as traces were exported (issue #50): this is the check that sees that.
//   node ops/images/check-bundle.mjs <out-dir> apps/<name> [--with-fixtures]
// Exit 0 and a summary when the tree is complete; exit 1 and one line per missing module otherwise.
import { parse } from 'acorn';
import { simple } from 'acorn-walk';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Third-party sites that load a module by a computed name, and why that is safe in an image.
 * Keyed by the module's path in the repository (the bundle's `// <path>` comments).
 */
export const DYNAMIC_SITES = {
  'node_modules/require-in-the-middle/index.js': "OpenTelemetry's require hook re-requires the module the app itself is requiring",
  'node_modules/@nestjs/common/utils/load-package.util.js':
    'NestJS loadPackage(name, ctx, loaderFn): every caller passes a loaderFn with a literal require, checked on its own',
  'node_modules/@nestjs/core/helpers/optional-require.js':
    'NestJS optionalRequire(name, loaderFn): the same, literal requires in the loaderFns',
  'node_modules/@nestjs/core/helpers/load-adapter.js':
    'NestJS loads @nestjs/platform-express only when no HTTP adapter is given; every app passes FastifyAdapter',
  'node_modules/load-esm/index.js': "import() of file-type for NestJS's FileTypeValidator, which no app uses (file-type below)",
};

/** Our own computed-name loads: the module each must reach, and when. */
const OWN_DYNAMIC_SITES = {
  // The development catalogs, by a name held in a variable: in the image only with --with-fixtures (bundle.mjs writes the stub).
  'apps/gateway/dist/catalog-source/load-fixtures.js': { module: '@switchboard/fixtures', onlyWithFixtures: true },
};

/**
 * Our modules that run only in development and load dev dependencies the images leave out; every
 * load in them is skipped. The chain-reader starts the anvil devnet only when no chain has an RPC
 * URL (CHAIN_RPC_URLS_<SLUG> / CHAINS_FILE), which compose and the k8s overlays always set.
 */
export const DEVELOPMENT_ONLY = {
  'apps/chain-reader/dist/devnet/start-devnet.js':
    'the anvil devnet (@foundry-rs/anvil, viem files read from disk): started only without any chain RPC URL',
  'apps/chain-reader/dist/devnet/seed-devnet.js':
    "the devnet's contracts (viem and Uniswap artifacts read from disk): seeded only when start-devnet runs",
};

/**
 * Packages installed in the repository that an image deliberately leaves out, and why: loading
 * them fails in the image exactly as the code expects an optional package to fail.
 */
export const OPTIONAL_IN_IMAGE = {
  'file-type': "ESM-only, used by NestJS's FileTypeValidator (file uploads), which no app uses",
};

/** `@scope/name/sub` -> `@scope/name`; `name/sub` -> `name`. */
const packageName = (id) =>
  id
    .split('/')
    .slice(0, id.startsWith('@') ? 2 : 1)
    .join('/');

/** Whether `id` is installed where Node would look for it from `dir`, not above `top`. */
function packageDirFrom(dir, id, top) {
  for (let d = dir; ; d = path.dirname(d)) {
    const candidate = path.join(d, 'node_modules', packageName(id), 'package.json');
    if (existsSync(candidate)) return path.dirname(candidate);
    if (d === top || d === path.dirname(d)) return undefined;
  }
}

/** Whether `id`, loaded from `file`, resolves to a file inside `out` (Node's resolver, bounded to the tree). */
function resolvesInside(out, file, id) {
  try {
    const resolved = createRequire(file).resolve(id);
    if (resolved.startsWith(out + path.sep)) return true;
  } catch {
    // An ESM-only package (no "require" export) throws here although import() finds it: judged by its directory below.
  }
  const dir = packageDirFrom(path.dirname(file), id, out);
  return dir !== undefined && dir.startsWith(out + path.sep);
}

/** Every load left in the bundle: literal ids with the repository module they come from, and computed-name sites. */
export function loadsInBundle(bundleFile) {
  const text = readFileSync(bundleFile, 'utf8');
  // esbuild marks where each module's code starts with a `// <path in the repository>` line.
  const marks = [];
  const ast = parse(text, {
    ecmaVersion: 'latest',
    sourceType: 'script',
    allowHashBang: true,
    allowReturnOutsideFunction: true,
    onComment: (block, comment, start) => {
      if (!block && /^ (node_modules|apps|libs)\/\S+$/.test(comment)) marks.push([start, comment.trim()]);
    },
  });
  const moduleAt = (pos) => {
    let lo = 0;
    let hi = marks.length - 1;
    let found = '(bundle entry)';
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (marks[mid][0] <= pos) {
        found = marks[mid][1];
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  };
  const literal = [];
  const computed = [];
  const visit = (kind, arg, pos) => {
    const from = moduleAt(pos);
    if (arg && arg.type === 'Literal' && typeof arg.value === 'string') literal.push({ id: arg.value, kind, from });
    else if (arg && arg.type === 'TemplateLiteral' && arg.expressions.length === 0)
      literal.push({ id: arg.quasis[0].value.cooked, kind, from });
    else computed.push({ kind, from });
  };
  const isRequire = (node) => node.type === 'Identifier' && (node.name === 'require' || node.name === '__require');
  simple(ast, {
    CallExpression(node) {
      const callee = node.callee;
      if (isRequire(callee)) visit('require', node.arguments[0], node.start);
      else if (callee.type === 'MemberExpression' && isRequire(callee.object) && !callee.computed && callee.property.name === 'resolve')
        visit('require.resolve', node.arguments[0], node.start);
    },
    ImportExpression(node) {
      visit('import()', node.source, node.start);
    },
  });
  return { literal, computed };
}

/**
 * The problems of one image tree: modules the bundle loads that are installed in the repository
 * but missing from the tree, and computed-name loads at unlisted sites. Empty when complete.
 */
export function checkBundle(out, app, { withFixtures = false } = {}) {
  out = path.resolve(out);
  const appPkg = JSON.parse(readFileSync(path.join(root, app, 'package.json'), 'utf8'));
  const bundleFile = path.join(out, app, appPkg.main ?? 'dist/main.js');
  if (!existsSync(bundleFile))
    return { problems: [`${bundleFile} is missing: bundle ${app} first (ops/images/bundle.mjs)`], checked: 0, optional: [] };
  const { literal, computed } = loadsInBundle(bundleFile);
  const problems = [];
  const optional = new Set();
  const seen = new Set();
  for (const load of literal) {
    if (isBuiltin(load.id) || load.id.startsWith('node:') || load.id.startsWith('.') || path.isAbsolute(load.id)) continue;
    if (DEVELOPMENT_ONLY[load.from]) continue;
    const key = `${load.id} ${load.from}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (resolvesInside(out, bundleFile, load.id)) continue;
    const fromDir = load.from.startsWith('(') ? root : path.dirname(path.join(root, load.from));
    if (packageDirFrom(fromDir, load.id, path.parse(root).root) === undefined) {
      // Not installed in the repository either: an optional package, failing as it does under `npm start`.
      optional.add(load.id);
      continue;
    }
    if (OPTIONAL_IN_IMAGE[packageName(load.id)]) continue;
    problems.push(
      `${load.kind}('${load.id}') in ${load.from} is installed in the repository but not in the image: bundle it (a string-literal require) or add it to EXTERNAL in ops/images/bundle.mjs`,
    );
  }
  for (const site of computed) {
    if (DYNAMIC_SITES[site.from] || DEVELOPMENT_ONLY[site.from]) continue;
    const own = OWN_DYNAMIC_SITES[site.from];
    if (own) {
      const present = resolvesInside(out, bundleFile, own.module);
      if (own.onlyWithFixtures ? present !== withFixtures : !present)
        problems.push(
          `${site.kind} in ${site.from} loads ${own.module}, which the image ${present ? 'has' : 'lacks'} (with fixtures: ${withFixtures})`,
        );
      continue;
    }
    problems.push(
      `${site.kind} of a computed name in ${site.from}: the bundler cannot follow it, so what it loads is not in the image; use a string literal (or list the site in ops/images/check-bundle.mjs with why it is safe)`,
    );
  }
  return { problems: [...new Set(problems)], checked: seen.size + computed.length, optional: [...optional].sort() };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const withFixtures = args.includes('--with-fixtures');
  const [out, app] = args.filter((a) => a !== '--with-fixtures');
  if (!out || !app) {
    process.stderr.write('usage: check-bundle.mjs <out-dir> apps/<name> [--with-fixtures]\n');
    process.exit(2);
  }
  const r = checkBundle(out, app, { withFixtures });
  for (const p of r.problems) process.stderr.write(`check-bundle: ${p}\n`);
  process.stdout.write(`${JSON.stringify({ app, checked: r.checked, missing: r.problems.length, notInstalledAnywhere: r.optional })}\n`);
  process.exit(r.problems.length ? 1 : 0);
}

#!/usr/bin/env node
// Regenerates the admin API types (libs/admin-api/src/index.ts, imported by the console and the CLI)
// from the registry's
// OpenAPI document, itself built from the controllers' route schemas. `npm run gen:api`;
// `--check` exits 1 instead of writing when the file differs. The registry's sources are
// bundled with esbuild (decorators need a compile step; workspace libs resolve to their sources).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { build } from 'esbuild';
import { compile } from 'json-schema-to-typescript';

const root = path.resolve(import.meta.dirname, '..');
const entry = `
import 'reflect-metadata';
export { REGISTRY_CONTROLLERS } from './apps/registry/src/registry-controllers';
export { openApiDocument } from './apps/registry/src/docs/openapi-document';
`;

/** Where the generated types live (checked in). */
const API_TYPES_FILES = ['libs/admin-api/src/index.ts'];

const BANNER = `// Generated from the registry's OpenAPI document (apps/registry/src/docs) by \`npm run gen:api\`: do not edit.
// A registry test fails when this file and the document drift apart.
`;

/**
 * The console's TypeScript types of the admin API: one declaration per component schema (request
 * bodies and answers), plus `Operations` mapping each operationId to its method, path, body and answer.
 */
async function renderApiTypes(doc) {
  const schemas = Object.fromEntries(Object.entries(doc.components.schemas).map(([id, s]) => [id, { ...bareRefs(s), title: id }]));
  const rootSchema = {
    title: 'ApiSchemas',
    description: 'Every component schema of the admin API, by name',
    type: 'object',
    additionalProperties: false,
    required: Object.keys(schemas),
    properties: Object.fromEntries(Object.keys(schemas).map((id) => [id, { $ref: `#/components/schemas/${id}` }])),
    components: { schemas },
  };
  const types = await compile(rootSchema, 'ApiSchemas', {
    bannerComment: '',
    additionalProperties: false,
    unreachableDefinitions: true,
    format: true,
    style: { printWidth: 200, singleQuote: true },
  });
  return `${BANNER}\n${types}\n${operations(doc)}`;
}

/** Drops what sits beside a `$ref` (a default, a description): json-schema-to-typescript would declare a copy of the type for each. */
function bareRefs(node) {
  if (Array.isArray(node)) return node.map(bareRefs);
  if (typeof node !== 'object' || node === null) return node;
  if (typeof node.$ref === 'string') return { $ref: node.$ref };
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, bareRefs(v)]));
}

const schemaType = (schema) => (schema?.$ref ? schema.$ref.slice(schema.$ref.lastIndexOf('/') + 1) : 'unknown');

/** `Operations`: operationId → { method, path, body, response } (the success answer's schema, unknown when undocumented). */
function operations(doc) {
  const rows = [];
  for (const [route, byMethod] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(byMethod)) {
      const ok = Object.entries(op.responses).find(([status]) => /^[23]\d\d$/.test(status))?.[1];
      const body = op.requestBody ? schemaType(op.requestBody.content['application/json']?.schema) : 'never';
      const response = schemaType(ok?.content?.['application/json']?.schema);
      rows.push(`  ${op.operationId}: { method: '${method.toUpperCase()}'; path: '${route}'; body: ${body}; response: ${response} };`);
    }
  }
  return `/** Each operation of the admin API by operationId: method, path template, body and success answer. */\nexport interface Operations {\n${rows.join('\n')}\n}\n`;
}

const workspaceSources = {
  name: 'workspace-sources',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      const lib = /^@switchboard\/([a-z-]+)$/.exec(args.path);
      return lib ? { path: path.join(root, 'libs', lib[1], 'src/index.ts') } : { external: true };
    });
  },
};

// Inside the repo, so the bundle's external packages resolve from its node_modules.
const dir = await mkdtemp(path.join(root, 'scripts', '.gen-api-'));
try {
  const outfile = path.join(dir, 'gen.cjs');
  await build({
    stdin: { contents: entry, resolveDir: root, loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outfile,
    plugins: [workspaceSources],
    logLevel: 'warning',
    tsconfig: path.join(root, 'apps/registry/tsconfig.json'),
  });
  const gen = createRequire(import.meta.url)(outfile);
  const text = await renderApiTypes(gen.openApiDocument(gen.REGISTRY_CONTROLLERS, ''));
  // --file=<path>: another copy to check (the drift test's).
  const only = process.argv.find((a) => a.startsWith('--file='))?.slice(7);
  const files = only ? [only] : API_TYPES_FILES.map((f) => path.join(root, f));
  for (const file of files) {
    const current = await readFile(file, 'utf8').catch(() => '');
    const name = path.relative(root, file);
    if (process.argv.includes('--check')) {
      if (current !== text) {
        console.error(`${name} differs from what the OpenAPI document generates: run npm run gen:api`);
        process.exitCode = 1;
      }
    } else if (current !== text) {
      await writeFile(file, text);
      console.log(`wrote ${name}`);
    } else console.log(`${name} is up to date`);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}

// Proves the boundary lint (.dependency-cruiser.cjs) bites: cruises a throwaway tree holding one
// allowed import and one deliberately wrong import per rule, and fails unless exactly the wrong ones
// are reported. Run by `npm run boundaries` after the real check; `node scripts/boundaries-selftest.mjs`
// alone prints what the lint says about each wrong import.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const tree = {
  // allowed: a lib importing a lower lib, an app importing a lib, an app importing itself
  'libs/protocol/src/index.ts': 'export const a = 1;\n',
  'libs/catalog/src/index.ts': "import { a } from '../../protocol/src/index';\nexport const b = a;\n",
  'apps/gateway/src/main.ts': "import { b } from '../../../libs/catalog/src/index';\nimport { c } from './own';\nexport const d = b + c;\n",
  'apps/gateway/src/own.ts': 'export const c = 1;\n',
  'libs/fixtures/src/index.ts': "import { b } from '../../catalog/src/index';\nexport const demo = b;\n",
  'libs/testing/src/index.ts': 'export const port = 1;\n',
  'apps/gateway/e2e/uses-testing.spec.ts': "import { port } from '../../../libs/testing/src/index';\nexport const v = port;\n",
  // allowed: a registry feature importing model/ and the pipeline, the pipeline importing model/
  'apps/registry/src/model/row.ts': 'export const r = 1;\n',
  'apps/registry/src/publishing/publish.ts': "import { r } from '../model/row';\nexport const p = r;\n",
  'apps/registry/src/servers/servers.ts':
    "import { r } from '../model/row';\nimport { p } from '../publishing/publish';\nexport const s = r + p;\n",
  'apps/gateway/src/own.spec.ts': "import { demo } from '../../../libs/fixtures/src/index';\nexport const t = demo;\n",
  // wrong: a lib importing a higher lib, a lib importing an app, an app importing another app's src,
  // a lib importing an app by its package name, a listed e2e file importing another app's src, an unlisted e2e file reaching into another app's e2e support,
  // production code importing the fixtures (a spec may) or the test harnesses (e2e may)
  'libs/protocol/src/up.ts': "import { b } from '../../catalog/src/index';\nexport const e = b;\n",
  'libs/catalog/src/app.ts': "import { d } from '../../../apps/gateway/src/main';\nexport const f = d;\n",
  'libs/mcp-http/src/bare.ts': "import { x } from '@switchboard/gateway';\nexport const k = x;\n",
  'apps/auth/src/reach.ts': "import { c } from '../../gateway/src/own';\nexport const g = c;\n",
  'apps/registry/e2e/reach.spec.ts': "import { c } from '../../gateway/src/own';\nexport const h = c;\n",
  'apps/auth/e2e/support/x.ts': 'export const i = 1;\n',
  'apps/auth/src/harness.ts': "import { port } from '../../../libs/testing/src/index';\nexport const w = port;\n",
  'apps/gateway/src/demo.ts': "import { demo } from '../../../libs/fixtures/src/index';\nexport const u = demo;\n",
  // wrong: a registry feature importing another feature, model/ importing a feature, the pipeline importing a feature
  'apps/registry/src/tenants/tenants.ts': "import { s } from '../servers/servers';\nexport const t = s;\n",
  'apps/registry/src/model/up.ts': "import { s } from '../servers/servers';\nexport const m = s;\n",
  'apps/registry/src/publishing/up.ts': "import { s } from '../servers/servers';\nexport const q = s;\n",
  'apps/gateway/e2e/unlisted.spec.ts': "import { i } from '../../auth/e2e/support/x';\nexport const j = i;\n",
};
const expected = [
  'lib-graph-protocol libs/protocol/src/up.ts -> libs/catalog/src/index.ts',
  'no-lib-imports-app libs/catalog/src/app.ts -> apps/gateway/src/main.ts',
  'no-app-imports-app apps/auth/src/reach.ts -> apps/gateway/src/own.ts',
  'e2e-exception apps/registry/e2e/reach.spec.ts -> apps/gateway/src/own.ts',
  'no-lib-imports-app libs/mcp-http/src/bare.ts -> @switchboard/gateway',
  'no-app-imports-app apps/gateway/e2e/unlisted.spec.ts -> apps/auth/e2e/support/x.ts',
  'no-fixtures-in-production apps/gateway/src/demo.ts -> libs/fixtures/src/index.ts',
  'no-testing-in-production apps/auth/src/harness.ts -> libs/testing/src/index.ts',
  'registry-feature-folder apps/registry/src/tenants/tenants.ts -> apps/registry/src/servers/servers.ts',
  'registry-shared-folder apps/registry/src/model/up.ts -> apps/registry/src/servers/servers.ts',
  'registry-pipeline-publishing apps/registry/src/publishing/up.ts -> apps/registry/src/servers/servers.ts',
].sort();

const dir = mkdtempSync(join(tmpdir(), 'boundaries-'));
try {
  for (const [file, text] of Object.entries(tree)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  const run = spawnSync(
    process.execPath,
    [
      join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs'),
      'libs',
      'apps',
      '--config',
      join(ROOT, '.dependency-cruiser.cjs'),
      '--output-type',
      'json',
    ],
    { cwd: dir, encoding: 'utf8', maxBuffer: 64 << 20 },
  );
  if (run.error || !run.stdout) throw new Error(`depcruise did not run: ${run.error?.message ?? run.stderr}`);
  const result = JSON.parse(run.stdout);
  const got = result.summary.violations.map((v) => `${v.rule.name} ${v.from} -> ${v.to}`).sort();
  if (JSON.stringify(got) !== JSON.stringify(expected)) {
    throw new Error(`boundary self-test: expected\n  ${expected.join('\n  ')}\ngot\n  ${got.join('\n  ')}`);
  }
  // The real check uses the `err` reporter, whose exit status is the error count: it must fail here.
  const err = spawnSync(
    process.execPath,
    [
      join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs'),
      'libs',
      'apps',
      '--config',
      join(ROOT, '.dependency-cruiser.cjs'),
      '--output-type',
      'err',
    ],
    { cwd: dir, encoding: 'utf8' },
  );
  if (err.status === 0) throw new Error('depcruise --output-type err exited 0 on a tree with wrong imports');
  console.log(`boundary self-test: the lint refuses all ${expected.length} deliberately wrong imports and none of the allowed ones`);
  for (const line of got) console.log(`  ${line}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

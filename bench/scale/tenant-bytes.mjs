// bench/scale/tenant-bytes — what one resident tenant holds in a gateway, against the working
// set's estimate (TenantDirectory: 4 KiB + TENANT_BYTES_PER_DOCUMENT_BYTE × document bytes).
//
// Builds a registry document of the 40-tool fixture (upstream routes, as the registry publishes),
// then for each of `--counts` (default 2,000 and 6,000) makes that many tenants, each from its
// own JSON text (its id, and every description prefixed with its index, so no two tenants share
// a string), opened and compiled by the gateway's real path (openTenantDocument →
// TenantDirectory.apply) and held. After full GCs it reports the marginal bytes per tenant
// between the two counts (fixed costs such as the young generation cancel out): V8 heap used,
// external buffers, heap committed and RSS; and it fails (exit 1) when heap + external exceeds
// the estimate. Run with `npx node bench/scale/tenant-bytes.mjs` after `npm run build`.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildTenantDocument, tenantSettingsSchema } from '@switchboard/catalog';
import { SecretBox } from '@switchboard/secret-box';
import { FIXTURE } from './measure.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};

if (typeof globalThis.gc !== 'function') {
  // Full collections between counts need --expose-gc: run again with it.
  const r = spawnSync(process.execPath, ['--expose-gc', ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}

const { openTenantDocument } = await import(path.join(ROOT, 'apps/gateway/dist/catalog-source/open-tenant-document.js'));
const { TenantDirectory, TENANT_BYTES_PER_DOCUMENT_BYTE } = await import(path.join(ROOT, 'apps/gateway/dist/tenants/tenant-directory.js'));
const { CatalogCaches } = await import('@switchboard/catalog');

const tools = JSON.parse(readFileSync(FIXTURE, 'utf8')).tools;
const SERVER_ID = '5b0f7f0e-6a7c-4d2e-9a51-0c1d2e3f4a5b';
const template = JSON.stringify(
  buildTenantDocument(tenantSettingsSchema.parse({ id: 'tpl', name: 'Template tenant' }), {
    tenantId: 'tpl',
    version: 'v1',
    server: { name: 'saas-40-tools', version: '1.0.0' },
    tools: tools.map((definition) => ({
      definition,
      route: { kind: 'upstream', serverId: SERVER_ID, url: 'https://mcp.example-saas.com/v1/mcp', upstreamName: definition.name },
    })),
    resources: [],
    resourceTemplates: [],
    prompts: [],
  }),
);
const box = new SecretBox(Buffer.alloc(32, 7));
const directory = new TenantDirectory({ publicUrl: 'http://localhost:3000', caches: new CatalogCaches() });
let made = 0;
let documentBytes = 0;

function addTenants(upTo) {
  for (; made < upTo; made++) {
    const raw = template.replaceAll('"tpl"', `"t${made}"`).replaceAll('"description":"', `"description":"${made} `);
    documentBytes = Buffer.byteLength(raw);
    directory.apply(openTenantDocument(JSON.parse(raw), box).catalog, documentBytes);
  }
}

function settled() {
  for (let i = 0; i < 4; i++) globalThis.gc();
  return process.memoryUsage();
}

const counts = arg('counts', '2000,6000').split(',').map(Number);
addTenants(counts[0]);
const a = settled();
addTenants(counts[1]);
const b = settled();
if (directory.stats.resident !== counts[1]) throw new Error(`held ${directory.stats.resident} tenants, expected ${counts[1]}`);
const per = (k) => (b[k] - a[k]) / (counts[1] - counts[0]);
const estimate = directory.stats.bytes / directory.stats.resident;
const held = per('heapUsed') + per('external');
const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
console.log(`document ${kb(documentBytes)} (40 tools; TENANT_BYTES_PER_DOCUMENT_BYTE ${TENANT_BYTES_PER_DOCUMENT_BYTE})`);
console.log(`per resident tenant, between ${counts[0]} and ${counts[1]} tenants:`);
console.log(
  `  heap used ${kb(per('heapUsed'))} + external ${kb(per('external'))} = ${kb(held)}; estimate ${kb(estimate)} (${((estimate / held - 1) * 100).toFixed(0)}% above)`,
);
console.log(`  heap committed ${kb(per('heapTotal'))}, RSS ${kb(per('rss'))}`);
if (held > estimate) {
  console.error('the estimate is below what a tenant holds: the byte budget would hold more than it says');
  process.exit(1);
}

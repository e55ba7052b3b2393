import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BUILTIN_SURFACES, LEGACY_VERSIONS, MODERN_VERSIONS, type ProtocolVersion } from '@switchboard/protocol';
import { CompiledCatalog, type ListMethod } from './compiled-catalog';
import type { CatalogSnapshot, ToolDefinition } from './definitions';
import { CatalogCaches } from './catalog-caches';
import { toolDefinitionsFromJson } from './tool-definitions-from-json';

// The lazy path: list pages compiled on first use into a shared, byte-bounded, content-addressed
// LRU. Its output must be exactly what a catalog that keeps nothing produces, whatever was evicted.

const FIXTURE = path.resolve(__dirname, '../../../config/fixtures/saas-40-tools.json');
const fixtureTools = toolDefinitionsFromJson(JSON.parse(readFileSync(FIXTURE, 'utf8')));
const VERSIONS: ProtocolVersion[] = [...LEGACY_VERSIONS, ...MODERN_VERSIONS];
const METHODS: ListMethod[] = ['tools/list', 'resources/list', 'resources/templates/list', 'prompts/list'];
const surfaces = { ...BUILTIN_SURFACES };
const SURFACE_IDS = ['generic', ...Object.keys(surfaces).filter((s) => s !== 'generic'), 'unknown-surface'];

function snapshot(tenantId: string, tools: ToolDefinition[]): CatalogSnapshot {
  const local = (key: string) => ({ kind: 'local' as const, handler: `b:${key}` });
  return {
    tenantId,
    version: `v-${tenantId}`,
    server: { name: `server-${tenantId}`, version: '1.0.0' },
    tools: tools.map((definition) => ({ definition, route: local(definition.name) })),
    resources: [
      { definition: { uri: 'docs://a', name: 'a', title: 'A', mimeType: 'text/plain' }, route: local('docs://a') },
      { definition: { uri: 'docs://b', name: 'b' }, route: local('docs://b') },
    ],
    resourceTemplates: [{ definition: { uriTemplate: 'docs://{id}', name: 'doc', title: 'Doc' }, route: local('docs://{id}') }],
    prompts: [{ definition: { name: 'p', title: 'P', arguments: [{ name: 'x', required: true }] }, route: local('p') }],
  };
}

/** Every page of a list, following nextCursor (bounded). */
function pages(c: CompiledCatalog, method: ListMethod, surface: string, version: ProtocolVersion): Buffer[] {
  const out: Buffer[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 100; i++) {
    const page = c.list(method, surface, version, cursor);
    out.push(page);
    cursor = (JSON.parse(page.toString('utf8')) as { nextCursor?: string }).nextCursor;
    if (cursor === undefined) return out;
  }
  throw new Error('pagination did not end');
}

describe('CompiledCatalog lazy pages', () => {
  it('serves, for every surface × version × list, exactly the bytes of a catalog that keeps no page', () => {
    const uncached = CompiledCatalog.build(snapshot('t1', fixtureTools), {
      surfaces,
      pageSize: 7,
      caches: new CatalogCaches({ pageCacheBytes: 0 }),
    });
    const cached = CompiledCatalog.build(snapshot('t1', fixtureTools), {
      surfaces,
      pageSize: 7,
      caches: new CatalogCaches({ pageCacheBytes: 64 * 1024 * 1024 }),
    });
    for (const surface of SURFACE_IDS) {
      for (const version of VERSIONS) {
        for (const method of METHODS) {
          const expected = pages(uncached, method, surface, version).map((b) => b.toString('utf8'));
          // Twice: the first pass compiles (misses), the second is served from the cache.
          expect(pages(cached, method, surface, version).map((b) => b.toString('utf8'))).toEqual(expected);
          expect(pages(cached, method, surface, version).map((b) => b.toString('utf8'))).toEqual(expected);
        }
      }
    }
  });

  it('gives the same answers under a cache too small for one tenant’s pages (constant eviction)', () => {
    const tiny = new CatalogCaches({ pageCacheBytes: 20_000 });
    const reference = CompiledCatalog.build(snapshot('t1', fixtureTools), {
      surfaces,
      pageSize: 5,
      caches: new CatalogCaches({ pageCacheBytes: 0 }),
    });
    const c = CompiledCatalog.build(snapshot('t1', fixtureTools), { surfaces, pageSize: 5, caches: tiny });
    for (const surface of ['claude', 'openai', 'generic']) {
      for (const version of ['2025-03-26', '2025-11-25', '2026-07-28'] as ProtocolVersion[]) {
        expect(pages(c, 'tools/list', surface, version).map(String)).toEqual(pages(reference, 'tools/list', surface, version).map(String));
      }
    }
    expect(tiny.pages.stats.bytes).toBeLessThanOrEqual(20_000);
  });

  it('keeps cursors valid after their page was evicted and across a catalog swap', () => {
    const cache = new CatalogCaches({ pageCacheBytes: 64 * 1024 * 1024 });
    const before = CompiledCatalog.build(snapshot('t1', fixtureTools), { surfaces, pageSize: 10, caches: cache });
    const first = JSON.parse(before.list('tools/list', 'claude', '2025-11-25').toString('utf8')) as {
      nextCursor: string;
      tools: { name: string }[];
    };
    const second = before.list('tools/list', 'claude', '2025-11-25', first.nextCursor).toString('utf8');
    before.release(); // every page of this catalog gone
    expect(before.list('tools/list', 'claude', '2025-11-25', first.nextCursor).toString('utf8')).toBe(second);
    // The swapped-in catalog (same tools, new version) accepts the old cursor and answers the same page.
    const after = CompiledCatalog.build({ ...snapshot('t1', fixtureTools), version: 'v-next' }, { surfaces, pageSize: 10, caches: cache });
    expect(after.list('tools/list', 'claude', '2025-11-25', first.nextCursor).toString('utf8')).toBe(second);
    // And mints the same cursor for the same position.
    expect((JSON.parse(after.list('tools/list', 'claude', '2025-11-25').toString('utf8')) as { nextCursor: string }).nextCursor).toBe(
      first.nextCursor,
    );
  });

  it('shares one Buffer for equal pages across tenants, surfaces and versions', () => {
    const cache = new CatalogCaches({ pageCacheBytes: 64 * 1024 * 1024 });
    const a = CompiledCatalog.build(snapshot('a', fixtureTools), { surfaces, caches: cache });
    const b = CompiledCatalog.build(snapshot('b', fixtureTools), { surfaces, caches: cache });
    // Legacy-era tools/list carries nothing tenant-specific: two tenants with the same tools share it.
    expect(b.list('tools/list', 'claude', '2025-11-25')).toBe(a.list('tools/list', 'claude', '2025-11-25'));
    // The same bytes on two versions of one surface (2025-06-18 and 2025-11-25 publish the same fields).
    const v1 = a.list('tools/list', 'generic', '2025-06-18');
    const v2 = a.list('tools/list', 'generic', '2025-11-25');
    if (v1.equals(v2)) expect(v2).toBe(v1);
    // Modern pages carry each tenant's serverInfo, so they stay distinct.
    expect(a.list('tools/list', 'claude', '2026-07-28').equals(b.list('tools/list', 'claude', '2026-07-28'))).toBe(false);
  });

  it('a swap drops only the replaced catalog’s pages', () => {
    const cache = new CatalogCaches({ pageCacheBytes: 64 * 1024 * 1024 });
    const a = CompiledCatalog.build(snapshot('a', fixtureTools), { surfaces, caches: cache });
    const b = CompiledCatalog.build(snapshot('b', fixtureTools.slice(0, 10)), { surfaces, caches: cache });
    const bPage = b.list('tools/list', 'openai', '2026-07-28');
    a.list('tools/list', 'openai', '2026-07-28');
    const keysBefore = cache.pages.stats.keys;
    a.release();
    expect(cache.pages.stats.keys).toBe(keysBefore - 1);
    const missesBefore = cache.pages.stats.misses;
    expect(b.list('tools/list', 'openai', '2026-07-28')).toBe(bPage);
    expect(cache.pages.stats.misses).toBe(missesBefore);
  });

  it('compiles nothing for a list until it is asked for', () => {
    const cache = new CatalogCaches({ pageCacheBytes: 64 * 1024 * 1024 });
    CompiledCatalog.build(snapshot('idle', fixtureTools), { surfaces, caches: cache });
    expect(cache.pages.stats).toMatchObject({ keys: 0, bytes: 0 });
  });

  it('shares one validator per schema object across catalogs of one CatalogCaches, and none across two', () => {
    const caches = new CatalogCaches({ pageCacheBytes: 0 });
    const a = CompiledCatalog.build(snapshot('a', fixtureTools), { surfaces, caches });
    const b = CompiledCatalog.build(snapshot('b', fixtureTools), { surfaces, caches });
    const otherCaches = new CatalogCaches({ pageCacheBytes: 0 });
    const other = CompiledCatalog.build(snapshot('o', fixtureTools), { surfaces, caches: otherCaches });
    const name = fixtureTools[0]?.name as string;
    const compiles = jest.spyOn(caches.schemas, 'compile');
    const otherCompiles = jest.spyOn(otherCaches.schemas, 'compile');
    expect(a.tool(name)?.validate({})).toMatch(/: is required$/);
    expect(b.tool(name)?.validate({})).toBe(a.tool(name)?.validate({}));
    // The second catalog's first call found the first one's validator by schema object: no compile, not even the content hash.
    expect(compiles).toHaveBeenCalledTimes(1);
    expect(other.tool(name)?.validate({})).toBe(a.tool(name)?.validate({}));
    expect(otherCompiles).toHaveBeenCalledTimes(1);
  });

  it('shares one validator per schema content across catalogs with distinct schema objects', () => {
    const caches = new CatalogCaches({ pageCacheBytes: 0 });
    const a = CompiledCatalog.build(snapshot('a', fixtureTools), { surfaces, caches });
    const b = CompiledCatalog.build(snapshot('b', structuredClone(fixtureTools)), { surfaces, caches });
    const tool = fixtureTools.find((t) => Array.isArray(t.inputSchema.required) && t.inputSchema.required.length > 0) as ToolDefinition;
    // Each catalog compiles on its first call; both get the same verdicts (one compiled validator behind them).
    expect(a.tool(tool.name)?.validate({})).toMatch(/: is required$/);
    expect(b.tool(tool.name)?.validate({})).toBe(a.tool(tool.name)?.validate({}));
  });

  it('shares one tool map between catalogs built from the same frozen entries, and none otherwise', () => {
    const frozen = snapshot('f', fixtureTools).tools.map((e) => Object.freeze(e));
    const caches = new CatalogCaches({ pageCacheBytes: 0 });
    const a = CompiledCatalog.build({ ...snapshot('a', []), tools: frozen }, { surfaces, caches });
    const b = CompiledCatalog.build({ ...snapshot('b', []), tools: frozen.slice() }, { surfaces, caches });
    const c = CompiledCatalog.build({ ...snapshot('c', []), tools: frozen.slice(0, 5) }, { surfaces, caches });
    const name = fixtureTools[0]?.name as string;
    expect(b.tool(name)).toBe(a.tool(name));
    expect(c.tool(name)).not.toBe(a.tool(name));
    expect(c.tool(name)?.entry).toBe(a.tool(name)?.entry);
    expect(c.tool(fixtureTools[6]?.name as string)).toBeUndefined();
    expect(b.tool(fixtureTools[6]?.name as string)?.entry).toBe(frozen[6]);
  });

  it('still refuses duplicate tool names when the entries are frozen', () => {
    const frozen = snapshot('f', fixtureTools.slice(0, 2)).tools.map((e) => Object.freeze(e));
    expect(() =>
      CompiledCatalog.build(
        { ...snapshot('d', []), tools: [...frozen, frozen[0] as never] },
        { surfaces, caches: new CatalogCaches({ pageCacheBytes: 0 }) },
      ),
    ).toThrow(/Duplicate tool/);
  });

  it('serves tenants of the same frozen entries from one shared page body: each its own serverInfo, the bytes a catalog keeping nothing gives', () => {
    const frozen = snapshot('f', fixtureTools).tools.map((e) => Object.freeze(e));
    const cache = new CatalogCaches({ pageCacheBytes: 64 * 1024 * 1024 });
    const build = (id: string, caches: CatalogCaches) =>
      CompiledCatalog.build({ ...snapshot(id, []), tools: frozen.slice() }, { surfaces, caches, pageSize: 7 });
    const a = build('a', cache);
    const b = build('b', cache);
    const small = { ...surfaces, claude: { ...surfaces.claude, maxTools: 3 } };
    const capped = CompiledCatalog.build({ ...snapshot('c', []), tools: frozen.slice() }, { surfaces: small, caches: cache, pageSize: 7 });
    for (const version of VERSIONS) {
      for (const surface of SURFACE_IDS) {
        const plainA = CompiledCatalog.build(
          { ...snapshot('a', []), tools: frozen.map((e) => ({ ...e })) },
          { surfaces, caches: new CatalogCaches({ pageCacheBytes: 0 }), pageSize: 7 },
        );
        expect(Buffer.concat(pages(a, 'tools/list', surface, version)).toString('utf8')).toBe(
          Buffer.concat(pages(plainA, 'tools/list', surface, version)).toString('utf8'),
        );
        const pb = pages(b, 'tools/list', surface, version).map((p) => JSON.parse(p.toString('utf8')));
        const pa = pages(a, 'tools/list', surface, version).map((p) => JSON.parse(p.toString('utf8')));
        expect(pb.map((p) => p.tools)).toEqual(pa.map((p) => p.tools));
        if (version >= '2025-11-25' && pb[0]._meta) expect(JSON.stringify(pb[0]._meta)).toContain('server-b');
      }
    }
    // A surface profile with other rules (same name) gets its own body, not the shared one.
    expect(JSON.parse(capped.list('tools/list', 'claude', '2026-07-28').toString('utf8')).tools).toHaveLength(3);
    expect(JSON.parse(a.list('tools/list', 'claude', '2026-07-28').toString('utf8')).tools).toHaveLength(7);
  });
  it('hands the shared page body out as is, with the tenant’s own tail beside it (no per-request copy)', () => {
    const frozen = snapshot('f', fixtureTools).tools.map((e) => Object.freeze(e));
    const cache = new CatalogCaches({ pageCacheBytes: 64 * 1024 * 1024 });
    const build = (id: string) =>
      CompiledCatalog.build({ ...snapshot(id, []), tools: frozen.slice() }, { surfaces, caches: cache, pageSize: 7 });
    const a = build('a');
    const b = build('b');
    for (const version of VERSIONS) {
      const pa = a.listPage('tools/list', 'claude', version);
      const pb = b.listPage('tools/list', 'claude', version);
      // One body Buffer for both tenants, and the same one again on the next request.
      expect(pb.body).toBe(pa.body);
      expect(a.listPage('tools/list', 'claude', version).body).toBe(pa.body);
      expect(a.listPage('tools/list', 'claude', version).tail).toBe(pa.tail);
      expect(Buffer.concat([pa.body, pa.tail ?? Buffer.alloc(0)]).equals(a.list('tools/list', 'claude', version))).toBe(true);
      const parsed = JSON.parse(Buffer.concat([pb.body, pb.tail ?? Buffer.alloc(0)]).toString('utf8')) as {
        tools: unknown[];
        _meta?: unknown;
      };
      expect(parsed.tools).toHaveLength(7);
      if (version >= '2025-11-25' && parsed._meta) expect(JSON.stringify(parsed._meta)).toContain('server-b');
    }
  });

  it('serves the first tools page of shared entries right for every page size, surface and version, from a ready key once compiled', () => {
    const frozen = snapshot('f', fixtureTools).tools.map((e) => Object.freeze(e));
    const cache = new CatalogCaches({ pageCacheBytes: 64 * 1024 * 1024 });
    // Two page sizes over one tool group: the group's ready keys must not hand one size's body to the other.
    const seven = CompiledCatalog.build({ ...snapshot('a', []), tools: frozen.slice() }, { surfaces, caches: cache, pageSize: 7 });
    const hundred = CompiledCatalog.build({ ...snapshot('a', []), tools: frozen.slice() }, { surfaces, caches: cache, pageSize: 100 });
    for (const pageSize of [7, 100]) {
      const c = pageSize === 7 ? seven : hundred;
      const plain = CompiledCatalog.build(
        { ...snapshot('a', []), tools: frozen.map((e) => ({ ...e })) },
        { surfaces, caches: new CatalogCaches({ pageCacheBytes: 0 }), pageSize },
      );
      for (const version of VERSIONS) {
        for (const surface of SURFACE_IDS) {
          const expected = plain.list('tools/list', surface, version).toString('utf8');
          expect(c.list('tools/list', surface, version).toString('utf8')).toBe(expected);
          const misses = cache.pages.stats.misses;
          expect(c.list('tools/list', surface, version).toString('utf8')).toBe(expected);
          expect(cache.pages.stats.misses).toBe(misses);
        }
      }
    }
  });

  it('compiles the first tools page of shared entries again after its body was evicted (a ready key that misses)', () => {
    const frozen = snapshot('f', fixtureTools).tools.map((e) => Object.freeze(e));
    const pageSize = 40;
    const plain = CompiledCatalog.build(
      { ...snapshot('a', []), tools: frozen.map((e) => ({ ...e })) },
      { surfaces, caches: new CatalogCaches({ pageCacheBytes: 0 }), pageSize },
    );
    const bodyBytes = plain.listPage('tools/list', 'claude', '2025-03-26').body.length;
    // Room for one body: asking another surface evicts the first one's.
    const cache = new CatalogCaches({ pageCacheBytes: bodyBytes + 10 });
    const c = CompiledCatalog.build({ ...snapshot('a', []), tools: frozen.slice() }, { surfaces, caches: cache, pageSize });
    for (let round = 0; round < 3; round++) {
      for (const surface of ['claude', 'openai', 'generic']) {
        expect(c.list('tools/list', surface, '2025-03-26').toString('utf8')).toBe(
          plain.list('tools/list', surface, '2025-03-26').toString('utf8'),
        );
      }
    }
    expect(cache.pages.stats.bytes).toBeLessThanOrEqual(bodyBytes + 10);
  });

  it('shares one tail Buffer between tenants whose modern fields are equal, and keeps distinct ones apart', () => {
    const frozen = snapshot('f', fixtureTools).tools.map((e) => Object.freeze(e));
    const cache = new CatalogCaches({ pageCacheBytes: 64 * 1024 * 1024 });
    const build = (id: string, serverName: string) =>
      CompiledCatalog.build(
        { ...snapshot(id, []), server: { name: serverName, version: '1.0.0' }, tools: frozen.slice() },
        { surfaces, caches: cache },
      );
    const a = build('a', 'same');
    const b = build('b', 'same');
    const c = build('c', 'other');
    const version: ProtocolVersion = MODERN_VERSIONS[0] as ProtocolVersion;
    expect(b.listPage('tools/list', 'claude', version).tail).toBe(a.listPage('tools/list', 'claude', version).tail);
    expect(c.listPage('tools/list', 'claude', version).tail?.toString('utf8')).toContain('"other"');
    expect(a.listPage('tools/list', 'claude', version).tail?.toString('utf8')).toContain('"same"');
  });

  it('a swap of one tenant of a tool group leaves the others’ pages served without a miss', () => {
    const frozen = snapshot('f', fixtureTools).tools.map((e) => Object.freeze(e));
    const cache = new CatalogCaches({ pageCacheBytes: 64 * 1024 * 1024 });
    const build = (id: string, version: string) =>
      CompiledCatalog.build({ ...snapshot(id, []), version, tools: frozen.slice() }, { surfaces, caches: cache });
    const a = build('a', 'v1');
    const b = build('b', 'v1');
    const before = b.list('tools/list', 'claude', '2025-11-25').toString('utf8');
    a.list('tools/list', 'claude', '2025-11-25');
    // Tenant a's catalog is replaced: its own pages go, the group body b is served from stays.
    a.release();
    const next = build('a', 'v2');
    const misses = cache.pages.stats.misses;
    expect(b.list('tools/list', 'claude', '2025-11-25').toString('utf8')).toBe(before);
    expect(cache.pages.stats.misses).toBe(misses);
    expect(JSON.parse(next.list('tools/list', 'claude', '2025-11-25').toString('utf8')).tools).toHaveLength(fixtureTools.length);
  });
});

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BUILTIN_SURFACES, LEGACY_VERSIONS, MODERN_VERSIONS, type ProtocolVersion } from '@switchboard/protocol';
import { CatalogCaches } from './catalog-caches';
import { compactToolEntries, isCompact } from './compact-tool-entry';
import { CompiledCatalog } from './compiled-catalog';
import type { CatalogSnapshot, Route, ToolEntry } from './definitions';
import { toolDefinitionsFromJson } from './tool-definitions-from-json';

const FIXTURE = path.resolve(__dirname, '../../../config/fixtures/saas-40-tools.json');
const VERSIONS: ProtocolVersion[] = [...LEGACY_VERSIONS, ...MODERN_VERSIONS];

/** The fixture's tools as a registry document carries them: one upstream, a copy of every string per tool. */
function fixtureEntries(): ToolEntry[] {
  const tools = toolDefinitionsFromJson(JSON.parse(readFileSync(FIXTURE, 'utf8')));
  const entries = tools.map((definition) => ({
    definition,
    route: { kind: 'upstream', serverId: 'srv-1', url: 'https://up.example/mcp', upstreamName: definition.name } as Route,
  }));
  return JSON.parse(JSON.stringify(entries)) as ToolEntry[];
}

function snapshotOf(tools: ToolEntry[]): CatalogSnapshot {
  return { tenantId: 't', version: 'v1', server: { name: 's', version: '1' }, tools, resources: [], resourceTemplates: [], prompts: [] };
}

describe('compactToolEntries', () => {
  it('keeps every field readable, serializable and equal to the parsed document', () => {
    const entries = fixtureEntries();
    const compact = compactToolEntries(entries);
    expect(compact.every((e) => isCompact(e.definition))).toBe(true);
    expect(entries.some((e) => isCompact(e.definition))).toBe(false);
    expect(JSON.stringify(compact)).toBe(JSON.stringify(entries));
    expect(compact).toEqual(entries);
    expect(compact.map((e) => ({ ...e.definition }))).toEqual(entries.map((e) => e.definition));
    expect(compact[3]?.definition.inputSchema).toEqual(entries[3]?.definition.inputSchema);
  });

  it('parses a schema on each read, so a caller cannot change what later readers see', () => {
    const [entry] = compactToolEntries(fixtureEntries());
    const first = entry!.definition.inputSchema;
    first.type = 'mutated';
    expect(entry!.definition.inputSchema).not.toBe(first);
    expect(entry!.definition.inputSchema.type).toBe('object');
  });

  it('round-trips output schemas and text outside Latin-1 (offsets are in UTF-16 units of the inflated text)', () => {
    const entries: ToolEntry[] = [
      {
        definition: {
          name: 'a',
          inputSchema: { type: 'object', properties: { q: { type: 'string', description: 'Требуется 🙂 — 必須' } } },
          outputSchema: { type: 'object', properties: { n: { type: 'integer' } } },
        },
        route: { kind: 'local', handler: 'h:a' },
      },
      {
        definition: { name: 'b', description: '日本語', inputSchema: { type: 'object', title: 'é' } },
        route: { kind: 'local', handler: 'h:b' },
      },
    ];
    const compact = compactToolEntries(JSON.parse(JSON.stringify(entries)) as ToolEntry[]);
    expect(compact).toEqual(entries);
    // Reading b then a then b again crosses no other pack: each still comes from its own offsets.
    expect(compact[1]?.definition.inputSchema).toEqual(entries[1]?.definition.inputSchema);
    expect(compact[0]?.definition.outputSchema).toEqual(entries[0]?.definition.outputSchema);
    expect(compactToolEntries(fixtureEntries())[0]?.definition.inputSchema).toEqual(fixtureEntries()[0]?.definition.inputSchema);
    expect(compact[0]?.definition.inputSchema).toEqual(entries[0]?.definition.inputSchema);
  });

  it('keeps each upstream route: server, url and the upstream name of each tool', () => {
    const compact = compactToolEntries(fixtureEntries());
    const routes = compact.map((e) => e.route as Extract<Route, { kind: 'upstream' }>);
    expect(routes[0]?.url).toBe('https://up.example/mcp');
    expect(new Set(routes.map((r) => r.upstreamName)).size).toBe(routes.length);
  });

  it('leaves a document without schemas as it was', () => {
    const entries = [{ definition: { name: 'x' }, route: { kind: 'local', handler: 'h' } }] as unknown as ToolEntry[];
    const compact = compactToolEntries(entries);
    expect(compact).toEqual(entries);
    expect(isCompact(compact[0]!.definition)).toBe(false);
  });

  it('compiles to the same list bytes, validators and header arguments as the parsed document', () => {
    const caches = new CatalogCaches();
    const surfaces = { ...BUILTIN_SURFACES };
    const parsed = CompiledCatalog.build(snapshotOf(fixtureEntries()), { surfaces, caches: new CatalogCaches() });
    const compact = CompiledCatalog.build(snapshotOf(compactToolEntries(fixtureEntries())), { surfaces, caches });
    for (const surface of Object.keys(surfaces)) {
      for (const version of VERSIONS) {
        expect(compact.list('tools/list', surface, version).toString()).toBe(parsed.list('tools/list', surface, version).toString());
      }
    }
    const name = fixtureEntries()[0]!.definition.name;
    expect(compact.tool(name)!.validate({})).toBe(parsed.tool(name)!.validate({}));
    expect(compact.tool(name)!.validate({ query: 'x' })).toBeNull();
    expect(compact.tool(name)!.headerParams()).toEqual(parsed.tool(name)!.headerParams());
  });

  it('finds the SEP-2243 header arguments of a compacted schema, once per tool', () => {
    const entries: ToolEntry[] = [
      {
        definition: {
          name: 'h',
          inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, n: { type: 'integer' } } },
        },
        route: { kind: 'upstream', serverId: 's', url: 'https://up.example/mcp', upstreamName: 'h' },
      },
    ];
    const catalog = CompiledCatalog.build(snapshotOf(compactToolEntries(entries)), { surfaces: {}, caches: new CatalogCaches() });
    const slot = catalog.tool('h')!;
    expect(slot.headerParams()).toEqual([{ argument: 'region', header: 'Region' }]);
    expect(slot.headerParams()).toBe(slot.headerParams());
  });
});

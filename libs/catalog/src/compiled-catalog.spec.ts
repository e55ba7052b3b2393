import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  BUILTIN_SURFACES,
  ErrorCode,
  LEGACY_VERSIONS,
  McpError,
  MODERN_VERSIONS,
  type ProtocolVersion,
  type SurfaceProfile,
} from '@switchboard/protocol';
import { CatalogError } from './catalog-error';
import { CompiledCatalog, type ListMethod } from './compiled-catalog';
import type { CatalogSnapshot, ToolDefinition, ToolEntry } from './definitions';
import { toolDefinitionsFromJson } from './tool-definitions-from-json';

const FIXTURE = path.resolve(__dirname, '../../../config/fixtures/saas-40-tools.json');
const fixtureTools = toolDefinitionsFromJson(JSON.parse(readFileSync(FIXTURE, 'utf8')));
const VERSIONS: ProtocolVersion[] = [...LEGACY_VERSIONS, ...MODERN_VERSIONS];
const surfaces = { ...BUILTIN_SURFACES };

function upstream(name: string): ToolEntry['route'] {
  return { kind: 'upstream', serverId: 's1', url: 'https://up.example/mcp', upstreamName: name };
}

function snapshot(tools: ToolDefinition[], extra: Partial<CatalogSnapshot> = {}): CatalogSnapshot {
  return {
    tenantId: 't1',
    version: 'v1',
    server: { name: 'acme', version: '1.2.3', title: 'Acme' },
    tools: tools.map((definition) => ({ definition, route: upstream(definition.name) })),
    resources: [],
    resourceTemplates: [],
    prompts: [],
    ...extra,
  };
}

function parse(buf: Buffer): Record<string, unknown> {
  return JSON.parse(buf.toString('utf8')) as Record<string, unknown>;
}

/** Follows nextCursor until the end (bounded by the item count) and returns every page. */
function allPages(c: CompiledCatalog, method: ListMethod, surface: string, version: ProtocolVersion): Record<string, unknown>[] {
  const pages: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 1_000; i++) {
    const page = parse(c.list(method, surface, version, cursor));
    pages.push(page);
    cursor = page.nextCursor as string | undefined;
    if (cursor === undefined) return pages;
  }
  throw new Error('pagination did not end');
}

function listedTools(c: CompiledCatalog, surface: string, version: ProtocolVersion): Record<string, unknown>[] {
  return allPages(c, 'tools/list', surface, version).flatMap((p) => p.tools as Record<string, unknown>[]);
}

function thrown(fn: () => unknown): McpError {
  try {
    fn();
  } catch (err) {
    if (err instanceof McpError) return err;
    throw err;
  }
  throw new Error('expected an McpError');
}

describe('CompiledCatalog on the 40-tool fixture', () => {
  const catalog = CompiledCatalog.build(snapshot(fixtureTools), { surfaces });
  const names = fixtureTools.map((t) => t.name);

  it('lists the same 40 names in catalog order on every surface', () => {
    for (const surface of ['generic', 'claude', 'openai']) {
      expect(listedTools(catalog, surface, '2025-11-25').map((t) => t.name)).toEqual(names);
    }
  });

  it('claude: no securitySchemes anywhere, no openai/* or ui _meta, title annotation and all four hints on every tool', () => {
    for (const version of ['2025-06-18', '2025-11-25', '2026-07-28'] as const) {
      const bytes = catalog.list('tools/list', 'claude', version).toString('utf8');
      expect(bytes).not.toContain('securitySchemes');
      expect(bytes).not.toContain('openai/');
      for (const tool of listedTools(catalog, 'claude', version)) {
        const meta = (tool._meta ?? {}) as Record<string, unknown>;
        expect(Object.keys(meta).filter((k) => k.startsWith('openai/') || k === 'ui')).toEqual([]);
        const a = tool.annotations as Record<string, unknown>;
        expect(typeof a.title).toBe('string');
        for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) expect(typeof a[hint]).toBe('boolean');
      }
    }
  });

  it('openai: keeps securitySchemes and the widget _meta keys', () => {
    const tools = listedTools(catalog, 'openai', '2025-06-18');
    const withSchemes = tools.filter((t) => t.securitySchemes);
    expect(withSchemes).toHaveLength(3);
    for (const t of withSchemes) {
      const meta = t._meta as Record<string, unknown>;
      expect(meta['openai/outputTemplate']).toEqual(expect.stringMatching(/^ui:\/\//));
      expect(meta.ui).toBeDefined();
      expect(meta.securitySchemes).toEqual(t.securitySchemes);
    }
  });

  it('generic: no vendor _meta (openai/*, ui) and no top-level securitySchemes', () => {
    const tools = listedTools(catalog, 'generic', '2025-06-18');
    expect(tools.filter((t) => t.securitySchemes)).toEqual([]);
    expect(tools.filter((t) => t._meta)).toEqual([]);
  });

  it('falls back to generic for an unknown surface id', () => {
    expect(catalog.list('tools/list', 'nope', '2025-06-18')).toBe(catalog.list('tools/list', 'generic', '2025-06-18'));
  });

  it('returns the identical Buffer instance on repeated calls', () => {
    const first = catalog.list('tools/list', 'claude', '2026-07-28');
    expect(catalog.list('tools/list', 'claude', '2026-07-28')).toBe(first);
  });

  it('adds resultType, ttlMs, cacheScope and serverInfo only to modern results', () => {
    const modern = parse(catalog.list('tools/list', 'generic', '2026-07-28'));
    expect(modern).toMatchObject({
      resultType: 'complete',
      ttlMs: 60_000,
      cacheScope: 'private',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'acme', version: '1.2.3', title: 'Acme' } },
    });
    for (const v of LEGACY_VERSIONS) {
      const legacy = parse(catalog.list('tools/list', 'generic', v));
      expect(Object.keys(legacy)).toEqual(['tools']);
    }
  });

  it('publishes per-version fields (no annotations at 2024-11-05, no title before 2025-06-18)', () => {
    const old = listedTools(catalog, 'claude', '2024-11-05');
    expect(old.every((t) => Object.keys(t).join() === 'name,description,inputSchema')).toBe(true);
    const v2 = listedTools(catalog, 'claude', '2025-03-26');
    expect(v2.every((t) => t.annotations && !t.title)).toBe(true);
  });

  it('has a precompiled validator per tool', () => {
    const found = catalog.tool('github_get_issue');
    expect(found?.entry.route).toEqual(upstream('github_get_issue'));
    expect(found?.validate({ owner: 'a', repo: 'b', issueNumber: 1 })).toBeNull();
    expect(found?.validate({ owner: 'a', repo: 'b' })).toBe('issueNumber: is required');
    expect(catalog.tool('github_get_issue')?.validate).toBe(found?.validate);
    expect(catalog.tool('nope')).toBeUndefined();
  });
});

describe('CompiledCatalog pagination', () => {
  const defs: ToolDefinition[] = Array.from({ length: 23 }, (_, i) => ({
    name: `tool_${String(i).padStart(2, '0')}`,
    inputSchema: { type: 'object' },
  }));
  const options = { surfaces, pageSize: 5 };
  const catalog = CompiledCatalog.build(snapshot(defs), options);

  it('returns every item exactly once across pages, in catalog order, for every surface and version', () => {
    for (const surface of Object.keys(surfaces)) {
      for (const version of VERSIONS) {
        const pages = allPages(catalog, 'tools/list', surface, version);
        expect(pages.map((p) => (p.tools as unknown[]).length)).toEqual([5, 5, 5, 5, 3]);
        expect(pages.flatMap((p) => (p.tools as { name: string }[]).map((t) => t.name))).toEqual(defs.map((d) => d.name));
        expect(pages[4]).not.toHaveProperty('nextCursor');
      }
    }
  });

  it('serves boundary pages as precompiled buffers', () => {
    const cursor = parse(catalog.list('tools/list', 'generic', '2025-06-18')).nextCursor as string;
    expect(catalog.list('tools/list', 'generic', '2025-06-18', cursor)).toBe(catalog.list('tools/list', 'generic', '2025-06-18', cursor));
  });

  it('answers an invalid cursor with -32602', () => {
    for (const bad of [
      '!!!',
      'bm90IGpzb24',
      Buffer.from('[0,"x"]').toString('base64url'),
      Buffer.from('{"a":1}').toString('base64url'),
      '',
      'x'.repeat(5000),
    ]) {
      const err = thrown(() => catalog.list('tools/list', 'generic', '2025-06-18', bad));
      expect(err.code).toBe(ErrorCode.InvalidParams);
      expect(err.message).toBe('Invalid cursor');
    }
    expect(thrown(() => catalog.list('tools/list', 'generic', '2025-06-18', 42 as unknown as string)).code).toBe(ErrorCode.InvalidParams);
  });

  it('keeps cursors stable across snapshot changes and resumes after the last key seen', () => {
    const cursor = parse(catalog.list('tools/list', 'generic', '2025-06-18')).nextCursor as string;
    // A new snapshot with the same tools yields the same cursor bytes.
    const same = CompiledCatalog.build({ ...snapshot(defs), version: 'v2' }, options);
    expect(parse(same.list('tools/list', 'generic', '2025-06-18')).nextCursor).toBe(cursor);
    // Two tools inserted at the front: the old cursor still resumes right after tool_04.
    const grown = CompiledCatalog.build(
      snapshot([{ name: 'new_a', inputSchema: { type: 'object' } }, { name: 'new_b', inputSchema: { type: 'object' } }, ...defs]),
      options,
    );
    const page = parse(grown.list('tools/list', 'generic', '2025-06-18', cursor));
    expect((page.tools as { name: string }[]).map((t) => t.name)).toEqual(['tool_05', 'tool_06', 'tool_07', 'tool_08', 'tool_09']);
    expect(typeof page.nextCursor).toBe('string');
    // The last key seen was removed: resume at the offset the cursor was minted at.
    const shrunk = CompiledCatalog.build(snapshot(defs.filter((d) => d.name !== 'tool_04')), options);
    const after = parse(shrunk.list('tools/list', 'generic', '2025-06-18', cursor));
    expect((after.tools as { name: string }[])[0]?.name).toBe('tool_06');
  });

  it('returns an empty last page for a cursor past the end of a shorter catalog', () => {
    const deep = allPages(catalog, 'tools/list', 'generic', '2025-06-18')[3]?.nextCursor as string;
    const tiny = CompiledCatalog.build(snapshot(defs.slice(0, 2)), options);
    expect(parse(tiny.list('tools/list', 'generic', '2025-06-18', deep))).toEqual({ tools: [] });
  });

  it('applies a surface maxTools cap', () => {
    const capped: SurfaceProfile = { ...BUILTIN_SURFACES.generic, id: 'capped', maxTools: 7 };
    const c = CompiledCatalog.build(snapshot(defs), { surfaces: { capped }, pageSize: 5 });
    expect(listedTools(c, 'capped', '2025-06-18').map((t) => t.name)).toEqual(defs.slice(0, 7).map((d) => d.name));
  });

  it('returns one empty page for an empty list', () => {
    expect(parse(catalog.list('prompts/list', 'generic', '2025-06-18'))).toEqual({ prompts: [] });
    expect(parse(catalog.list('resources/templates/list', 'generic', '2026-07-28'))).toMatchObject({
      resourceTemplates: [],
      resultType: 'complete',
    });
  });
});

describe('CompiledCatalog unlisted tools', () => {
  const defs: ToolDefinition[] = Array.from({ length: 8 }, (_, i) => ({
    name: `tool_${i}`,
    inputSchema: { type: 'object', properties: { n: { type: 'number' } } },
  }));
  // tool_1 and tool_4 are in a grace period: callable, never listed.
  const snap: CatalogSnapshot = {
    ...snapshot(defs),
    tools: snapshot(defs).tools.map((e, i) => (i === 1 || i === 4 ? { ...e, unlisted: true } : e)),
  };
  const listed = defs.filter((_, i) => i !== 1 && i !== 4).map((d) => d.name);

  it('leaves unlisted tools out of every list page for every surface and version', () => {
    const c = CompiledCatalog.build(snap, { surfaces, pageSize: 2 });
    for (const surface of Object.keys(surfaces)) {
      for (const version of VERSIONS) {
        expect(listedTools(c, surface, version).map((t) => t.name)).toEqual(listed);
      }
    }
  });

  it('still finds an unlisted tool by name, with its validator', () => {
    const c = CompiledCatalog.build(snap, { surfaces });
    const found = c.tool('tool_4');
    expect(found?.entry.unlisted).toBe(true);
    expect(found?.entry.definition.name).toBe('tool_4');
    expect(found?.validate({ n: 1 })).toBeNull();
    expect(found?.validate({ n: 'x' })).not.toBeNull();
  });

  it('does not count unlisted tools against a surface maxTools cap', () => {
    const capped: SurfaceProfile = { ...BUILTIN_SURFACES.generic, id: 'capped', maxTools: 4 };
    const c = CompiledCatalog.build(snap, { surfaces: { capped } });
    expect(listedTools(c, 'capped', '2025-06-18').map((t) => t.name)).toEqual(['tool_0', 'tool_2', 'tool_3', 'tool_5']);
  });

  it('keeps the tools capability when every tool is unlisted (they stay callable)', () => {
    const only: CatalogSnapshot = {
      ...snapshot([defs[0] as ToolDefinition]),
      tools: [{ definition: defs[0] as ToolDefinition, route: upstream('tool_0'), unlisted: true }],
    };
    const c = CompiledCatalog.build(only, { surfaces });
    expect(parse(c.list('tools/list', 'generic', '2025-06-18'))).toEqual({ tools: [] });
    expect(c.capabilities.tools).toEqual({ listChanged: false });
    expect(c.tool('tool_0')).toBeDefined();
  });

  it('still rejects an unlisted tool that shares a name with a listed one', () => {
    const dup: CatalogSnapshot = {
      ...snapshot([defs[0] as ToolDefinition]),
      tools: [
        ...snapshot([defs[0] as ToolDefinition]).tools,
        { definition: defs[0] as ToolDefinition, route: upstream('old'), unlisted: true },
      ],
    };
    expect(() => CompiledCatalog.build(dup, { surfaces })).toThrow(CatalogError);
  });
});

describe('CompiledCatalog resources, prompts and capabilities', () => {
  const snap = snapshot([{ name: 'echo', inputSchema: { type: 'object' } }], {
    resources: [
      {
        definition: { uri: 'test://static-text', name: 'static', title: 'Static', mimeType: 'text/plain', _meta: { ui: { x: 1 } } },
        route: { kind: 'local', handler: 'd:test://static-text' },
      },
    ],
    resourceTemplates: [
      {
        definition: { uriTemplate: 'test://template/{id}/data', name: 'item' },
        route: { kind: 'local', handler: 'd:test://template/{id}/data' },
      },
    ],
    prompts: [
      {
        definition: { name: 'greet', title: 'Greet', description: 'Say hi', arguments: [{ name: 'who', title: 'Who', required: true }] },
        route: { kind: 'local', handler: 'd:greet' },
      },
    ],
  });
  const catalog = CompiledCatalog.build(snap, { surfaces, ttlMs: 5_000, cacheScope: 'public' });

  it('derives capabilities from what the snapshot holds', () => {
    expect(catalog.capabilities).toEqual({
      tools: { listChanged: false },
      resources: { subscribe: true, listChanged: false },
      prompts: { listChanged: false },
      logging: {},
      completions: {},
    });
    const toolsOnly = CompiledCatalog.build(snapshot([{ name: 'x', inputSchema: { type: 'object' } }]), { surfaces });
    expect(toolsOnly.capabilities).toEqual({ tools: { listChanged: false }, logging: {}, completions: {} });
    expect(CompiledCatalog.build(snap, { surfaces, resourceSubscribe: false }).capabilities.resources).toEqual({
      subscribe: false,
      listChanged: false,
    });
  });

  it('exposes serverInfo', () => {
    expect(catalog.serverInfo).toEqual({ name: 'acme', version: '1.2.3', title: 'Acme' });
  });

  it('finds a resource by URI or by template with its variables', () => {
    expect(catalog.resource('test://static-text')).toEqual({ entry: snap.resources[0] });
    expect(catalog.resource('test://template/42/data')).toEqual({ template: snap.resourceTemplates[0], vars: { id: '42' } });
    expect(catalog.resource('test://template/4/2/data')).toBeUndefined();
    expect(catalog.prompt('greet')).toBe(snap.prompts[0]);
    expect(catalog.prompt('nope')).toBeUndefined();
  });

  it('lists resources, templates and prompts per version and surface', () => {
    expect(parse(catalog.list('resources/list', 'openai', '2025-06-18'))).toEqual({
      resources: [{ uri: 'test://static-text', name: 'static', title: 'Static', mimeType: 'text/plain', _meta: { ui: { x: 1 } } }],
    });
    // Vendor `_meta` (here `ui`) stays on its vendor's surface.
    expect(parse(catalog.list('resources/list', 'generic', '2025-06-18'))).toEqual({
      resources: [{ uri: 'test://static-text', name: 'static', title: 'Static', mimeType: 'text/plain' }],
    });
    expect(parse(catalog.list('resources/list', 'claude', '2025-06-18'))).toEqual({
      resources: [{ uri: 'test://static-text', name: 'static', title: 'Static', mimeType: 'text/plain' }],
    });
    expect(parse(catalog.list('resources/list', 'generic', '2025-03-26'))).toEqual({
      resources: [{ uri: 'test://static-text', name: 'static', mimeType: 'text/plain' }],
    });
    expect(parse(catalog.list('resources/templates/list', 'generic', '2024-11-05'))).toEqual({
      resourceTemplates: [{ uriTemplate: 'test://template/{id}/data', name: 'item' }],
    });
    expect(parse(catalog.list('prompts/list', 'generic', '2025-03-26'))).toEqual({
      prompts: [{ name: 'greet', description: 'Say hi', arguments: [{ name: 'who', required: true }] }],
    });
    expect(parse(catalog.list('prompts/list', 'generic', '2026-07-28'))).toMatchObject({
      prompts: [{ name: 'greet', title: 'Greet', description: 'Say hi', arguments: [{ name: 'who', title: 'Who', required: true }] }],
      ttlMs: 5_000,
      cacheScope: 'public',
    });
  });

  it('rejects duplicate names when building', () => {
    const dup = snapshot([
      { name: 'a', inputSchema: { type: 'object' } },
      { name: 'a', inputSchema: { type: 'object' } },
    ]);
    expect(() => CompiledCatalog.build(dup, { surfaces })).toThrow(CatalogError);
  });

  it('reports a tool whose schema does not compile (on its first call, which compiles it) and still serves it', () => {
    const errors: string[] = [];
    const c = CompiledCatalog.build(
      snapshot([{ name: 'bad', inputSchema: { type: 'object', properties: { a: { $ref: 'https://remote.example/x' } } } }]),
      {
        surfaces,
        onSchemaError: (name) => errors.push(name),
      },
    );
    expect(errors).toEqual([]);
    expect(c.tool('bad')?.validate({ a: 1 })).toBeNull();
    expect(c.tool('bad')?.validate({ a: 2 })).toBeNull();
    expect(errors).toEqual(['bad']);
    expect(listedTools(c, 'generic', '2025-06-18').map((t) => t.name)).toEqual(['bad']);
  });

  it('never mutates the snapshot', () => {
    const copy = structuredClone(snapshot(fixtureTools));
    const s = snapshot(fixtureTools);
    CompiledCatalog.build(s, { surfaces });
    expect(s).toEqual(copy);
  });
});

import { createHash } from 'node:crypto';
import { McpError, surfaceProfiles, type ProtocolVersion } from '@switchboard/protocol';
import { canonicalJson } from '../canonical-json';
import { CompiledCatalog } from '../compiled-catalog';
import type { CatalogSnapshot, ToolDefinition, ToolEntry } from '../definitions';
import { parseTenantDocument } from '../parse-tenant-document';
import { tenantDocumentVersion } from '../tenant-document-version';
import { discoverySettingsSchema, surfaceDiscovery, type DiscoverySettings } from './discovery-settings';
import { SearchIndex } from './search-index';
import { stem, tokenize } from './tokenize';
import { ToolDiscovery } from './tool-discovery';

const tool = (name: string, description: string, params: string[] = [], extra: Partial<ToolDefinition> = {}): ToolEntry => ({
  definition: {
    name,
    description,
    inputSchema: { type: 'object', properties: Object.fromEntries(params.map((p) => [p, { type: 'string' }])) },
    ...extra,
  },
  route: { kind: 'upstream', serverId: name.split('_')[0]!, url: 'http://up.example/mcp', upstreamName: name },
});

const TOOLS: ToolEntry[] = [
  tool('stripe_create_refund', 'Refunds a charge fully or partially.', ['charge', 'amount'], { title: 'Create refund' }),
  tool('stripe_list_invoices', 'Lists invoices by customer or status.', ['customer', 'status']),
  tool('github_create_issue', 'Opens a new issue in a repository.', ['owner', 'repo', 'title']),
  tool('github_list_pull_requests', 'Lists pull requests of a repository.', ['owner', 'repo', 'state']),
  tool('slack_post_message', 'Sends a message to a channel or thread.', ['channel', 'text']),
  tool('calendar_create_event', 'Creates a calendar event with attendees.', ['start', 'end', 'attendees']),
  tool('a_tool_whose_name_is_far_too_long_for_the_claude_surface_to_publish_at_all', 'Sends a fax.', ['number']),
  { ...tool('old_send_fax', 'Sends a fax (renamed).'), unlisted: true },
];

function snapshotOf(tools: ToolEntry[]): CatalogSnapshot {
  return { tenantId: 't1', version: 'v1', server: { name: 'T', version: '1' }, tools, resources: [], resourceTemplates: [], prompts: [] };
}

function discoveryOf(settings: Partial<DiscoverySettings>, tools = TOOLS): { catalog: CompiledCatalog; discovery: ToolDiscovery } {
  const surfaces = surfaceProfiles({});
  const catalog = CompiledCatalog.build(snapshotOf(tools), { surfaces });
  const discovery = ToolDiscovery.build(catalog, discoverySettingsSchema.parse(settings), surfaces);
  if (!discovery) throw new Error('discovery not built');
  return { catalog, discovery };
}

const LEGACY: ProtocolVersion = '2025-06-18';
const MODERN: ProtocolVersion = '2026-07-28';
const page = (d: ToolDiscovery, surface: string, version: ProtocolVersion) =>
  JSON.parse(d.listPage(surface, version)!.body.toString('utf8')) as Record<string, unknown>;

describe('tokenize', () => {
  test('splits snake_case, camelCase and punctuation, drops stop words, stems', () => {
    expect(tokenize('github_createIssue: Opens the Pull-Requests')).toEqual(['github', 'creat', 'issu', 'open', 'pull', 'request']);
    expect(['create', 'creates', 'created', 'creating'].map(stem)).toEqual(['creat', 'creat', 'creat', 'creat']);
    expect(tokenize('x'.repeat(5_000))).toEqual([]);
  });
});

describe('SearchIndex', () => {
  const index = SearchIndex.build(TOOLS.map((t) => ({ name: t.definition.name, description: t.definition.description, params: [] })));

  test('ranks by name, description and synonyms; ties keep catalog order; the whole name wins', () => {
    expect(index.search('give a customer their money back', 3)[0]?.doc).toBe(0);
    expect(index.search('open a bug in the repo', 3)[0]?.doc).toBe(2);
    expect(index.search('slack_post_message', 1)[0]?.doc).toBe(4);
    expect(index.search('zzz qqq', 5)).toEqual([]);
  });

  test('is the same for two builds of the same documents (any replica answers alike)', () => {
    const other = SearchIndex.build(TOOLS.map((t) => ({ name: t.definition.name, description: t.definition.description, params: [] })));
    expect(other.search('send a message or create an issue', 8)).toEqual(index.search('send a message or create an issue', 8));
  });
});

describe('ToolDiscovery', () => {
  test('is not built when discovery is off everywhere', () => {
    const surfaces = surfaceProfiles({});
    const catalog = CompiledCatalog.build(snapshotOf(TOOLS), { surfaces });
    expect(ToolDiscovery.build(catalog, undefined, surfaces)).toBeUndefined();
    expect(ToolDiscovery.build(catalog, discoverySettingsSchema.parse({}), surfaces)).toBeUndefined();
  });

  test("lists the meta-tools and the pinned tools, with the full list's closing fields", () => {
    const { catalog, discovery } = discoveryOf({ mode: 'on', pinned: ['slack_post_message', 'no_such_tool'] });
    const legacy = page(discovery, 'generic', LEGACY);
    expect((legacy.tools as { name: string }[]).map((t) => t.name)).toEqual(['search_tools', 'describe_tools', 'slack_post_message']);
    expect(Object.keys(legacy)).toEqual(['tools']);
    const modern = page(discovery, 'generic', MODERN);
    const { tools: _tools, ...full } = JSON.parse(catalog.list('tools/list', 'generic', MODERN).toString('utf8')) as Record<
      string,
      unknown
    >;
    const { tools: _own, ...fields } = modern;
    expect(fields).toEqual(full);
    expect(fields.resultType).toBe('complete');
  });

  test('auto mode follows the threshold per surface; overrides win field by field', () => {
    const { discovery } = discoveryOf({
      mode: 'auto',
      threshold: 6,
      surfaces: { claude: { threshold: 3, pinned: ['github_create_issue'] } },
    });
    // generic publishes 7 tools (> 6), claude 6 (the long name is not published there; > 3).
    expect(discovery.active('generic', LEGACY)).toBe(true);
    expect(discovery.active('claude', LEGACY)).toBe(true);
    const { discovery: higher } = discoveryOf({ mode: 'auto', threshold: 7 });
    expect(higher.listPage('generic', LEGACY)).toBeUndefined();
    expect(higher.call('search_tools', { query: 'refund' }, 'generic', LEGACY)).toBeUndefined();
    const claude = page(discovery, 'claude', LEGACY);
    expect((claude.tools as { name: string; _meta?: unknown }[]).map((t) => [t.name, t._meta])).toEqual([
      ['search_tools', { 'anthropic/alwaysLoad': true }],
      ['describe_tools', { 'anthropic/alwaysLoad': true }],
      ['github_create_issue', { 'anthropic/alwaysLoad': true }],
    ]);
    expect(
      surfaceDiscovery(discoverySettingsSchema.parse({ mode: 'on', pinned: ['a'], surfaces: { claude: { mode: 'off' } } }), 'claude'),
    ).toEqual({
      mode: 'off',
      threshold: 40,
      pinned: ['a'],
    });
  });

  test('search finds only what the surface publishes; describe returns the listed definition', () => {
    const { catalog, discovery } = discoveryOf({ mode: 'on' });
    const generic = discovery.search('send a fax', 'generic', LEGACY, 5).map((m) => m.name);
    expect(generic[0]).toBe(TOOLS[6]!.definition.name);
    expect(generic).not.toContain('old_send_fax');
    expect(discovery.search('send a fax', 'claude', LEGACY, 5).map((m) => m.name)).not.toContain(TOOLS[6]!.definition.name);
    const result = discovery.call('describe_tools', { names: ['stripe_create_refund', 'old_send_fax', 'nope'] }, 'generic', MODERN)!;
    const listed = (JSON.parse(catalog.list('tools/list', 'generic', MODERN).toString('utf8')) as { tools: unknown[] }).tools[0];
    expect(result.structuredContent).toEqual({ tools: [listed], unknown: ['old_send_fax', 'nope'] });
    const found = discovery.call('search_tools', { query: 'refund a charge', limit: 1 }, 'generic', '2024-11-05')!;
    expect(found.structuredContent).toBeUndefined();
    expect(JSON.parse((found.content[0] as { text: string }).text)).toEqual({
      tools: [{ name: 'stripe_create_refund', title: 'Create refund', description: 'Refunds a charge fully or partially.' }],
    });
  });

  test('a tenant tool named like a meta-tool keeps its name; the meta-tool takes a prefixed one', () => {
    const { discovery } = discoveryOf({ mode: 'on' }, [...TOOLS, tool('search_tools', "The tenant's own search.")]);
    expect(discovery.names).toEqual({ search: 'switchboard_search_tools', describe: 'describe_tools' });
    expect(discovery.call('search_tools', { query: 'x' }, 'generic', LEGACY)).toBeUndefined();
    expect(discovery.call('switchboard_search_tools', { query: 'refund' }, 'generic', LEGACY)).toBeDefined();
  });

  test.each([
    ['search_tools', { query: '' }, 'arguments.query'],
    ['search_tools', { query: 'q'.repeat(501) }, 'arguments.query'],
    ['search_tools', { query: 'ok', limit: 26 }, 'arguments.limit'],
    ['describe_tools', { names: [] }, 'arguments.names'],
    ['describe_tools', { names: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 'arguments.names'],
    ['describe_tools', { names: [3] }, 'arguments.names'],
  ])('%s with %j is −32602 naming %s', (name, args, field) => {
    const { discovery } = discoveryOf({ mode: 'on' });
    let error: unknown;
    try {
      discovery.call(name, args, 'generic', LEGACY);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32602);
    expect((error as Error).message).toContain(field);
  });
});

describe('discovery settings in the tenant document', () => {
  const doc = { id: 't1', name: 'T', snapshot: snapshotOf(TOOLS) };

  test('are parsed with defaults, bounded, and named in errors', () => {
    const parsed = parseTenantDocument({ ...doc, discovery: { mode: 'auto', surfaces: { openai: { pinned: ['x'] } } } });
    expect(parsed.discovery).toEqual({ mode: 'auto', threshold: 40, pinned: [], surfaces: { openai: { pinned: ['x'] } } });
    expect(() => parseTenantDocument({ ...doc, discovery: { pinned: Array.from({ length: 51 }, (_, i) => `t${i}`) } })).toThrow(
      /discovery\.pinned/,
    );
    expect(() => parseTenantDocument({ ...doc, discovery: { surfaces: { claude: { maxTools: 3 } } } })).toThrow(
      /discovery\.surfaces\.claude/,
    );
    expect(() => parseTenantDocument({ ...doc, discovery: { mode: 'sometimes' } })).toThrow(/discovery\.mode/);
  });

  test('change the document version only when present', () => {
    const without = parseTenantDocument(doc);
    const old = createHash('sha256')
      .update(
        canonicalJson({
          id: 't1',
          name: 'T',
          description: null,
          origins: [],
          hosts: [],
          surfaceRules: {},
          auth: null,
          limits: null,
          catalog: 'v1',
        }),
      )
      .digest('hex');
    expect(without.version).toBe(old);
    const withDiscovery = parseTenantDocument({ ...doc, discovery: { mode: 'on' } });
    expect(withDiscovery.version).not.toBe(old);
    expect(withDiscovery.version).toBe(tenantDocumentVersion(withDiscovery));
  });
});

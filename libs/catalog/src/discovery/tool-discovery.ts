import { BUILTIN_SURFACES, versionAtLeast, type ProtocolVersion, type SurfaceProfile } from '@switchboard/protocol';
import type { CompiledCatalog, ListPage } from '../compiled-catalog';
import type { ToolCallResult } from '../content';
import type { ToolEntry } from '../definitions';
import { publishTool } from '../publish-tool';
import { discoveryRule, retiredRule } from '../tool-visibility';
import { discoveryActive, discoveryEnabled, surfaceDiscovery, type DiscoverySettings, type SurfaceDiscovery } from './discovery-settings';
import { describeArgs, describeToolDefinition, metaToolNames, searchArgs, searchToolDefinition, summaryOf } from './meta-tools';
import { SearchIndex } from './search-index';

/** Claude Code's key for a tool it must not defer behind its own tool search (its deferred-loading convention). */
export const CLAUDE_ALWAYS_LOAD = 'anthropic/alwaysLoad';

/** One search result: what a model needs to pick a tool, not its schema. */
export interface ToolMatch {
  name: string;
  title?: string;
  description?: string;
}

/** A catalog's tools as one surface and version publishes them, aligned with the index's documents. */
interface SurfaceView {
  readonly surface: SurfaceProfile;
  readonly setting: SurfaceDiscovery;
  /** The published definition of each indexed tool, or null where this surface cannot publish it. */
  readonly published: readonly (Record<string, unknown> | null)[];
  readonly count: number;
  readonly active: boolean;
}

/**
 * Progressive discovery for one compiled catalog: in discovery mode a surface's `tools/list` is
 * the meta-tools and the pinned tools, `search_tools` ranks every tool the surface publishes
 * (BM25F over names, titles, descriptions and parameter names) and `describe_tools` returns
 * their full definitions; every tool stays callable by name. Everything derives from the
 * catalog and the tenant's settings alone — no session state — so any replica answers any
 * request alike, for stateless 2026-07-28 clients as for legacy sessions.
 */
export class ToolDiscovery {
  /** Discovery-mode first pages by surface and version (null: that surface serves its full list). */
  private readonly lists = new Map<string, ListPage | null>();
  private readonly views = new Map<string, SurfaceView>();
  private readonly positions: ReadonlyMap<string, number>;
  private readonly matches: (ToolMatch | undefined)[] = [];

  private constructor(
    private readonly catalog: CompiledCatalog,
    private readonly settings: DiscoverySettings,
    private readonly surfaces: Record<string, SurfaceProfile>,
    private readonly entries: readonly ToolEntry[],
    private readonly index: SearchIndex,
    readonly names: { readonly search: string; readonly describe: string },
  ) {
    this.positions = new Map(entries.map((e, i) => [e.definition.name, i]));
  }

  /** The discovery of a catalog, or undefined when the tenant's settings turn it on nowhere (nothing is built then). */
  static build(
    catalog: CompiledCatalog,
    settings: DiscoverySettings | undefined,
    surfaces: Record<string, SurfaceProfile>,
  ): ToolDiscovery | undefined {
    if (!settings || !discoveryEnabled(settings)) return undefined;
    const entries = catalog.snapshot.tools.filter((e) => retiredRule(e) === 'pass');
    const index = SearchIndex.build(
      entries.map((e) => ({
        name: e.definition.name,
        title: e.definition.title ?? e.definition.annotations?.title,
        description: e.definition.description,
        params: paramNames(e.definition.inputSchema),
        server: e.route.kind === 'upstream' ? e.route.serverId : undefined,
      })),
    );
    return new ToolDiscovery(
      catalog,
      settings,
      surfaces,
      entries,
      index,
      metaToolNames((n) => catalog.tool(n) !== undefined),
    );
  }

  /** The first `tools/list` page of a surface in discovery mode; undefined when the surface serves its full list. */
  listPage(surfaceId: string, version: ProtocolVersion): ListPage | undefined {
    const key = `${this.surfaceKey(surfaceId)}\u0000${version}`;
    let page = this.lists.get(key);
    if (page === undefined) {
      page = this.compileList(surfaceId, version);
      this.lists.set(key, page);
    }
    return page ?? undefined;
  }

  /** Whether a surface is in discovery mode at a version. */
  active(surfaceId: string, version: ProtocolVersion): boolean {
    return this.view(surfaceId, version).active;
  }

  /**
   * A meta-tool call's result; undefined when `name` is no meta-tool on this surface (the
   * catalog's own tool then answers, as without discovery).
   * @throws McpError −32602 for bad arguments.
   */
  call(name: string, args: Record<string, unknown>, surfaceId: string, version: ProtocolVersion): ToolCallResult | undefined {
    if (name !== this.names.search && name !== this.names.describe) return undefined;
    if (!this.active(surfaceId, version)) return undefined;
    const structured = versionAtLeast(version, '2025-06-18');
    let result: Record<string, unknown>;
    if (name === this.names.search) {
      const { query, limit } = searchArgs(args);
      result = { tools: this.search(query, surfaceId, version, limit) };
    } else {
      const names = describeArgs(args);
      const view = this.view(surfaceId, version);
      const tools: Record<string, unknown>[] = [];
      const unknown: string[] = [];
      for (const n of names) {
        const at = this.positions.get(n);
        const def = at === undefined ? null : view.published[at];
        if (def) tools.push(def);
        else unknown.push(n);
      }
      result = unknown.length > 0 ? { tools, unknown } : { tools };
    }
    return { content: [{ type: 'text', text: JSON.stringify(result) }], ...(structured ? { structuredContent: result } : {}) };
  }

  /** The best `limit` tools of a surface for a query, best first (only tools that surface publishes). */
  search(query: string, surfaceId: string, version: ProtocolVersion, limit: number): ToolMatch[] {
    const view = this.view(surfaceId, version);
    return this.index.search(query, limit, (doc) => view.published[doc] !== null).map(({ doc }) => this.matchOf(doc));
  }

  /** A tool's search result, made once per catalog (never written after). */
  private matchOf(doc: number): ToolMatch {
    let match = this.matches[doc];
    if (!match) {
      const def = (this.entries[doc] as ToolEntry).definition;
      match = { name: def.name };
      const title = def.title ?? def.annotations?.title;
      if (title !== undefined) match.title = title;
      const summary = summaryOf(def.description);
      if (summary !== undefined) match.description = summary;
      this.matches[doc] = match;
    }
    return match;
  }

  private surfaceKey(surfaceId: string): string {
    return Object.hasOwn(this.surfaces, surfaceId) ? surfaceId : 'generic';
  }

  private view(surfaceId: string, version: ProtocolVersion): SurfaceView {
    const surfaceKey = this.surfaceKey(surfaceId);
    const key = `${surfaceKey}\u0000${version}`;
    let view = this.views.get(key);
    if (!view) {
      const surface = this.surfaces[surfaceKey] ?? BUILTIN_SURFACES.generic;
      const published = this.entries.map((e) => publishListed(e, surface, version));
      const count = published.reduce((n, p) => (p ? n + 1 : n), 0);
      const setting = surfaceDiscovery(this.settings, surfaceKey);
      view = { surface, setting, published, count, active: discoveryActive(setting, count) };
      this.views.set(key, view);
    }
    return view;
  }

  /** The discovery-mode list of a surface: the meta-tools, then its pinned tools in catalog order; null when not in discovery mode. */
  private compileList(surfaceId: string, version: ProtocolVersion): ListPage | null {
    const view = this.view(surfaceId, version);
    if (!view.active) return null;
    // Claude Code defers MCP tools behind its own tool search unless told to load them.
    const alwaysLoad = view.surface.id === 'claude' && versionAtLeast(version, '2025-06-18');
    const mark = (tool: Record<string, unknown>) =>
      alwaysLoad ? { ...tool, _meta: { ...(tool._meta as Record<string, unknown> | undefined), [CLAUDE_ALWAYS_LOAD]: true } } : tool;
    const tools: Record<string, unknown>[] = [
      mark(searchToolDefinition(this.names.search, this.names.describe, view.count)),
      mark(describeToolDefinition(this.names.describe, this.names.search)),
    ];
    const pinned = new Set(view.setting.pinned);
    view.published.forEach((def, i) => {
      if (def && discoveryRule(view.active, pinned, (this.entries[i] as ToolEntry).definition.name) === 'pass') tools.push(mark(def));
    });
    // The full list's own closing fields (modern era: resultType, ttlMs, cacheScope, _meta) follow the tools.
    const full = JSON.parse(this.catalog.list('tools/list', surfaceId, version).toString('utf8')) as Record<string, unknown>;
    const { tools: _all, nextCursor: _next, ...extra } = full;
    void _all;
    void _next;
    return { body: Buffer.from(JSON.stringify({ tools, ...extra }), 'utf8') };
  }
}

/** A tool's wire shape on a surface as `tools/list` publishes it (with the 2025-11-25 task field of a proxied task tool). */
function publishListed(entry: ToolEntry, surface: SurfaceProfile, version: ProtocolVersion): Record<string, unknown> | null {
  const published = publishTool(entry.definition, surface, version);
  const support = entry.definition.taskSupport;
  if (
    published &&
    support !== undefined &&
    version === '2025-11-25' &&
    entry.route.kind === 'upstream' &&
    entry.route.protocol !== 'modern'
  ) {
    published.execution = { taskSupport: support };
  }
  return published;
}

/** Top-level parameter names of an input schema (bounded by the index's field bound). */
function paramNames(schema: unknown): string[] {
  const properties = typeof schema === 'object' && schema !== null ? (schema as { properties?: unknown }).properties : undefined;
  return typeof properties === 'object' && properties !== null && !Array.isArray(properties) ? Object.keys(properties).slice(0, 200) : [];
}

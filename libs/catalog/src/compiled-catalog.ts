import {
  ErrorCode,
  LEGACY_VERSIONS,
  McpError,
  MODERN_VERSIONS,
  isModernVersion,
  modernResultFields,
  type CacheScope,
  type ProtocolVersion,
  type ServerInfo,
  type SurfaceProfile,
} from '@switchboard/protocol';
import { CatalogCaches, duplicate, type ToolGroup } from './catalog-caches';
import type { ToolSlot } from './tool-slot';
import { compileUriTemplate, type UriTemplateMatcher } from './compile-uri-template';
import { DynamicResourceRoutes } from './dynamic-resources';
import type { CatalogSnapshot, DynamicResourceEntry, PromptEntry, ResourceEntry, ResourceTemplateEntry } from './definitions';
import { LIST_FIELD, PLAIN_TAIL, decodeCursor, pageBody, pageBytes, publishList, type ListMethod, type PublishedList } from './list-page';
import { PageCache } from './page-cache';

export type { ListMethod } from './list-page';

/** A list page in its parts: `body`, then `tail` when the body is shared with other catalogs (neither may be written into). */
export interface ListPage {
  readonly body: Buffer;
  readonly tail?: Buffer;
}

export interface CompileOptions {
  surfaces: Record<string, SurfaceProfile>;
  /** Items per page of a list (default 100). */
  pageSize?: number;
  /** Modern-era list cache hint (default 60_000). */
  ttlMs?: number;
  /** `private` for tenant- or user-specific lists (default). */
  cacheScope?: CacheScope;
  /** Advertise `resources.subscribe` (default true: the transport answers subscribe/unsubscribe with `{}`). */
  resourceSubscribe?: boolean;
  /** Told about a tool whose `inputSchema` does not compile (its calls are then not validated here). */
  onSchemaError?: (toolName: string, err: Error) => void;
  /** What this catalog shares with the app's other catalogs (default: caches of its own, shared with none). */
  caches?: CatalogCaches;
}

const DEFAULT_PAGE_SIZE = 100;
const DEFAULT_TTL_MS = 60_000;
const VERSIONS: readonly ProtocolVersion[] = [...LEGACY_VERSIONS, ...MODERN_VERSIONS];
const VERSION_SET: ReadonlySet<string> = new Set(VERSIONS);
/** Index of each version in VERSIONS (a slot of a tool group's first-page keys). */
const VERSION_INDEX: ReadonlyMap<string, number> = new Map(VERSIONS.map((v, i) => [v, i]));

/**
 * A snapshot compiled for serving: per-tool argument validators and lookup maps, built when a
 * snapshot changes (never per request), and list pages compiled lazily — a page's result bytes
 * are built on its first request for a (surface, version) and kept in a byte-bounded,
 * content-addressed cache (CLOCK eviction, an approximate LRU) shared through `CatalogCaches` by
 * every catalog of the app, so ten thousand tenants do not hold (surfaces × versions × pages)
 * Buffers each. Immutable otherwise: a swap is one reference assignment, and `release()` drops
 * only this catalog's pages.
 */
export class CompiledCatalog {
  /** This catalog's owner id in the page cache. */
  private readonly id: number;
  private readonly pages: PageCache;
  /** Keyset keys per (surface, version, method) seen so far (cursor resolution; small: names only), made on the first cursor. */
  private keysByList: Map<string, string[]> | undefined;
  /** The modern era's page tail (this catalog's serverInfo, ttlMs…), encoded on first use. */
  private modernTail: Buffer | undefined;

  private constructor(
    readonly snapshot: CatalogSnapshot,
    private readonly info: ServerInfo,
    private readonly caps: Record<string, unknown>,
    private readonly tools: ReadonlyMap<string, ToolSlot>,
    /** The tools page bodies shared by every catalog with these (frozen) entries. */
    private readonly toolGroup: ToolGroup | undefined,
    private readonly prompts: Map<string, PromptEntry>,
    private readonly resources: Map<string, ResourceEntry>,
    private readonly templates: { entry: ResourceTemplateEntry; match: UriTemplateMatcher }[],
    private readonly surfaces: Record<string, SurfaceProfile>,
    private readonly modernExtra: Record<string, unknown>,
    private readonly pageSize: number,
    private readonly caches: CatalogCaches,
    private readonly dynamic: DynamicResourceRoutes,
  ) {
    this.id = caches.newOwner();
    this.pages = caches.pages;
  }

  /**
   * Compiles validators and lookup maps; list pages are compiled on first use.
   * A `generic` surface is always available (the fallback for unknown surface ids).
   * @throws CatalogError `CATALOG_DUPLICATE_NAME` when two tools/prompts share a name or two resources a URI.
   */
  static build(snapshot: CatalogSnapshot, options: CompileOptions): CompiledCatalog {
    const pageSize = Math.max(1, Math.floor(options.pageSize ?? DEFAULT_PAGE_SIZE));
    const info = serverInfoOf(snapshot);
    const caches = options.caches ?? new CatalogCaches();

    const { map: tools, group } = caches.toolMap(snapshot.tools, options.onSchemaError);
    const prompts = uniqueMap(snapshot.prompts, (e) => e.definition.name, 'prompt');
    const resources = uniqueMap(snapshot.resources, (e) => e.definition.uri, 'resource');
    uniqueMap(snapshot.resourceTemplates, (e) => e.definition.uriTemplate, 'resource template');
    const templates = snapshot.resourceTemplates.map((entry) => ({ entry, match: compileUriTemplate(entry.definition.uriTemplate) }));
    const dynamic = DynamicResourceRoutes.build(snapshot.dynamicResources ?? []);

    const surfaces = caches.withGeneric(options.surfaces);
    const modernExtra = {
      ttlMs: options.ttlMs ?? DEFAULT_TTL_MS,
      cacheScope: options.cacheScope ?? 'private',
      ...modernResultFields(info),
    };

    const caps = capabilitiesOf(
      snapshot.tools.length > 0,
      snapshot.resources.length > 0 || snapshot.resourceTemplates.length > 0 || dynamic.size > 0,
      snapshot.prompts.length > 0,
      options.resourceSubscribe ?? true,
    );
    return new CompiledCatalog(
      snapshot,
      deepFreeze(info),
      caps,
      tools,
      group,
      prompts,
      resources,
      templates,
      surfaces,
      modernExtra,
      pageSize,
      caches,
      dynamic,
    );
  }

  get serverInfo(): ServerInfo {
    return this.info;
  }

  /** Capabilities derived from what the snapshot holds (tools / resources / prompts; logging and completions). Frozen. */
  get capabilities(): Record<string, unknown> {
    return this.caps;
  }

  /** A tool by exposed name, listed or not (an `unlisted` entry is callable but never in `tools/list`). */
  tool(name: string): ToolSlot | undefined {
    return this.tools.get(name);
  }

  prompt(name: string): PromptEntry | undefined {
    return this.prompts.get(name);
  }

  /** A static resource by exact URI, or the first template matching it with its variables. */
  resource(uri: string): { entry: ResourceEntry } | { template: ResourceTemplateEntry; vars: Record<string, string> } | undefined {
    const entry = this.resources.get(uri);
    if (entry) return { entry };
    for (const t of this.templates) {
      const vars = t.match(uri);
      if (vars) return { template: t.entry, vars };
    }
    return undefined;
  }

  /** Whether a surface (an `<id>+apps` variant, or one publishing apps to everyone) lists and reads `ui://` resources. */
  showsApps(surfaceId: string): boolean {
    return (Object.hasOwn(this.surfaces, surfaceId) ? this.surfaces[surfaceId] : this.surfaces.generic)?.mcpApps === true;
  }

  /**
   * The published dynamic-resource entry owning `uri` (longest prefix), for a URI that
   * {@link resource} does not know; undefined when no server of the tenant publishes one.
   */
  dynamicResource(uri: string): DynamicResourceEntry | undefined {
    return this.dynamic.find(uri);
  }

  /**
   * Result bytes (no JSON-RPC envelope) of one page of a list for a surface and version:
   * modern versions carry `resultType`, `ttlMs`, `cacheScope` and `_meta` serverInfo.
   * An unknown surface id falls back to `generic`. Page-boundary pages come from the shared
   * page cache (compiled on a miss; equal bytes are one shared Buffer), or, for tools of entries
   * shared with other catalogs, from their shared body plus this catalog's fields: callers must
   * not write into a returned Buffer.
   * @throws McpError −32602 for an invalid cursor.
   */
  list(method: ListMethod, surfaceId: string, version: ProtocolVersion, cursor?: string): Buffer {
    const page = this.listPage(method, surfaceId, version, cursor);
    return page.tail ? Buffer.concat([page.body, page.tail]) : page.body;
  }

  /**
   * The same page in its parts, for writing without a copy: the result bytes, or a body shared
   * with other catalogs followed by this catalog's `tail` (its own fields and the closing brace).
   */
  listPage(method: ListMethod, surfaceId: string, version: ProtocolVersion, cursor?: string): ListPage {
    const surfaceKey = Object.hasOwn(this.surfaces, surfaceId) ? surfaceId : 'generic';
    if ((cursor === undefined || cursor === null) && method === 'tools/list' && this.toolGroup !== undefined) {
      const at = VERSION_INDEX.get(version);
      if (at !== undefined) return this.firstToolsPage(this.toolGroup, surfaceKey, version, at);
    }
    if (!VERSION_SET.has(version) || !Object.hasOwn(LIST_FIELD, method)) {
      // Only a transport bug gets here (methods and versions are decided before the lookup).
      throw new McpError(ErrorCode.InvalidParams, `No ${String(method)} for protocol version ${String(version)}`);
    }
    const listKey = `${surfaceKey}\u0000${version}\u0000${method}`;
    let start = 0;
    if (cursor !== undefined && cursor !== null) {
      const position = decodeCursor(cursor);
      if (!position) throw new McpError(ErrorCode.InvalidParams, 'Invalid cursor');
      const keys = this.keysByList?.get(listKey) ?? this.publish(listKey, method, surfaceKey, version).keys;
      // Keyset first; when the key has gone (an older snapshot's cursor), the offset it was minted at.
      const at = keys.indexOf(position.key);
      start = at >= 0 ? at + 1 : Math.min(position.offset, keys.length);
    }
    // Only page boundaries are cached: a cursor from an older snapshot may start anywhere, and
    // such one-off pages must not push the regular ones out.
    const boundary = start % this.pageSize === 0;
    const pageKey = `${listKey}\u0000${start}`;
    // A tools page of shared entries is its shared body plus this tenant's fields: a copy, cheaper
    // than hashing it into the cache, so it is composed per request and only the body is kept.
    if (boundary && method === 'tools/list' && this.toolGroup !== undefined)
      return this.sharedToolsPage(this.toolGroup.id, listKey, surfaceKey, version, start).page;
    if (boundary) {
      const hit = this.pages.get(this.id, pageKey);
      if (hit) return { body: hit };
    }
    const bytes = pageBytes(this.publish(listKey, method, surfaceKey, version), start, this.pageSize);
    return { body: boundary ? this.pages.set(this.id, pageKey, bytes) : bytes };
  }

  /** Drops this catalog's pages from the page cache (it was replaced); other catalogs' pages stay. */
  release(): void {
    this.pages.release(this.id);
  }

  /**
   * The first tools page (no cursor), the request every client makes: its body's full cache key
   * is built once per (tool group, page size, surface profile, version) and kept in the group, shared by all
   * its tenants, so a hit is one lookup by a ready key (no key strings built per request).
   */
  private firstToolsPage(group: ToolGroup, surfaceKey: string, version: ProtocolVersion, at: number): ListPage {
    const surface = this.surfaces[surfaceKey] as SurfaceProfile;
    let bySurface = group.firstBodyKeys.get(this.pageSize);
    let keys = bySurface?.get(surface);
    const key = keys?.[at];
    const body = key === undefined ? undefined : this.pages.getKey(key);
    if (body) return { body, tail: this.tailFor(version) };
    const listKey = `${surfaceKey}\u0000${version}\u0000tools/list`;
    const shared = this.sharedToolsPage(group.id, listKey, surfaceKey, version, 0);
    if (!bySurface) {
      bySurface = new WeakMap();
      group.firstBodyKeys.set(this.pageSize, bySurface);
    }
    if (!keys) {
      keys = [];
      bySurface.set(surface, keys);
    }
    keys[at] = shared.key;
    return shared.page;
  }

  /**
   * A tools page from the body every catalog with the same entries shares (kept in the page cache
   * under the tool group), and the page-cache key of that body: only the tenant's own fields
   * (serverInfo, ttlMs…) are appended, so a tenant whose page was evicted, or that is asked for
   * the first time, costs a copy, not a compile.
   */
  private sharedToolsPage(
    group: number,
    listKey: string,
    surfaceKey: string,
    version: ProtocolVersion,
    start: number,
  ): { page: ListPage; key: string } {
    const surfaceId = this.caches.surfaceId(this.surfaces[surfaceKey] as SurfaceProfile);
    const bodyKey = `body\u0000${surfaceId}\u0000${version}\u0000${this.pageSize}\u0000${start}`;
    let body = this.pages.get(group, bodyKey);
    if (!body)
      body = this.pages.set(group, bodyKey, pageBody(this.publish(listKey, 'tools/list', surfaceKey, version), start, this.pageSize));
    return { page: { body, tail: this.tailFor(version) }, key: PageCache.keyOf(group, bodyKey) };
  }

  /** What closes a page of this catalog for `version`: `}` (legacy era) or its modern fields, one Buffer shared by every catalog with equal ones. */
  private tailFor(version: ProtocolVersion): Buffer {
    if (!isModernVersion(version)) return PLAIN_TAIL;
    this.modernTail ??= this.caches.tail(this.modernExtra);
    return this.modernTail;
  }

  /** The published items of one list; remembers its keys (cheap) but not the items. */
  private publish(listKey: string, method: ListMethod, surfaceKey: string, version: ProtocolVersion): PublishedList {
    const extra = isModernVersion(version) ? this.modernExtra : undefined;
    const list = publishList(this.snapshot, method, this.surfaces[surfaceKey] as SurfaceProfile, version, extra);
    (this.keysByList ??= new Map()).set(listKey, list.keys);
    return list;
  }
}

/** Capabilities by what a snapshot holds (bit 3 tools, 2 resources, 1 prompts, 0 subscribe): one frozen object per combination. */
const CAPABILITIES: readonly Record<string, unknown>[] = Array.from({ length: 16 }, (_, bits) => {
  const [tools, resources, prompts, subscribe] = [bits & 8, bits & 4, bits & 2, bits & 1].map(Boolean) as [
    boolean,
    boolean,
    boolean,
    boolean,
  ];
  return deepFreeze({
    ...(tools ? { tools: { listChanged: false } } : {}),
    ...(resources ? { resources: { subscribe, listChanged: false } } : {}),
    ...(prompts ? { prompts: { listChanged: false } } : {}),
    logging: {},
    completions: {},
  });
});

function capabilitiesOf(tools: boolean, resources: boolean, prompts: boolean, subscribe: boolean): Record<string, unknown> {
  return CAPABILITIES[(+tools << 3) | (+resources << 2) | (+prompts << 1) | +subscribe] as Record<string, unknown>;
}

function serverInfoOf(snapshot: CatalogSnapshot): ServerInfo {
  const s = snapshot.server;
  const info: ServerInfo = { name: s.name, version: s.version };
  if (s.title !== undefined) info.title = s.title;
  if (s.description !== undefined) info.description = s.description;
  if (s.websiteUrl !== undefined) info.websiteUrl = s.websiteUrl;
  return info;
}

function uniqueMap<E>(entries: E[], keyOf: (e: E) => string, kind: string): Map<string, E> {
  const map = new Map<string, E>();
  for (const e of entries) {
    const key = keyOf(e);
    if (map.has(key)) throw duplicate(kind, key);
    map.set(key, e);
  }
  return map;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

import {
  BUILTIN_SURFACES,
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
import { CatalogError } from './catalog-error';
import { compileUriTemplate, type UriTemplateMatcher } from './compile-uri-template';
import { compileValidator, type ArgsValidator } from './compile-validator';
import { DynamicResourceRoutes } from './dynamic-resources';
import type { CatalogSnapshot, DynamicResourceEntry, PromptEntry, ResourceEntry, ResourceTemplateEntry, ToolEntry } from './definitions';
import { LIST_FIELD, PLAIN_TAIL, decodeCursor, pageBody, pageBytes, pageTail, publishList, type ListMethod, type PublishedList } from './list-page';
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
  /** Where compiled list pages are kept (default: one process-wide cache, see `CompiledCatalog.pageCache`). */
  pageCache?: PageCache;
}

const DEFAULT_PAGE_SIZE = 100;
const DEFAULT_TTL_MS = 60_000;
const VERSIONS: readonly ProtocolVersion[] = [...LEGACY_VERSIONS, ...MODERN_VERSIONS];



const VERSION_SET: ReadonlySet<string> = new Set(VERSIONS);
/** Index of each version in VERSIONS (a slot of a tool group's first-page keys). */
const VERSION_INDEX: ReadonlyMap<string, number> = new Map(VERSIONS.map((v, i) => [v, i]));
/** Distinct modern page tails kept so tenants with equal ones share one Buffer (emptied when full). */
const MAX_SHARED_TAILS = 4_096;
let sharedTails = new Map<string, Buffer>();

/** Validators by schema object: tenants built from one bundle share definition objects, so this skips even the content hash. */
const validatorsBySchema = new WeakMap<object, ArgsValidator>();
const MAX_SHARED_TOOL_MAPS = 8;
/** Tool maps by their first entry, then compared entry by entry (identity). */
const toolMapsByFirstEntry = new WeakMap<ToolEntry, SharedTools[]>();
/** Page-cache owner ids of surface profile objects (a tools page body depends on the profile, not its name). */
const surfaceIds = new WeakMap<SurfaceProfile, number>();
let nextSurfaceId = 1;
const surfacesWithGeneric = new WeakMap<Record<string, SurfaceProfile>, Record<string, SurfaceProfile>>();
const capabilitiesByKind = new Map<string, Record<string, unknown>>();
/** Ids of catalogs and of shared tool maps: both own keys in the page cache. */
let nextCatalogId = 1;
let sharedPageCache = new PageCache();

/**
 * A snapshot compiled for serving: per-tool argument validators and lookup maps, built when a
 * snapshot changes (never per request), and list pages compiled lazily — a page's result bytes
 * are built on its first request for a (surface, version) and kept in a byte-bounded,
 * content-addressed cache (CLOCK eviction, an approximate LRU) shared by every catalog in the
 * process, so ten thousand tenants do not hold (surfaces × versions × pages) Buffers each. Immutable otherwise: a swap is one reference
 * assignment, and `release()` drops only this catalog's pages.
 */
export class CompiledCatalog {
  /** This catalog's owner id in the page cache. */
  private readonly id = nextCatalogId++;
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
    private readonly pages: PageCache,
    private readonly dynamic: DynamicResourceRoutes,
  ) {}

  /** The process-wide page cache catalogs use unless `CompileOptions.pageCache` names another. */
  static get pageCache(): PageCache {
    return sharedPageCache;
  }

  /** Replaces the process-wide page cache (e.g. with the gateway's configured byte bound); affects catalogs built afterwards. */
  static usePageCache(cache: PageCache): void {
    sharedPageCache = cache;
  }

  /**
   * Compiles validators and lookup maps; list pages are compiled on first use.
   * A `generic` surface is always available (the fallback for unknown surface ids).
   * @throws CatalogError `CATALOG_DUPLICATE_NAME` when two tools/prompts share a name or two resources a URI.
   */
  static build(snapshot: CatalogSnapshot, options: CompileOptions): CompiledCatalog {
    const pageSize = Math.max(1, Math.floor(options.pageSize ?? DEFAULT_PAGE_SIZE));
    const info = serverInfoOf(snapshot);

    const { map: tools, group } = toolMap(snapshot.tools, options);
    const prompts = uniqueMap(snapshot.prompts, (e) => e.definition.name, 'prompt');
    const resources = uniqueMap(snapshot.resources, (e) => e.definition.uri, 'resource');
    uniqueMap(snapshot.resourceTemplates, (e) => e.definition.uriTemplate, 'resource template');
    const templates = snapshot.resourceTemplates.map((entry) => ({ entry, match: compileUriTemplate(entry.definition.uriTemplate) }));
    const dynamic = DynamicResourceRoutes.build(snapshot.dynamicResources ?? []);

    const surfaces = withGeneric(options.surfaces);
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
      options.pageCache ?? sharedPageCache,
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
    if (boundary && method === 'tools/list' && this.toolGroup !== undefined) return this.sharedToolsPage(this.toolGroup.id, listKey, surfaceKey, version, start).page;
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
  private sharedToolsPage(group: number, listKey: string, surfaceKey: string, version: ProtocolVersion, start: number): { page: ListPage; key: string } {
    const surface = this.surfaces[surfaceKey] as SurfaceProfile;
    let surfaceId = surfaceIds.get(surface);
    if (surfaceId === undefined) {
      surfaceId = nextSurfaceId++;
      surfaceIds.set(surface, surfaceId);
    }
    const bodyKey = `body\u0000${surfaceId}\u0000${version}\u0000${this.pageSize}\u0000${start}`;
    let body = this.pages.get(group, bodyKey);
    if (!body) body = this.pages.set(group, bodyKey, pageBody(this.publish(listKey, 'tools/list', surfaceKey, version), start, this.pageSize));
    return { page: { body, tail: this.tailFor(version) }, key: PageCache.keyOf(group, bodyKey) };
  }

  /** What closes a page of this catalog for `version`: `}` (legacy era) or its modern fields, one Buffer shared by every catalog with equal ones. */
  private tailFor(version: ProtocolVersion): Buffer {
    if (!isModernVersion(version)) return PLAIN_TAIL;
    this.modernTail ??= sharedTail(this.modernExtra);
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

/** A tool by name with its argument validator (shared by every catalog listing the same entries). */
type ToolSlot = { readonly entry: ToolEntry; readonly validate: ArgsValidator };

/** The tools page bodies of catalogs sharing one tool map: `id` owns them in the page cache. */
interface ToolGroup {
  readonly id: number;
  /** Full page-cache key of the first page's body per page size and surface profile, by version index (filled on first use). */
  readonly firstBodyKeys: Map<number, WeakMap<SurfaceProfile, string[]>>;
}

/** A tool map shared by the catalogs whose tool entries are these (identity), and their page bodies' group. */
interface SharedTools {
  entries: readonly ToolEntry[];
  map: ReadonlyMap<string, ToolSlot>;
  group: ToolGroup;
}

/** The name → tool map of a list of entries, shared by catalogs built from the same frozen entries (one bundle, many tenants). */
function toolMap(entries: readonly ToolEntry[], options: CompileOptions): { map: ReadonlyMap<string, ToolSlot>; group?: ToolGroup } {
  const first = entries[0];
  const shareable = first !== undefined && Object.isFrozen(first);
  const candidates = shareable ? toolMapsByFirstEntry.get(first) : undefined;
  const known = candidates?.find((c) => c.entries.length === entries.length && c.entries.every((e, i) => e === entries[i]));
  if (known) return known;
  const map = new Map<string, ToolSlot>();
  for (const entry of entries) {
    const name = entry.definition.name;
    if (map.has(name)) throw duplicate('tool', name);
    map.set(name, { entry, validate: validatorFor(name, entry, options) });
  }
  if (!shareable) return { map };
  const list = candidates ?? [];
  // A few variants per first entry (tenants picking different subsets of one bundle); beyond that, unshared.
  if (list.length >= MAX_SHARED_TOOL_MAPS) list.shift();
  const shared: SharedTools = { entries: entries.slice(), map, group: { id: nextCatalogId++, firstBodyKeys: new Map() } };
  list.push(shared);
  toolMapsByFirstEntry.set(first, list);
  return shared;
}

/**
 * A tool's validator, compiled on its first call (ajv compiles take milliseconds per schema:
 * ten thousand tenants would otherwise spend their boot compiling schemas nobody calls); one
 * per schema object across catalogs, and compileValidator shares them by content. A schema
 * that does not compile is reported through `onSchemaError` of the catalog whose call compiled it.
 */
function validatorFor(name: string, entry: ToolEntry, options: CompileOptions): ArgsValidator {
  const schema = entry.definition.inputSchema as unknown;
  const cacheable = typeof schema === 'object' && schema !== null;
  const known = cacheable ? validatorsBySchema.get(schema) : undefined;
  if (known) return known;
  let compiled: ArgsValidator | undefined;
  const validate: ArgsValidator = (args) => {
    compiled ??= compileValidator(entry.definition.inputSchema, (err) => options.onSchemaError?.(name, err));
    return compiled(args);
  };
  if (cacheable) validatorsBySchema.set(schema, validate);
  return validate;
}

/** The modern page tail of `extra`, one Buffer per distinct content (tenants with the same serverInfo and hints share it). */
function sharedTail(extra: Record<string, unknown>): Buffer {
  const json = JSON.stringify(extra);
  let tail = sharedTails.get(json);
  if (!tail) {
    if (sharedTails.size >= MAX_SHARED_TAILS) sharedTails = new Map();
    tail = pageTail(extra);
    sharedTails.set(json, tail);
  }
  return tail;
}

/** `generic` plus the given surfaces; one merged object per surfaces object (tenants with the same rules share it). */
function withGeneric(given: Record<string, SurfaceProfile>): Record<string, SurfaceProfile> {
  let merged = surfacesWithGeneric.get(given);
  if (!merged) {
    merged = { generic: BUILTIN_SURFACES.generic, ...given };
    surfacesWithGeneric.set(given, merged);
  }
  return merged;
}

/** Capabilities derived from what a snapshot holds: one frozen object per combination, shared by every catalog. */
function capabilitiesOf(tools: boolean, resources: boolean, prompts: boolean, subscribe: boolean): Record<string, unknown> {
  const key = `${+tools}${+resources}${+prompts}${+subscribe}`;
  let caps = capabilitiesByKind.get(key);
  if (!caps) {
    caps = deepFreeze({
      ...(tools ? { tools: { listChanged: false } } : {}),
      ...(resources ? { resources: { subscribe, listChanged: false } } : {}),
      ...(prompts ? { prompts: { listChanged: false } } : {}),
      logging: {},
      completions: {},
    });
    capabilitiesByKind.set(key, caps);
  }
  return caps;
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

function duplicate(kind: string, key: string): CatalogError {
  return new CatalogError('CATALOG_DUPLICATE_NAME', `Duplicate ${kind} "${key}" in catalog`, { kind, key });
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

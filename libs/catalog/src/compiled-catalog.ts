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
import type { CatalogSnapshot, PromptEntry, ResourceEntry, ResourceTemplateEntry, ToolEntry } from './definitions';
import { LIST_FIELD, decodeCursor, pageBytes, publishList, type ListMethod, type PublishedList } from './list-page';
import { PageCache } from './page-cache';

export type { ListMethod } from './list-page';

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

/** Validators by schema object: tenants built from one bundle share definition objects, so this skips even the content hash. */
const validatorsBySchema = new WeakMap<object, ArgsValidator>();
let nextCatalogId = 1;
let sharedPageCache = new PageCache();

/**
 * A snapshot compiled for serving: per-tool argument validators and lookup maps, built when a
 * snapshot changes (never per request), and list pages compiled lazily — a page's result bytes
 * are built on its first request for a (surface, version) and kept in a byte-bounded,
 * content-addressed LRU shared by every catalog in the process, so ten thousand tenants do not
 * hold (surfaces × versions × pages) Buffers each. Immutable otherwise: a swap is one reference
 * assignment, and `release()` drops only this catalog's pages.
 */
export class CompiledCatalog {
  /** This catalog's owner id in the page cache. */
  private readonly id = nextCatalogId++;
  /** Keyset keys per (surface, version, method) seen so far (cursor resolution; small: names only). */
  private readonly keysByList = new Map<string, string[]>();

  private constructor(
    readonly snapshot: CatalogSnapshot,
    private readonly info: ServerInfo,
    private readonly caps: Record<string, unknown>,
    private readonly tools: Map<string, { entry: ToolEntry; validate: ArgsValidator }>,
    private readonly prompts: Map<string, PromptEntry>,
    private readonly resources: Map<string, ResourceEntry>,
    private readonly templates: { entry: ResourceTemplateEntry; match: UriTemplateMatcher }[],
    private readonly surfaces: Record<string, SurfaceProfile>,
    private readonly modernExtra: Record<string, unknown>,
    private readonly pageSize: number,
    private readonly pages: PageCache,
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

    const tools = new Map<string, { entry: ToolEntry; validate: ArgsValidator }>();
    for (const entry of snapshot.tools) {
      const name = entry.definition.name;
      if (tools.has(name)) throw duplicate('tool', name);
      tools.set(name, { entry, validate: validatorFor(name, entry, options) });
    }
    const prompts = uniqueMap(snapshot.prompts, (e) => e.definition.name, 'prompt');
    const resources = uniqueMap(snapshot.resources, (e) => e.definition.uri, 'resource');
    uniqueMap(snapshot.resourceTemplates, (e) => e.definition.uriTemplate, 'resource template');
    const templates = snapshot.resourceTemplates.map((entry) => ({ entry, match: compileUriTemplate(entry.definition.uriTemplate) }));

    const surfaces: Record<string, SurfaceProfile> = { generic: BUILTIN_SURFACES.generic, ...options.surfaces };
    const modernExtra = {
      ttlMs: options.ttlMs ?? DEFAULT_TTL_MS,
      cacheScope: options.cacheScope ?? 'private',
      ...modernResultFields(info),
    };

    const hasResources = snapshot.resources.length > 0 || snapshot.resourceTemplates.length > 0;
    const caps = deepFreeze({
      ...(snapshot.tools.length > 0 ? { tools: { listChanged: false } } : {}),
      ...(hasResources ? { resources: { subscribe: options.resourceSubscribe ?? true, listChanged: false } } : {}),
      ...(snapshot.prompts.length > 0 ? { prompts: { listChanged: false } } : {}),
      logging: {},
      completions: {},
    });
    return new CompiledCatalog(
      snapshot,
      deepFreeze(info),
      caps,
      tools,
      prompts,
      resources,
      templates,
      surfaces,
      modernExtra,
      pageSize,
      options.pageCache ?? sharedPageCache,
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
  tool(name: string): { entry: ToolEntry; validate: ArgsValidator } | undefined {
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
   * Result bytes (no JSON-RPC envelope) of one page of a list for a surface and version:
   * modern versions carry `resultType`, `ttlMs`, `cacheScope` and `_meta` serverInfo.
   * An unknown surface id falls back to `generic`. Page-boundary pages come from the shared
   * page cache (compiled on a miss); equal bytes are one shared Buffer: callers must not
   * write into it.
   * @throws McpError −32602 for an invalid cursor.
   */
  list(method: ListMethod, surfaceId: string, version: ProtocolVersion, cursor?: string): Buffer {
    const surfaceKey = Object.hasOwn(this.surfaces, surfaceId) ? surfaceId : 'generic';
    if (!VERSION_SET.has(version) || !Object.hasOwn(LIST_FIELD, method)) {
      // Only a transport bug gets here (methods and versions are decided before the lookup).
      throw new McpError(ErrorCode.InvalidParams, `No ${String(method)} for protocol version ${String(version)}`);
    }
    const listKey = `${surfaceKey}\u0000${version}\u0000${method}`;
    let start = 0;
    if (cursor !== undefined && cursor !== null) {
      const position = decodeCursor(cursor);
      if (!position) throw new McpError(ErrorCode.InvalidParams, 'Invalid cursor');
      const keys = this.keysByList.get(listKey) ?? this.publish(listKey, method, surfaceKey, version).keys;
      // Keyset first; when the key has gone (an older snapshot's cursor), the offset it was minted at.
      const at = keys.indexOf(position.key);
      start = at >= 0 ? at + 1 : Math.min(position.offset, keys.length);
    }
    // Only page boundaries are cached: a cursor from an older snapshot may start anywhere, and
    // such one-off pages must not push the regular ones out.
    const boundary = start % this.pageSize === 0;
    const pageKey = `${listKey}\u0000${start}`;
    if (boundary) {
      const hit = this.pages.get(this.id, pageKey);
      if (hit) return hit;
    }
    const bytes = pageBytes(this.publish(listKey, method, surfaceKey, version), start, this.pageSize).bytes;
    return boundary ? this.pages.set(this.id, pageKey, bytes) : bytes;
  }

  /** Drops this catalog's pages from the page cache (it was replaced); other catalogs' pages stay. */
  release(): void {
    this.pages.release(this.id);
  }

  /** The published items of one list; remembers its keys (cheap) but not the items. */
  private publish(listKey: string, method: ListMethod, surfaceKey: string, version: ProtocolVersion): PublishedList {
    const extra = isModernVersion(version) ? this.modernExtra : undefined;
    const list = publishList(this.snapshot, method, this.surfaces[surfaceKey] as SurfaceProfile, version, extra);
    this.keysByList.set(listKey, list.keys);
    return list;
  }
}

/** A tool's validator: shared with every catalog holding the same schema object, else compiled (cached by content). */
function validatorFor(name: string, entry: ToolEntry, options: CompileOptions): ArgsValidator {
  const schema = entry.definition.inputSchema as unknown;
  const cacheable = typeof schema === 'object' && schema !== null;
  const known = cacheable ? validatorsBySchema.get(schema) : undefined;
  if (known) return known;
  let failed = false;
  const validate = compileValidator(entry.definition.inputSchema, (err) => {
    failed = true;
    options.onSchemaError?.(name, err);
  });
  // A broken schema is reported to each catalog that holds it, so it is not remembered.
  if (!failed && cacheable) validatorsBySchema.set(schema, validate);
  return validate;
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

import {
  BUILTIN_SURFACES,
  ErrorCode,
  LEGACY_VERSIONS,
  McpError,
  MODERN_VERSIONS,
  isModernVersion,
  modernResultFields,
  versionAtLeast,
  type CacheScope,
  type ProtocolVersion,
  type ServerInfo,
  type SurfaceProfile,
} from '@switchboard/protocol';
import { CatalogError } from './catalog-error';
import { compileUriTemplate, type UriTemplateMatcher } from './compile-uri-template';
import { compileValidator, type ArgsValidator } from './compile-validator';
import type {
  CatalogSnapshot,
  PromptDefinition,
  PromptEntry,
  ResourceDefinition,
  ResourceEntry,
  ResourceTemplateDefinition,
  ResourceTemplateEntry,
  ToolEntry,
} from './definitions';
import { filterMeta } from './filter-meta';
import { publishTool } from './publish-tool';

export type ListMethod = 'tools/list' | 'resources/list' | 'resources/templates/list' | 'prompts/list';

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
}

const DEFAULT_PAGE_SIZE = 100;
const DEFAULT_TTL_MS = 60_000;
const MAX_CURSOR_LENGTH = 2_048;
const VERSIONS: readonly ProtocolVersion[] = [...LEGACY_VERSIONS, ...MODERN_VERSIONS];

const LIST_FIELD: Record<ListMethod, string> = {
  'tools/list': 'tools',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
  'prompts/list': 'prompts',
};

/** The published items of one list for one (surface, version), and its precompiled pages. */
interface PageSet {
  field: string;
  items: Record<string, unknown>[];
  /** Keyset key of each item (name, uri or uriTemplate), index-aligned with `items`. */
  keys: string[];
  first: Buffer;
  /** Precompiled pages after the first, by the cursor that leads to them. */
  byCursor: Map<string, Buffer>;
  /** Fields appended to every page (modern era: resultType, ttlMs, cacheScope, _meta). */
  extra: Record<string, unknown> | undefined;
}

type VersionLists = Record<ListMethod, PageSet>;

/**
 * A snapshot compiled for serving: per-tool argument validators, lookup maps, and for
 * every (surface, version) the result bytes of each list page. Built when a snapshot
 * changes, never per request; immutable afterwards, so a swap is one reference assignment.
 */
export class CompiledCatalog {
  private constructor(
    readonly snapshot: CatalogSnapshot,
    private readonly info: ServerInfo,
    private readonly caps: Record<string, unknown>,
    private readonly tools: Map<string, { entry: ToolEntry; validate: ArgsValidator }>,
    private readonly prompts: Map<string, PromptEntry>,
    private readonly resources: Map<string, ResourceEntry>,
    private readonly templates: { entry: ResourceTemplateEntry; match: UriTemplateMatcher }[],
    private readonly lists: Map<string, Map<ProtocolVersion, VersionLists>>,
    private readonly pageSize: number,
  ) {}

  /**
   * Compiles validators, lookup maps and every list page for every surface × supported version.
   * A `generic` surface is always compiled (the fallback for unknown surface ids).
   * @throws CatalogError `CATALOG_DUPLICATE_NAME` when two tools/prompts share a name or two resources a URI.
   */
  static build(snapshot: CatalogSnapshot, options: CompileOptions): CompiledCatalog {
    const pageSize = Math.max(1, Math.floor(options.pageSize ?? DEFAULT_PAGE_SIZE));
    const info = serverInfoOf(snapshot);

    const tools = new Map<string, { entry: ToolEntry; validate: ArgsValidator }>();
    for (const entry of snapshot.tools) {
      const name = entry.definition.name;
      if (tools.has(name)) throw duplicate('tool', name);
      const validate = compileValidator(entry.definition.inputSchema, (err) => options.onSchemaError?.(name, err));
      tools.set(name, { entry, validate });
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
    const lists = new Map<string, Map<ProtocolVersion, VersionLists>>();
    for (const [surfaceId, surface] of Object.entries(surfaces)) {
      const byVersion = new Map<ProtocolVersion, VersionLists>();
      for (const version of VERSIONS) {
        const extra = isModernVersion(version) ? modernExtra : undefined;
        const make = (method: ListMethod, items: Record<string, unknown>[], keys: string[]) =>
          pageSet(LIST_FIELD[method], items, keys, pageSize, extra);
        const published = publishTools(snapshot.tools, surface, version);
        byVersion.set(version, {
          'tools/list': make('tools/list', published, published.map((t) => t.name as string)),
          'resources/list': make(
            'resources/list',
            snapshot.resources.map((e) => publishResource(e.definition, surface, version)),
            snapshot.resources.map((e) => e.definition.uri),
          ),
          'resources/templates/list': make(
            'resources/templates/list',
            snapshot.resourceTemplates.map((e) => publishResourceTemplate(e.definition, surface, version)),
            snapshot.resourceTemplates.map((e) => e.definition.uriTemplate),
          ),
          'prompts/list': make(
            'prompts/list',
            snapshot.prompts.map((e) => publishPrompt(e.definition, surface, version)),
            snapshot.prompts.map((e) => e.definition.name),
          ),
        });
      }
      lists.set(surfaceId, byVersion);
    }

    const hasResources = snapshot.resources.length > 0 || snapshot.resourceTemplates.length > 0;
    const caps = deepFreeze({
      ...(snapshot.tools.length > 0 ? { tools: { listChanged: false } } : {}),
      ...(hasResources ? { resources: { subscribe: options.resourceSubscribe ?? true, listChanged: false } } : {}),
      ...(snapshot.prompts.length > 0 ? { prompts: { listChanged: false } } : {}),
      logging: {},
      completions: {},
    });
    return new CompiledCatalog(snapshot, deepFreeze(info), caps, tools, prompts, resources, templates, lists, pageSize);
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
   * An unknown surface id falls back to `generic`. The same Buffer instance is returned for
   * the same page every time: callers must not write into it.
   * @throws McpError −32602 for an invalid cursor.
   */
  list(method: ListMethod, surfaceId: string, version: ProtocolVersion, cursor?: string): Buffer {
    const byVersion = this.lists.get(surfaceId) ?? (this.lists.get('generic') as Map<ProtocolVersion, VersionLists>);
    const set = byVersion.get(version)?.[method];
    if (!set) {
      // Only a transport bug gets here (methods and versions are decided before the lookup).
      throw new McpError(ErrorCode.InvalidParams, `No ${String(method)} for protocol version ${String(version)}`);
    }
    if (cursor === undefined || cursor === null) return set.first;
    return set.byCursor.get(cursor) ?? this.pageFromCursor(set, cursor);
  }

  /** A cursor that is not a current page boundary (minted by an older snapshot): resume after its key. */
  private pageFromCursor(set: PageSet, cursor: unknown): Buffer {
    const position = decodeCursor(cursor);
    if (!position) throw new McpError(ErrorCode.InvalidParams, 'Invalid cursor');
    const at = set.keys.indexOf(position.key);
    // Keyset first; when the key has gone, fall back to the offset it was minted at.
    const start = at >= 0 ? at + 1 : Math.min(position.offset, set.items.length);
    return pageBytes(set, start, this.pageSize).bytes;
  }
}

function pageSet(
  field: string,
  items: Record<string, unknown>[],
  keys: string[],
  pageSize: number,
  extra: Record<string, unknown> | undefined,
): PageSet {
  const set: PageSet = { field, items, keys, first: Buffer.alloc(0), byCursor: new Map(), extra };
  let page = pageBytes(set, 0, pageSize);
  set.first = page.bytes;
  // Bounded: each step advances by pageSize ≥ 1 until the list ends.
  while (page.next !== undefined) {
    const next = pageBytes(set, page.next.start, pageSize);
    set.byCursor.set(page.next.cursor, next.bytes);
    page = next;
  }
  return set;
}

function pageBytes(set: PageSet, start: number, pageSize: number): { bytes: Buffer; next?: { start: number; cursor: string } } {
  const end = Math.min(start + pageSize, set.items.length);
  const result: Record<string, unknown> = { [set.field]: set.items.slice(start, end) };
  let next: { start: number; cursor: string } | undefined;
  if (end < set.items.length) {
    next = { start: end, cursor: encodeCursor(end, set.keys[end - 1] as string) };
    result.nextCursor = next.cursor;
  }
  if (set.extra) Object.assign(result, set.extra);
  return { bytes: Buffer.from(JSON.stringify(result), 'utf8'), next };
}

/**
 * Opaque to clients: base64url of `[offset, lastKey]`, the keyset position after the previous
 * page. It holds no snapshot version, so it stays valid (and stable) across catalog changes.
 */
function encodeCursor(offset: number, lastKey: string): string {
  return Buffer.from(JSON.stringify([offset, lastKey]), 'utf8').toString('base64url');
}

function decodeCursor(cursor: unknown): { offset: number; key: string } | null {
  if (typeof cursor !== 'string' || cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH) return null;
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) return null;
  const [offset, key] = parsed as unknown[];
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 1 || typeof key !== 'string') return null;
  return { offset, key };
}

function publishTools(entries: ToolEntry[], surface: SurfaceProfile, version: ProtocolVersion): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const entry of entries) {
    // Unlisted entries stay callable through `tool(name)` but never take a list slot.
    if (entry.unlisted === true) continue;
    if (surface.maxTools > 0 && out.length >= surface.maxTools) break;
    const published = publishTool(entry.definition, surface, version);
    if (published) out.push(published);
  }
  return out;
}

/** Adds the surface-filtered `_meta` (a field since 2025-06-18); the same key rules as for tools. */
function withMeta(
  def: { title?: string; _meta?: Record<string, unknown> },
  surface: SurfaceProfile,
  version: ProtocolVersion,
  out: Record<string, unknown>,
): Record<string, unknown> {
  if (versionAtLeast(version, '2025-06-18')) {
    const meta = filterMeta(def._meta, surface.keepMetaKeys, surface.publishSecuritySchemes);
    if (meta) out._meta = meta;
  }
  return out;
}

function pick(def: object, fields: readonly string[], out: Record<string, unknown>): void {
  for (const f of fields) {
    const v = (def as Record<string, unknown>)[f];
    if (v !== undefined) out[f] = v;
  }
}

/** `title` exists on resources, templates, prompts and prompt arguments since 2025-06-18. */
function withTitle(def: { title?: string }, version: ProtocolVersion, out: Record<string, unknown>): void {
  if (def.title !== undefined && versionAtLeast(version, '2025-06-18')) out.title = def.title;
}

function publishResource(def: ResourceDefinition, surface: SurfaceProfile, version: ProtocolVersion): Record<string, unknown> {
  const out: Record<string, unknown> = { uri: def.uri, name: def.name };
  withTitle(def, version, out);
  pick(def, ['description', 'mimeType', 'size', 'annotations'], out);
  return withMeta(def, surface, version, out);
}

function publishResourceTemplate(def: ResourceTemplateDefinition, surface: SurfaceProfile, version: ProtocolVersion): Record<string, unknown> {
  const out: Record<string, unknown> = { uriTemplate: def.uriTemplate, name: def.name };
  withTitle(def, version, out);
  pick(def, ['description', 'mimeType', 'annotations'], out);
  return withMeta(def, surface, version, out);
}

function publishPrompt(def: PromptDefinition, surface: SurfaceProfile, version: ProtocolVersion): Record<string, unknown> {
  const out: Record<string, unknown> = { name: def.name };
  withTitle(def, version, out);
  pick(def, ['description'], out);
  if (def.arguments) {
    out.arguments = def.arguments.map((a) => {
      const arg: Record<string, unknown> = { name: a.name };
      withTitle(a, version, arg);
      pick(a, ['description', 'required'], arg);
      return arg;
    });
  }
  return withMeta(def, surface, version, out);
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

import { BUILTIN_SURFACES, withAppsVariants, type SurfaceProfile } from '@switchboard/protocol';
import { CatalogError } from './catalog-error';
import { SchemaCompiler, type ArgsValidator } from './compile-validator';
import type { JsonSchema, ToolEntry } from './definitions';
import { isCompact } from './compact-tool-entry';
import { ToolSlot } from './tool-slot';
import { pageTail } from './list-page';
import { DEFAULT_PAGE_CACHE_BYTES, PageCache } from './page-cache';

/** The tools page bodies of catalogs sharing one tool map: `id` owns them in the page cache. */
export interface ToolGroup {
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

export interface CatalogCachesOptions {
  /** Byte bound of the compiled list pages kept for every catalog together (default 64 MiB). */
  pageCacheBytes?: number;
}

/** Variants kept per first tool entry (tenants picking different subsets of one bundle); beyond that, unshared. */
const MAX_SHARED_TOOL_MAPS = 8;
/** Distinct modern page tails kept so tenants with equal ones share one Buffer (emptied when full). */
const MAX_SHARED_TAILS = 4_096;

/**
 * What the catalogs of one app share: the list-page cache, compiled validators, tool maps and
 * page tails, so ten thousand tenants built from a few bundles hold each of these once. The app
 * creates one and passes it to every `CompiledCatalog.build`; nothing is shared between two of them.
 */
export class CatalogCaches {
  /** Compiled list pages of every catalog built with these caches. */
  readonly pages: PageCache;
  readonly schemas = new SchemaCompiler();
  /** Validators by schema object: tenants built from one bundle share definition objects, so this skips even the content hash. */
  private readonly validatorsBySchema = new WeakMap<object, ArgsValidator>();
  /** Tool maps by their first entry, then compared entry by entry (identity). */
  private readonly toolMapsByFirstEntry = new WeakMap<ToolEntry, SharedTools[]>();
  /** Page-cache ids of surface profile objects (a tools page body depends on the profile, not its name). */
  private readonly surfaceIds = new WeakMap<SurfaceProfile, number>();
  private readonly surfacesWithGeneric = new WeakMap<Record<string, SurfaceProfile>, Record<string, SurfaceProfile>>();
  private tails = new Map<string, Buffer>();
  private nextSurfaceId = 1;
  /** Ids of catalogs and of shared tool maps: both own keys in the page cache. */
  private nextOwnerId = 1;

  constructor(options: CatalogCachesOptions = {}) {
    this.pages = new PageCache(options.pageCacheBytes ?? DEFAULT_PAGE_CACHE_BYTES);
  }

  /** A fresh owner id in the page cache (one per compiled catalog and per shared tool map). */
  newOwner(): number {
    return this.nextOwnerId++;
  }

  /** The page-cache id of a surface profile object. */
  surfaceId(surface: SurfaceProfile): number {
    let id = this.surfaceIds.get(surface);
    if (id === undefined) {
      id = this.nextSurfaceId++;
      this.surfaceIds.set(surface, id);
    }
    return id;
  }

  /** `generic` plus the given surfaces; one merged object per surfaces object (tenants with the same rules share it). */
  withGeneric(given: Record<string, SurfaceProfile>): Record<string, SurfaceProfile> {
    let merged = this.surfacesWithGeneric.get(given);
    if (!merged) {
      // Each surface's MCP Apps variant (`<id>+apps`) is compiled like any surface: no per-request profile.
      merged = withAppsVariants({ generic: BUILTIN_SURFACES.generic, ...given });
      this.surfacesWithGeneric.set(given, merged);
    }
    return merged;
  }

  /** The modern page tail of `extra`, one Buffer per distinct content (tenants with the same serverInfo and hints share it). */
  tail(extra: Record<string, unknown>): Buffer {
    const json = JSON.stringify(extra);
    let tail = this.tails.get(json);
    if (!tail) {
      if (this.tails.size >= MAX_SHARED_TAILS) this.tails = new Map();
      tail = pageTail(extra);
      this.tails.set(json, tail);
    }
    return tail;
  }

  /**
   * The name → tool map of a list of entries, shared by catalogs built from the same frozen
   * entries (one bundle, many tenants).
   * @throws CatalogError `CATALOG_DUPLICATE_NAME` when two tools share a name.
   */
  toolMap(
    entries: readonly ToolEntry[],
    onSchemaError?: (toolName: string, err: Error) => void,
  ): { map: ReadonlyMap<string, ToolSlot>; group?: ToolGroup } {
    const first = entries[0];
    const shareable = first !== undefined && Object.isFrozen(first);
    const candidates = shareable ? this.toolMapsByFirstEntry.get(first) : undefined;
    const known = candidates?.find((c) => c.entries.length === entries.length && c.entries.every((e, i) => e === entries[i]));
    if (known) return known;
    const map = new Map<string, ToolSlot>();
    for (const entry of entries) {
      const name = entry.definition.name;
      if (map.has(name)) throw duplicate('tool', name);
      map.set(name, new ToolSlot(entry, this.validatorOf, onSchemaError));
    }
    if (!shareable) return { map };
    const list = candidates ?? [];
    if (list.length >= MAX_SHARED_TOOL_MAPS) list.shift();
    const shared: SharedTools = { entries: entries.slice(), map, group: { id: this.newOwner(), firstBodyKeys: new Map() } };
    list.push(shared);
    this.toolMapsByFirstEntry.set(first, list);
    return shared;
  }

  /**
   * A tool's validator (asked by its slot on the tool's first call): one per schema object, and
   * the compiler shares them by content; a broken schema is reported through `onSchemaError` of
   * the catalog whose call compiled it. A compacted definition parses a new schema on each read,
   * so it goes to the content cache directly.
   */
  private readonly validatorOf = (entry: ToolEntry, onSchemaError?: (toolName: string, err: Error) => void): ArgsValidator => {
    const def = entry.definition;
    const schema = def.inputSchema as unknown;
    const cacheable = typeof schema === 'object' && schema !== null && !isCompact(def);
    const known = cacheable ? this.validatorsBySchema.get(schema) : undefined;
    if (known) return known;
    const validate = this.schemas.compile(schema as JsonSchema, (err) => onSchemaError?.(def.name, err));
    if (cacheable) this.validatorsBySchema.set(schema, validate);
    return validate;
  };
}

export function duplicate(kind: string, key: string): CatalogError {
  return new CatalogError('CATALOG_DUPLICATE_NAME', `Duplicate ${kind} "${key}" in catalog`, { kind, key });
}

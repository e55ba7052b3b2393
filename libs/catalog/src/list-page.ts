import { versionAtLeast, type ProtocolVersion, type SurfaceProfile } from '@switchboard/protocol';
import type { CatalogSnapshot, PromptDefinition, ResourceDefinition, ResourceTemplateDefinition, ToolEntry } from './definitions';
import { filterMeta } from './filter-meta';
import { publishTool } from './publish-tool';
import { listedResources, listedResourceTemplates } from './ui-apps/app-visibility';
import { maxToolsRule, retiredRule } from './tool-visibility';

/** The list methods a compiled catalog serves (pages of published items). */
export type ListMethod = 'tools/list' | 'resources/list' | 'resources/templates/list' | 'prompts/list';

const MAX_CURSOR_LENGTH = 2_048;

export const LIST_FIELD: Record<ListMethod, string> = {
  'tools/list': 'tools',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
  'prompts/list': 'prompts',
};

/** The published items of one list for one (surface, version): built on a page miss, then dropped. */
export interface PublishedList {
  field: string;
  items: Record<string, unknown>[];
  /** Keyset key of each item (name, uri or uriTemplate), index-aligned with `items`. */
  keys: string[];
  /** Fields appended to every page (modern era: resultType, ttlMs, cacheScope, _meta). */
  extra: Record<string, unknown> | undefined;
}

/** The published items of one list of a snapshot for one (surface, version), with their keyset keys. */
export function publishList(
  s: CatalogSnapshot,
  method: ListMethod,
  surface: SurfaceProfile,
  version: ProtocolVersion,
  extra: Record<string, unknown> | undefined,
): PublishedList {
  let items: Record<string, unknown>[];
  let keys: string[];
  switch (method) {
    case 'tools/list':
      items = publishTools(s.tools, surface, version);
      keys = items.map((t) => t.name as string);
      break;
    case 'resources/list': {
      const listed = listedResources(s.resources, surface);
      items = listed.map((e) => publishResource(e.definition, surface, version));
      keys = listed.map((e) => e.definition.uri);
      break;
    }
    case 'resources/templates/list': {
      const listed = listedResourceTemplates(s.resourceTemplates, surface);
      items = listed.map((e) => publishResourceTemplate(e.definition, surface, version));
      keys = listed.map((e) => e.definition.uriTemplate);
      break;
    }
    default:
      items = s.prompts.map((e) => publishPrompt(e.definition, surface, version));
      keys = s.prompts.map((e) => e.definition.name);
  }
  return { field: LIST_FIELD[method], items, keys, extra };
}

/** One page's bytes: `{"<field>":[…],"nextCursor":"…"` and then the list's `extra` fields. */
export function pageBytes(set: PublishedList, start: number, pageSize: number): Buffer {
  return closePage(pageBody(set, start, pageSize), set.extra);
}

/**
 * A page without its closing brace and without `extra` (`{"tools":[…],"nextCursor":"…"`): the
 * same bytes for every catalog that lists the same items, whatever its serverInfo.
 */
export function pageBody(set: Pick<PublishedList, 'field' | 'items' | 'keys'>, start: number, pageSize: number): Buffer {
  const end = Math.min(start + pageSize, set.items.length);
  const result: Record<string, unknown> = { [set.field]: set.items.slice(start, end) };
  if (end < set.items.length) result.nextCursor = encodeCursor(end, set.keys[end - 1] as string);
  return Buffer.from(JSON.stringify(result).slice(0, -1), 'utf8');
}

/** A page body closed with `extra`'s fields: exactly the bytes of JSON.stringify of the body's object with `extra` assigned after it. */
export function closePage(body: Buffer, extra: Record<string, unknown> | undefined): Buffer {
  return Buffer.concat([body, pageTail(extra)]);
}

/** The tail of a page without extra fields (legacy era): one Buffer for every page. */
export const PLAIN_TAIL = Buffer.from('}');

/** What closes a page body: `extra`'s fields and the closing brace (`}` alone without them). */
export function pageTail(extra: Record<string, unknown> | undefined): Buffer {
  const json = extra ? JSON.stringify(extra) : '{}';
  return json === '{}' ? PLAIN_TAIL : Buffer.from(`,${json.slice(1)}`, 'utf8');
}

/**
 * Opaque to clients: base64url of `[offset, lastKey]`, the keyset position after the previous
 * page. It holds no snapshot version, so it stays valid (and stable) across catalog changes.
 */
function encodeCursor(offset: number, lastKey: string): string {
  return Buffer.from(JSON.stringify([offset, lastKey]), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: unknown): { offset: number; key: string } | null {
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
    if (retiredRule(entry) === 'hide') continue;
    if (maxToolsRule(out.length, surface) === 'hide') break;
    const published = publishTool(entry.definition, surface, version);
    if (!published) continue;
    // 2025-11-25 (the only revision with the tasks utility): a 2025-11-25 upstream's task tool
    // says so, as the gateway proxies its tasks; local ones run as tasks only for 2026-07-28.
    const support = entry.definition.taskSupport;
    if (support !== undefined && version === '2025-11-25' && entry.route.kind === 'upstream' && entry.route.protocol !== 'modern')
      published.execution = { taskSupport: support };
    out.push(published);
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

function publishResourceTemplate(
  def: ResourceTemplateDefinition,
  surface: SurfaceProfile,
  version: ProtocolVersion,
): Record<string, unknown> {
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

import { CatalogError } from './catalog-error';
import type { ToolAnnotations, ToolDefinition, ToolIcon } from './definitions';

type Obj = Record<string, unknown>;

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

/**
 * Reads tool definitions from stored JSON: `{ "tools": [ToolDefinition…] }` (the shape of
 * `fixtures/saas-40-tools.json` and of a `tools/list` result) or a bare array. Known fields
 * are checked and copied; unknown ones are dropped.
 * @throws CatalogError `CATALOG_INVALID_DEFINITION` naming the index and field (`tools[3].inputSchema: must be an object`),
 * `CATALOG_DUPLICATE_NAME` when two tools share a name.
 */
export function toolDefinitionsFromJson(json: unknown): ToolDefinition[] {
  const list = Array.isArray(json) ? json : isObj(json) ? json.tools : undefined;
  if (!Array.isArray(list)) throw invalid('tools', 'must be an array (or an object with a "tools" array)');
  const seen = new Set<string>();
  return list.map((raw, i) => {
    const def = readTool(raw, `tools[${i}]`);
    if (seen.has(def.name)) {
      throw new CatalogError('CATALOG_DUPLICATE_NAME', `tools[${i}].name: duplicate tool name "${def.name}"`, { index: i, name: def.name });
    }
    seen.add(def.name);
    return def;
  });
}

function readTool(raw: unknown, at: string): ToolDefinition {
  if (!isObj(raw)) throw invalid(at, 'must be an object');
  if (typeof raw.name !== 'string' || raw.name.length === 0) throw invalid(`${at}.name`, 'must be a non-empty string');
  const def: ToolDefinition = { name: raw.name, inputSchema: {} };
  if (raw.title !== undefined) def.title = str(raw.title, `${at}.title`);
  if (raw.description !== undefined) def.description = str(raw.description, `${at}.description`);
  if (!isObj(raw.inputSchema)) throw invalid(`${at}.inputSchema`, 'must be an object');
  if (raw.inputSchema.type !== 'object') throw invalid(`${at}.inputSchema.type`, 'must be "object"');
  def.inputSchema = raw.inputSchema;
  if (raw.outputSchema !== undefined) {
    if (!isObj(raw.outputSchema)) throw invalid(`${at}.outputSchema`, 'must be an object');
    def.outputSchema = raw.outputSchema;
  }
  if (raw.annotations !== undefined) def.annotations = readAnnotations(raw.annotations, `${at}.annotations`);
  if (raw.icons !== undefined) def.icons = readIcons(raw.icons, `${at}.icons`);
  if (raw._meta !== undefined) {
    if (!isObj(raw._meta)) throw invalid(`${at}._meta`, 'must be an object');
    def._meta = raw._meta;
  }
  if (raw.securitySchemes !== undefined) {
    if (!Array.isArray(raw.securitySchemes)) throw invalid(`${at}.securitySchemes`, 'must be an array');
    def.securitySchemes = raw.securitySchemes;
  }
  if (raw.requiredScopes !== undefined) {
    const scopes = raw.requiredScopes;
    if (!Array.isArray(scopes) || !scopes.every((s) => typeof s === 'string')) {
      throw invalid(`${at}.requiredScopes`, 'must be an array of strings');
    }
    def.requiredScopes = scopes as string[];
  }
  return def;
}

function readAnnotations(raw: unknown, at: string): ToolAnnotations {
  if (!isObj(raw)) throw invalid(at, 'must be an object');
  if (raw.title !== undefined) str(raw.title, `${at}.title`);
  for (const hint of HINTS) {
    if (raw[hint] !== undefined && typeof raw[hint] !== 'boolean') throw invalid(`${at}.${hint}`, 'must be a boolean');
  }
  return { ...raw };
}

function readIcons(raw: unknown, at: string): ToolIcon[] {
  if (!Array.isArray(raw)) throw invalid(at, 'must be an array');
  return raw.map((icon, i) => {
    const here = `${at}[${i}]`;
    if (!isObj(icon)) throw invalid(here, 'must be an object');
    const out: ToolIcon = { src: str(icon.src, `${here}.src`) };
    if (icon.mimeType !== undefined) out.mimeType = str(icon.mimeType, `${here}.mimeType`);
    if (icon.sizes !== undefined) {
      if (!Array.isArray(icon.sizes) || !icon.sizes.every((s) => typeof s === 'string')) {
        throw invalid(`${here}.sizes`, 'must be an array of strings');
      }
      out.sizes = icon.sizes as string[];
    }
    if (icon.theme !== undefined) {
      if (icon.theme !== 'light' && icon.theme !== 'dark') throw invalid(`${here}.theme`, 'must be "light" or "dark"');
      out.theme = icon.theme;
    }
    return out;
  });
}

function str(value: unknown, at: string): string {
  if (typeof value !== 'string') throw invalid(at, 'must be a string');
  return value;
}

function isObj(value: unknown): value is Obj {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function invalid(field: string, problem: string): CatalogError {
  return new CatalogError('CATALOG_INVALID_DEFINITION', `${field}: ${problem}`, { field });
}

import { CatalogError } from './catalog-error';
import { linearRegExp } from './linear-reg-exp';

/** One schema regex the linear-time engine refuses. */
export interface UnsupportedPattern {
  /** RFC 6901 pointer to the keyword inside the schema: `/properties/code/pattern`, `/patternProperties/^(a)\1$`. */
  pointer: string;
  pattern: string;
  reason: string;
}

// Keywords whose value is a schema, a list of schemas, or a map of schemas (2020-12, 2019-09, draft-07).
const SCHEMA = [
  'additionalProperties',
  'additionalItems',
  'items',
  'contains',
  'not',
  'if',
  'then',
  'else',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
];
const SCHEMA_LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'];
const SCHEMA_MAP = ['properties', '$defs', 'definitions', 'dependentSchemas', 'dependencies', 'patternProperties'];
// Deep schemas are refused elsewhere (ajv); the walk stops rather than recurse without bound.
const MAX_DEPTH = 64;

/**
 * Every `pattern` and `patternProperties` key of a JSON Schema that the gateway's linear-time
 * engine (linearRegExp) cannot compile, with a JSON pointer and the reason — what the registry
 * refuses at publish and the console shows in review. Walks only schema positions, so a
 * property *named* `pattern` is not mistaken for the keyword.
 */
export function findUnsupportedPatterns(schema: unknown): UnsupportedPattern[] {
  const out: UnsupportedPattern[] = [];
  walk(schema, '', 0, out);
  return out;
}

function walk(node: unknown, pointer: string, depth: number, out: UnsupportedPattern[]): void {
  if (depth > MAX_DEPTH || node === null || typeof node !== 'object' || Array.isArray(node)) return;
  const s = node as Record<string, unknown>;
  if (typeof s.pattern === 'string') check(s.pattern, `${pointer}/pattern`, out);
  const props = s.patternProperties;
  if (props !== null && typeof props === 'object' && !Array.isArray(props)) {
    for (const key of Object.keys(props)) check(key, `${pointer}/patternProperties/${escape(key)}`, out);
  }
  for (const k of SCHEMA) if (Object.hasOwn(s, k)) walk(s[k], `${pointer}/${k}`, depth + 1, out);
  for (const k of SCHEMA_LIST) {
    const list = s[k];
    if (Array.isArray(list)) list.forEach((sub, i) => walk(sub, `${pointer}/${k}/${i}`, depth + 1, out));
  }
  for (const k of SCHEMA_MAP) {
    const map = s[k];
    if (map === null || typeof map !== 'object' || Array.isArray(map)) continue;
    for (const [name, sub] of Object.entries(map)) walk(sub, `${pointer}/${k}/${escape(name)}`, depth + 1, out);
  }
}

function check(pattern: string, pointer: string, out: UnsupportedPattern[]): void {
  try {
    linearRegExp(pattern, 'u');
  } catch (err) {
    if (!(err instanceof CatalogError)) throw err;
    out.push({ pointer, pattern, reason: String(err.details?.reason ?? err.message) });
  }
}

function escape(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

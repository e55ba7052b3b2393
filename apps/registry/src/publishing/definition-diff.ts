/** One difference between two definitions, at a JSON pointer (RFC 6901) path. */
export interface DiffEntry {
  path: string;
  op: 'added' | 'removed' | 'changed';
  before?: unknown;
  after?: unknown;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** RFC 6901 escaping of one reference token. */
const token = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** Deep equality of JSON values (object key order does not matter; array order does). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => jsonEqual(v, b[i]));
  }
  if (!isObject(a) || !isObject(b)) return false;
  const ka = Object.keys(a).filter((k) => a[k] !== undefined);
  const kb = Object.keys(b).filter((k) => b[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
}

function walk(before: unknown, after: unknown, path: string, out: DiffEntry[]): void {
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    for (const key of keys) {
      const b = before[key];
      const a = after[key];
      const p = `${path}/${token(key)}`;
      if (b === undefined && a === undefined) continue;
      if (b === undefined) out.push({ path: p, op: 'added', after: a });
      else if (a === undefined) out.push({ path: p, op: 'removed', before: b });
      else walk(b, a, p, out);
    }
    return;
  }
  // Scalars, arrays (compared as whole values: an index-wise diff of `required` or `enum` reads worse than both lists) and type changes.
  if (!jsonEqual(before, after)) out.push({ path, op: 'changed', before, after });
}

/**
 * What changed from the approved (published) definition to the newly discovered one: a deep,
 * key-sorted list of added / removed / changed values at JSON-pointer paths
 * (`/inputSchema/properties/limit/maximum`, `/description`). Arrays are compared as whole
 * values at their path. A vanished item is one `{path: '', op: 'removed'}` row; an item with no
 * approved definition is one `{path: '', op: 'added'}` row.
 */
export function definitionDiff(before: unknown, after: unknown): DiffEntry[] {
  if (after === undefined || after === null) return before === undefined || before === null ? [] : [{ path: '', op: 'removed' }];
  if (before === undefined || before === null) return [{ path: '', op: 'added', after }];
  const out: DiffEntry[] = [];
  walk(before, after, '', out);
  return out;
}

/** One field that differs: where, and the values before and after (never a secret). */
export interface FieldChange {
  field: string;
  before?: unknown;
  after?: unknown;
}

/** Drops undefined members, null-valued optional members and empty objects, so `{}` / null / absent compare equal. */
export function prune(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(prune);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const p = prune(v);
    if (p === undefined) continue;
    if (typeof p === 'object' && p !== null && !Array.isArray(p) && Object.keys(p).length === 0) continue;
    out[k] = p;
  }
  return out;
}

/** JSON with sorted keys: equal values give equal text. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    typeof v === 'object' && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

export function same(a: unknown, b: unknown): boolean {
  return canonical(prune(a)) === canonical(prune(b));
}

/**
 * Leaf-level differences between two plain values (objects are walked, arrays and scalars
 * compared whole), each named by its dotted path under `prefix`.
 */
export function diffFields(prefix: string, before: unknown, after: unknown): FieldChange[] {
  const b = prune(before);
  const a = prune(after);
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (isObj(b) && isObj(a)) {
    const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])].sort();
    return keys.flatMap((k) => diffFields(prefix ? `${prefix}.${k}` : k, b[k], a[k]));
  }
  if (canonical(b) === canonical(a)) return [];
  return [{ field: prefix, ...(b !== undefined ? { before: b } : {}), ...(a !== undefined ? { after: a } : {}) }];
}

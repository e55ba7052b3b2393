/** One tool flattened to `path → JSON text` (schemas and arrays stay whole: their inner paths are noise in a side-by-side view). */
export function flatten(value: unknown, prefix = '', out: Map<string, string> = new Map()): Map<string, string> {
  const leafKeys = new Set(['inputSchema', 'outputSchema', 'icons']);
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && !leafKeys.has(prefix.split('.').pop() ?? '')) {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0 && prefix) out.set(prefix, '{}');
    for (const [k, v] of entries) flatten(v, prefix ? `${prefix}.${k}` : k, out);
    return out;
  }
  out.set(prefix, JSON.stringify(value));
  return out;
}

/** A row of the side-by-side view: one field, its value per surface (undefined = absent), and whether they differ. */
export interface DiffRow {
  path: string;
  values: Array<string | undefined>;
  differs: boolean;
}

/** Field order: the tool's own fields first (name, title, description…), then the rest alphabetically. */
const ORDER = ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations', 'securitySchemes', '_meta'];

function rank(path: string): number {
  const i = ORDER.indexOf(path.split('.')[0]);
  return i === -1 ? ORDER.length : i;
}

/** Compares one tool across surfaces (undefined = the surface does not receive the tool at all). */
export function diffTool(perSurface: Array<Record<string, unknown> | undefined>): DiffRow[] {
  const flat = perSurface.map((t) => (t ? flatten(t) : undefined));
  const paths = new Set<string>();
  for (const f of flat) for (const p of f?.keys() ?? []) paths.add(p);
  return [...paths]
    .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))
    .map((path) => {
      const values = flat.map((f) => f?.get(path));
      return { path, values, differs: values.some((v) => v !== values[0]) };
    });
}

/**
 * JSON with object keys sorted at every depth, so equal content always gives equal text
 * (used for content hashes and cache keys). `undefined` members are left out, as
 * `JSON.stringify` does; arrays keep their order.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'null';
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  // Honour toJSON (Dates, Buffers) before sorting, like JSON.stringify would.
  const withToJson = value as { toJSON?: () => unknown };
  if (typeof withToJson.toJSON === 'function') return sortKeys(withToJson.toJSON());
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = sortKeys(v);
  }
  return out;
}

/**
 * Canonical JSON text of deep-frozen objects, by identity. A deep-frozen object cannot change,
 * so its text is computed once: tenants built from one bundle share (frozen) definition
 * objects, and hashing ten thousand snapshots then serialises each definition once.
 */
const frozenText = new WeakMap<object, string>();

/**
 * JSON with object keys sorted at every depth, so equal content always gives equal text
 * (used for content hashes and cache keys). `undefined` members are left out, as
 * `JSON.stringify` does; arrays keep their order.
 */
export function canonicalJson(value: unknown): string {
  return write(value)?.text ?? 'null';
}

/** The text (undefined where JSON.stringify would leave the member out) and whether `value` is deep-frozen. */
function write(value: unknown): { text: string | undefined; frozen: boolean } {
  if (value === null || typeof value !== 'object') {
    // Primitives are immutable; functions and symbols vanish from objects and become null in arrays.
    return { text: typeof value === 'function' || typeof value === 'symbol' ? undefined : JSON.stringify(value), frozen: true };
  }
  const known = frozenText.get(value);
  if (known !== undefined) return { text: known, frozen: true };
  // Honour toJSON (Dates, Buffers) before sorting, like JSON.stringify would; never memoised.
  const withToJson = value as { toJSON?: () => unknown };
  if (typeof withToJson.toJSON === 'function') return { text: write(withToJson.toJSON()).text, frozen: false };
  let frozen = Object.isFrozen(value);
  let text: string;
  if (Array.isArray(value)) {
    const parts: string[] = [];
    for (let i = 0; i < value.length; i++) {
      const item = write(value[i]);
      frozen &&= item.frozen;
      parts.push(item.text ?? 'null');
    }
    text = `[${parts.join(',')}]`;
  } else {
    const parts: string[] = [];
    for (const key of Object.keys(value).sort()) {
      const member = write((value as Record<string, unknown>)[key]);
      frozen &&= member.frozen;
      if (member.text !== undefined) parts.push(`${JSON.stringify(key)}:${member.text}`);
    }
    text = `{${parts.join(',')}}`;
  }
  if (frozen) frozenText.set(value, text);
  return { text, frozen };
}

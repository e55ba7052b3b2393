import { canonicalJson } from './canonical-json';

describe('canonicalJson', () => {
  it('sorts object keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: 2 } })).toBe('{"a":{"c":2,"d":[3,{"y":2,"z":1}]},"b":1}');
  });

  it('gives equal text for equal content written in different key order', () => {
    expect(canonicalJson({ x: 1, y: [1, 2] })).toBe(canonicalJson({ y: [1, 2], x: 1 }));
  });

  it('leaves out undefined members like JSON.stringify', () => {
    expect(canonicalJson({ a: undefined, b: null })).toBe('{"b":null}');
    expect(canonicalJson(undefined)).toBe('null');
  });
});

/** The definition canonicalJson is checked against: sort keys into new objects, then JSON.stringify. */
function reference(value: unknown): string {
  const sortKeys = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sortKeys);
    if (v === null || typeof v !== 'object') return v;
    const withToJson = v as { toJSON?: () => unknown };
    if (typeof withToJson.toJSON === 'function') return sortKeys(withToJson.toJSON());
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(v).sort()) {
      const member = (v as Record<string, unknown>)[key];
      if (member !== undefined) out[key] = sortKeys(member);
    }
    return out;
  };
  return JSON.stringify(sortKeys(value)) ?? 'null';
}

describe('canonicalJson matches sort-then-stringify exactly', () => {
  const cases: unknown[] = [
    { b: [1, undefined, () => 1, null, Number.NaN, -0, 'x"\n\u2028'], a: { 'k"ey': true, z: new Date(0), f: () => 2 } },
    [[], {}, [{}], Buffer.from('hi'), { toJSON: () => ({ b: 1, a: 2 }) }],
    'plain',
    42,
    null,
    [1, , 3],
    { nested: { deeper: { deepest: [{ y: 1, x: 2 }] } } },
  ];
  it.each(cases.map((c, i) => [i, c]))('case %i', (_i, value) => {
    expect(canonicalJson(value)).toBe(reference(value));
  });

  it('memoises deep-frozen objects and never serves stale text for mutable ones', () => {
    const frozen = Object.freeze({ b: Object.freeze([1, 2]), a: 'x' });
    expect(canonicalJson({ d: frozen })).toBe('{"d":{"a":"x","b":[1,2]}}');
    expect(canonicalJson({ again: frozen })).toBe('{"again":{"a":"x","b":[1,2]}}');
    // Frozen on top but with a mutable child: recomputed every time.
    const child = { n: 1 };
    const shallow = Object.freeze({ child });
    expect(canonicalJson(shallow)).toBe('{"child":{"n":1}}');
    child.n = 2;
    expect(canonicalJson(shallow)).toBe('{"child":{"n":2}}');
  });
});

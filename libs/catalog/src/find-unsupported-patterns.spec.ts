import { findUnsupportedPatterns } from './find-unsupported-patterns';

describe('findUnsupportedPatterns', () => {
  it('names the JSON pointer and reason of each pattern RE2 cannot run', () => {
    const found = findUnsupportedPatterns({
      type: 'object',
      properties: {
        ok: { type: 'string', pattern: '^(a+)+$' },
        look: { type: 'string', pattern: '^(?=x)x$' },
        'a/b': { type: 'array', items: { type: 'string', pattern: '^(a)\\1$' } },
        pattern: { type: 'string' },
      },
      patternProperties: { '^(?!_)': { type: 'string' } },
      anyOf: [{ properties: { deep: { pattern: '(?<=a)b' } } }],
      $defs: { x: { pattern: 'fine' } },
    });
    expect(found).toEqual([
      { pointer: '/patternProperties/^(?!_)', pattern: '^(?!_)', reason: 'negative lookahead (?!…) (needs a backtracking engine)' },
      { pointer: '/anyOf/0/properties/deep/pattern', pattern: '(?<=a)b', reason: 'lookbehind (?<=…) (needs a backtracking engine)' },
      { pointer: '/properties/look/pattern', pattern: '^(?=x)x$', reason: 'lookahead (?=…) (needs a backtracking engine)' },
      { pointer: '/properties/a~1b/items/pattern', pattern: '^(a)\\1$', reason: 'backreference \\1 (needs a backtracking engine)' },
    ]);
  });

  it('finds nothing in a schema whose patterns all compile, or in non-schemas', () => {
    expect(findUnsupportedPatterns({ type: 'object', properties: { a: { pattern: '^[a-z]+$' } } })).toEqual([]);
    expect(findUnsupportedPatterns(null)).toEqual([]);
    expect(findUnsupportedPatterns('x')).toEqual([]);
  });
});

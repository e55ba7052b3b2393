import { CatalogError } from './catalog-error';
import { linearRegExp, MAX_PATTERN_LENGTH } from './linear-reg-exp';

function refusal(pattern: string): string {
  try {
    linearRegExp(pattern, 'u');
  } catch (err) {
    if (err instanceof CatalogError && err.code === 'CATALOG_UNSUPPORTED_PATTERN') return String(err.details?.reason);
    throw err;
  }
  throw new Error(`${pattern} compiled`);
}

describe('linearRegExp', () => {
  it('matches like JSON Schema pattern (unanchored, ECMAScript escapes)', () => {
    expect(linearRegExp('^[A-Z][A-Z0-9]+-\\d+$', 'u').test('ABC-12')).toBe(true);
    expect(linearRegExp('^[A-Z][A-Z0-9]+-\\d+$', 'u').test('abc-12')).toBe(false);
    expect(linearRegExp('foo', 'u').test('xfooy')).toBe(true);
    expect(linearRegExp('^caf\\u00e9$', 'u').test('café')).toBe(true);
    expect(linearRegExp('^\\p{L}+$', 'u').test('héllo')).toBe(true);
    expect(linearRegExp('^a\\/b$', 'u').test('a/b')).toBe(true);
    expect(linearRegExp('^abc$', 'i').test('ABC')).toBe(true);
  });

  it('answers ^(a+)+$ on 10,000 × "a" + "!" (exponential on V8) with false', () => {
    // No timing assertion: the call returning at all proves the engine does not backtrack (V8 needs ~2^10000 steps).
    expect(linearRegExp('^(a+)+$', 'u').test(`${'a'.repeat(10_000)}!`)).toBe(false);
  });

  it.each([
    ['^(a)\\1$', 'backreference \\1'],
    ['^(?<x>a)\\k<x>$', 'named backreference'],
    ['^(?=.*\\d)\\w+$', 'lookahead (?=…)'],
    ['^(?!x)\\w+$', 'negative lookahead (?!…)'],
    ['(?<=a)b', 'lookbehind (?<=…)'],
    ['(?<!a)b', 'negative lookbehind (?<!…)'],
  ])('refuses %s naming the construct', (pattern, reason) => {
    expect(refusal(pattern)).toContain(reason);
  });

  it('refuses a pattern over MAX_PATTERN_LENGTH and reports bad syntax', () => {
    expect(refusal('a'.repeat(MAX_PATTERN_LENGTH + 1))).toBe(`longer than ${MAX_PATTERN_LENGTH} characters`);
    expect(refusal('(a')).toMatch(/missing closing \)/);
  });

  it('does not mistake escaped or class-enclosed syntax for lookaround', () => {
    expect(linearRegExp('^\\(\\?=x$', 'u').test('(?=x')).toBe(true);
    expect(linearRegExp('^[(?=]+$', 'u').test('(?=')).toBe(true);
  });

  it('gives each pattern and flag set its own key (ajv caches compiled patterns by it)', () => {
    expect(linearRegExp('a', 'u').toString()).not.toBe(linearRegExp('b', 'u').toString());
    expect(linearRegExp('a', 'i').toString()).not.toBe(linearRegExp('a', '').toString());
  });
});

import { RE2JS } from 're2js';
import { CatalogError } from './catalog-error';

/** What ajv (and our other matchers) need of a compiled pattern. */
export interface LinearRegExp {
  readonly source: string;
  test(input: string): boolean;
  /** The match and its groups (index 0 = whole match), or null; linear like `test`. */
  exec(input: string): ReadonlyArray<string | undefined> | null;
  /** Distinct per pattern and flags: ajv keys its compiled-pattern cache on it. */
  toString(): string;
}

// Longest pattern we compile: RE2's program size grows with the pattern (`a{1000}{1000}`), and
// no real tool schema needs more. A constant in one place (CONVENTIONS §12).
export const MAX_PATTERN_LENGTH = 4_096;

/**
 * Compiles an ECMAScript pattern on RE2 (the `re2js` port): matching is linear in the input, so
 * a tenant's schema cannot stall the event loop (`^(a+)+$`). Flags: `i` (case-insensitive),
 * `m`, `s`; `u` is implied (RE2 is always Unicode-aware). JSON Schema's `pattern` is unanchored,
 * as is `test()` here.
 * @throws CatalogError `CATALOG_UNSUPPORTED_PATTERN` for syntax RE2 cannot run — backreferences,
 * lookahead/lookbehind — or a pattern over MAX_PATTERN_LENGTH; `details.reason` says which.
 */
export function linearRegExp(pattern: string, flags = ''): LinearRegExp {
  const reason = unsupportedReason(pattern);
  if (reason !== undefined)
    throw new CatalogError('CATALOG_UNSUPPORTED_PATTERN', `pattern ${JSON.stringify(clip(pattern))} is not supported: ${reason}`, {
      pattern,
      reason,
    });
  let re: RE2JS;
  try {
    re = RE2JS.compile(RE2JS.translateRegExp(pattern), flagBits(flags));
  } catch (err) {
    const why = `${err instanceof Error ? err.message : String(err)}`.replace(/^error parsing regexp: /, '');
    throw new CatalogError(
      'CATALOG_UNSUPPORTED_PATTERN',
      `pattern ${JSON.stringify(clip(pattern))} is not supported: ${why}`,
      { pattern, reason: why },
      { cause: err },
    );
  }
  const key = `/${pattern}/${flags}`;
  return {
    source: pattern,
    test: (input) => re.test(input),
    exec: (input) => re.exec(input) as ReadonlyArray<string | undefined> | null,
    toString: () => key,
  };
}

function flagBits(flags: string): number {
  let bits = 0;
  if (flags.includes('i')) bits |= RE2JS.CASE_INSENSITIVE;
  if (flags.includes('m')) bits |= RE2JS.MULTILINE;
  if (flags.includes('s')) bits |= RE2JS.DOTALL;
  return bits;
}

/** A readable reason for the constructs RE2 refuses, before its own parser says `invalid Perl syntax`. */
function unsupportedReason(pattern: string): string | undefined {
  if (pattern.length > MAX_PATTERN_LENGTH) return `longer than ${MAX_PATTERN_LENGTH} characters`;
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      if (!inClass && /[1-9]/.test(next)) return `backreference \\${next} (needs a backtracking engine)`;
      if (!inClass && next === 'k' && pattern[i + 2] === '<') return 'named backreference \\k<…> (needs a backtracking engine)';
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === '(' && pattern[i + 1] === '?') {
      const a = pattern[i + 2];
      const b = pattern[i + 3];
      if (a === '=') return 'lookahead (?=…) (needs a backtracking engine)';
      if (a === '!') return 'negative lookahead (?!…) (needs a backtracking engine)';
      if (a === '<' && b === '=') return 'lookbehind (?<=…) (needs a backtracking engine)';
      if (a === '<' && b === '!') return 'negative lookbehind (?<!…) (needs a backtracking engine)';
    }
  }
  return undefined;
}

function clip(s: string): string {
  return s.length > 80 ? `${s.slice(0, 77)}…` : s;
}

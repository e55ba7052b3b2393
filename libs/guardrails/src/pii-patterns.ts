import { RE2JS } from 're2js';
import type { PiiKind } from './guardrails-schema';

/** One detector: a cheap literal prefilter, a linear-time (RE2) pattern, and an optional checksum. */
export interface PiiDetector {
  kind: PiiKind;
  /** Label inside the replacement, e.g. `[REDACTED:email]`; a national-id shape uses its own name. */
  label: string;
  /** True when the string may hold a match; skips the RE2 pass for most strings. */
  mayMatch(s: string): boolean;
  re: RE2JS;
  /** Group whose span is replaced (0 = whole match): `Bearer <token>` keeps the scheme word. */
  group: number;
  /** A false return keeps the text (a 16-digit number that fails Luhn is not a card). */
  check?(match: string): boolean;
  /** Lower runs first when two detectors claim overlapping text. */
  rank: number;
}

const hasDigit = (s: string) => /\d/.test(s);

// Secret formats, from the vendors' documented prefixes; open-ended tails keep the RE2 program small.
const API_KEYS = [
  '(?:AKIA|ASIA)[0-9A-Z]{16}',
  'gh[pousr]_[A-Za-z0-9]{36,}',
  'github_pat_[A-Za-z0-9_]{22,}',
  'xox[abposr]-[A-Za-z0-9-]{10,}',
  '[rs]k_(?:live|test)_[A-Za-z0-9]{16,}',
  'sk-[A-Za-z0-9_-]{20,}',
  'AIza[0-9A-Za-z_-]{35}',
].join('|');
const API_KEY_PREFIXES = ['AKIA', 'ASIA', 'gh', 'github_pat_', 'xox', 'k_live_', 'k_test_', 'sk-', 'AIza'];

function re(pattern: string, flags = 0): RE2JS {
  return RE2JS.compile(pattern, flags);
}

export function luhn(match: string): boolean {
  const digits = match.replace(/\D/g, '');
  if (digits.length < 13 || digits.length > 19) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** ISO 13616 check: move the first four characters to the end, letters to numbers, mod 97 == 1. */
export function ibanValid(match: string): boolean {
  const iban = match.replace(/ /g, '').toUpperCase();
  if (iban.length < 15 || iban.length > 34) return false;
  const moved = iban.slice(4) + iban.slice(0, 4);
  let rest = 0;
  for (const ch of moved) {
    const code = ch.charCodeAt(0);
    const value = code >= 65 ? code - 55 : code - 48;
    rest = value > 9 ? (rest * 100 + value) % 97 : (rest * 10 + value) % 97;
  }
  return rest === 1;
}

function phoneValid(match: string): boolean {
  const digits = match.replace(/\D/g, '').length;
  return digits >= 7 && digits <= 15;
}

/** The fixed detectors; national ids come from the tenant (see `nationalIdDetector`). */
export const BUILTIN_DETECTORS: readonly PiiDetector[] = [
  {
    kind: 'jwt',
    label: 'jwt',
    mayMatch: (s) => s.includes('eyJ'),
    re: re('\\beyJ[A-Za-z0-9_-]+\\.eyJ[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]*'),
    group: 0,
    rank: 0,
  },
  {
    kind: 'bearer',
    label: 'bearer',
    mayMatch: (s) => s.includes('earer') || s.includes('EARER'),
    re: re('\\b[Bb](?:earer|EARER)[ \\t]+([A-Za-z0-9._~+/-]{16,}=*)'),
    group: 1,
    rank: 1,
  },
  {
    kind: 'apiKey',
    label: 'apiKey',
    mayMatch: (s) => API_KEY_PREFIXES.some((p) => s.includes(p)),
    re: re(`\\b(?:${API_KEYS})`),
    group: 0,
    rank: 2,
  },
  {
    kind: 'email',
    label: 'email',
    mayMatch: (s) => s.includes('@'),
    re: re('[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\\.[A-Za-z0-9-]+)*\\.[A-Za-z]{2,}'),
    group: 0,
    rank: 3,
  },
  {
    kind: 'iban',
    label: 'iban',
    mayMatch: hasDigit,
    re: re('\\b[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\\b'),
    group: 0,
    check: ibanValid,
    rank: 4,
  },
  { kind: 'card', label: 'card', mayMatch: hasDigit, re: re('\\b(?:[0-9][ -]?){12,18}[0-9]\\b'), group: 0, check: luhn, rank: 5 },
  {
    kind: 'phone',
    label: 'phone',
    mayMatch: hasDigit,
    // International (+…), a parenthesised area code, or dotted/dashed 3-3-4: bare digit runs are not phones.
    re: re(
      [
        '\\+[1-9][0-9]{0,2}(?:[ .-]?\\(?[0-9]{1,4}\\)?){1,4}[ .-]?[0-9]{2,5}\\b',
        '\\([0-9]{2,4}\\)[ .-]?[0-9]{3,4}[ .-][0-9]{3,4}\\b',
        '\\b[0-9]{3}[.-][0-9]{3}[.-][0-9]{4}\\b',
      ].join('|'),
    ),
    group: 0,
    check: phoneValid,
    rank: 7,
  },
];

/**
 * A tenant's national-id shape (e.g. `[0-9]{3}-[0-9]{2}-[0-9]{4}`), compiled on RE2 so it is
 * linear in the input. Throws the RE2 parser's message for syntax it cannot run.
 */
export function nationalIdDetector(name: string, pattern: string): PiiDetector {
  return { kind: 'nationalId', label: name, mayMatch: hasDigit, re: RE2JS.compile(RE2JS.translateRegExp(pattern)), group: 0, rank: 6 };
}

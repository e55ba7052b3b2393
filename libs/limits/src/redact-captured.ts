/** Key names always redacted from captured arguments and results (case-insensitive). */
export const DEFAULT_REDACT_KEYS = [
  'password',
  'passwd',
  'secret',
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'api_key',
  'apikey',
  'authorization',
  'cookie',
  'credential',
  'credentials',
  'private_key',
  'client_secret',
] as const;

const MAX_DEPTH = 16;

/**
 * Token-like values redacted wherever they appear in a captured string, whatever the key:
 * a value a tool echoes back (an error quoting its request, a config dump) carries no helpful
 * key name. Each entry: what it is, and its shape. Kept small and specific (prefixes the
 * issuers document) so ordinary text is not mangled.
 */
export const TOKEN_PATTERNS: ReadonlyArray<{ name: string; pattern: RegExp }> = [
  { name: 'private key', pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g },
  // A JWS (three parts) or JWE (five): the header is base64url JSON, so it starts with eyJ.
  { name: 'JWT', pattern: /\beyJ[A-Za-z0-9_-]{4,}(?:\.[A-Za-z0-9_-]*){2,4}/g },
  // The credential must hold a digit or punctuation, so prose ("Basic authentication") is left alone.
  { name: 'bearer credential', pattern: /\b(?:Bearer|Basic)[ \t]+(?=[A-Za-z]*[0-9._~+/=-])[A-Za-z0-9._~+/-]{12,}=*/gi },
  { name: 'OpenAI / Anthropic key', pattern: /\bsk-[A-Za-z0-9_-]{16,}/g },
  { name: 'Stripe key', pattern: /\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}/g },
  { name: 'GitHub token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g },
  { name: 'GitLab token', pattern: /\bglpat-[A-Za-z0-9_-]{20,}/g },
  { name: 'Slack token', pattern: /\b(?:xox[abposr]|xapp)-[A-Za-z0-9-]{10,}/g },
  { name: 'AWS access key id', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { name: 'Google API key', pattern: /\bAIza[0-9A-Za-z_-]{35}/g },
  { name: 'npm token', pattern: /\bnpm_[A-Za-z0-9]{36}/g },
];

/**
 * A URL or resource URI (`scheme://…`): the path is kept; user info, the query and the
 * fragment are replaced — they are where tickets, signatures and tokens travel (a connector
 * link's ticket, a presigned URL, an implicit-grant fragment).
 */
const URL_PATTERN = /\b([a-z][a-z0-9+.-]{0,31}):\/\/([^\s"'<>`]*)/gi;

/**
 * How far past the bound a long string is scanned before it is cut: a token that straddles
 * the cut is still seen whole (and replaced) rather than stored half.
 */
const SCAN_MARGIN = 8192;

/**
 * A copy of captured JSON safe to store: values under any key in `keys` (case-insensitive,
 * plus the defaults) become "[redacted]", token-like values and URL queries inside any
 * string are replaced (see {@link redactText}), anything deeper than 16 levels becomes
 * "[depth]", and when the serialised result exceeds `maxBytes` it is replaced by
 * `{"truncated": true, "preview": …}`, itself at most `maxBytes` serialised.
 */
export function redactCaptured(value: unknown, keys: readonly string[] = [], maxBytes = 4096): unknown {
  return redactCapturedSized(value, keys, maxBytes).value;
}

/** {@link redactCaptured}, with the byte length of the result's JSON (what it adds to a usage batch). */
export function redactCapturedSized(value: unknown, keys: readonly string[] = [], maxBytes = 4096): { value: unknown; bytes: number } {
  const deny = new Set([...DEFAULT_REDACT_KEYS, ...keys].map((k) => k.toLowerCase()));
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') return redactText(storableText(v), maxBytes);
    if (v === null || typeof v !== 'object') return v;
    if (depth >= MAX_DEPTH) return '[depth]';
    if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v))
      out[redactText(storableText(k), maxBytes)] = deny.has(k.toLowerCase()) ? '[redacted]' : walk(x, depth + 1);
    return out;
  };
  const redacted = walk(value, 0);
  const text = JSON.stringify(redacted) ?? 'null';
  const bytes = Buffer.byteLength(text);
  if (bytes <= maxBytes) return { value: redacted, bytes };
  return truncated(text, maxBytes);
}

/**
 * `text` with token-like values ({@link TOKEN_PATTERNS}) replaced by `[redacted <what>]` and
 * URLs' user info, query and fragment replaced. A string longer than `maxChars` (it could not
 * be stored whole anyway) is scanned only a margin past the bound, then cut and marked `…`.
 */
export function redactText(text: string, maxChars = Number.POSITIVE_INFINITY): string {
  let s = text.length > maxChars + SCAN_MARGIN ? text.slice(0, maxChars + SCAN_MARGIN) : text;
  s = s.replace(URL_PATTERN, (_match, scheme: string, rest: string) => `${scheme}://${redactUrlRest(rest)}`);
  for (const { name, pattern } of TOKEN_PATTERNS) s = s.replace(pattern, `[redacted ${name}]`);
  // A cut may split a surrogate pair: the half left becomes U+FFFD (jsonb refuses lone surrogates).
  return s.length > maxChars ? `${s.slice(0, maxChars).toWellFormed()}…` : s;
}

/** The part of a URL after `scheme://`: authority without user info, the path as is, `?[redacted]` / `#[redacted]` for a query / fragment. */
function redactUrlRest(rest: string): string {
  const cut = rest.search(/[?#]/);
  let head = cut < 0 ? rest : rest.slice(0, cut);
  const tail = cut < 0 ? '' : rest.slice(cut);
  const slash = head.indexOf('/');
  const authority = slash < 0 ? head : head.slice(0, slash);
  const at = authority.lastIndexOf('@');
  if (at >= 0) head = `[redacted]@${head.slice(at + 1)}`;
  if (tail === '') return head;
  const hash = tail.indexOf('#');
  const query = tail.startsWith('?') ? '?[redacted]' : '';
  return `${head}${query}${hash >= 0 ? '#[redacted]' : ''}`;
}

/** `{ truncated, preview }` whose JSON is at most `maxBytes` (escapes can make a preview's JSON several times its text). */
function truncated(text: string, maxBytes: number): { value: unknown; bytes: number } {
  let budget = Math.max(0, maxBytes - 40);
  for (;;) {
    const preview = Buffer.from(text)
      .subarray(0, budget)
      .toString('utf8')
      .replace(/\uFFFD+$/, '');
    const value = { truncated: true, preview };
    const bytes = Buffer.byteLength(JSON.stringify(value));
    if (bytes <= maxBytes || budget === 0) return { value, bytes };
    budget = Math.max(0, budget - (bytes - maxBytes));
  }
}

/**
 * Text jsonb can hold: NUL is dropped and a lone surrogate becomes U+FFFD (Postgres refuses both,
 * and one such string would fail the whole batch its record is stored in) — in keys as in values.
 */
function storableText(s: string): string {
  const text = s.includes('\u0000') ? s.replaceAll('\u0000', '') : s;
  return text.isWellFormed() ? text : text.toWellFormed();
}

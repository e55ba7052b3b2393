/** Key names always redacted from captured arguments and results (case-insensitive). */
export const DEFAULT_REDACT_KEYS = ['password', 'passwd', 'secret', 'token', 'access_token', 'refresh_token', 'id_token', 'api_key', 'apikey', 'authorization', 'cookie', 'credential', 'credentials', 'private_key', 'client_secret'] as const;

const MAX_DEPTH = 16;

/**
 * A copy of captured JSON safe to store: values under any key in `keys` (case-insensitive,
 * plus the defaults) become "[redacted]", anything deeper than 16 levels becomes "[depth]", and
 * when the serialised result exceeds `maxBytes` it is replaced by a truncated string marked
 * `{"truncated": true, "preview": …}`.
 */
export function redactCaptured(value: unknown, keys: readonly string[] = [], maxBytes = 4096): unknown {
  const deny = new Set([...DEFAULT_REDACT_KEYS, ...keys].map((k) => k.toLowerCase()));
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') return storableText(v);
    if (v === null || typeof v !== 'object') return v;
    if (depth >= MAX_DEPTH) return '[depth]';
    if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[storableText(k)] = deny.has(k.toLowerCase()) ? '[redacted]' : walk(x, depth + 1);
    return out;
  };
  const redacted = walk(value, 0);
  const text = JSON.stringify(redacted) ?? 'null';
  if (Buffer.byteLength(text) <= maxBytes) return redacted;
  return { truncated: true, preview: Buffer.from(text).subarray(0, maxBytes).toString('utf8') };
}

/**
 * Text jsonb can hold: NUL is dropped and a lone surrogate becomes U+FFFD (Postgres refuses both,
 * and one such string would fail the whole batch its record is stored in) — in keys as in values.
 */
function storableText(s: string): string {
  const text = s.includes('\u0000') ? s.replaceAll('\u0000', '') : s;
  return text.isWellFormed() ? text : text.toWellFormed();
}

const PREFIX = '=?base64?';
const SUFFIX = '?=';
/** Canonical, padded Base64 (the spec and SDK v2 reject `SGVsbG8` and stray characters). */
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Decodes an `Mcp-Name` / `Mcp-Param-*` header value (SEP-2243 value encoding): a value
 * wrapped as `=?base64?<b64>?=` is the Base64 of its UTF-8 bytes; anything else (also a
 * value with only the prefix or only the suffix) is literal. Returns `undefined` for a
 * sentinel whose payload is not canonical Base64 or not valid UTF-8 — the caller rejects
 * those with 400 + −32020. Pass the value with optional whitespace already stripped.
 */
export function decodeHeaderValue(value: string): string | undefined {
  if (value.length < PREFIX.length + SUFFIX.length || !value.startsWith(PREFIX) || !value.endsWith(SUFFIX)) return value;
  const b64 = value.slice(PREFIX.length, value.length - SUFFIX.length);
  if (!CANONICAL_BASE64.test(b64)) return undefined;
  try {
    return UTF8.decode(Buffer.from(b64, 'base64'));
  } catch {
    return undefined;
  }
}

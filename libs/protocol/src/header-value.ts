/** Incoming HTTP headers as Node gives them: lower-case names. */
export type HttpHeaders = Record<string, string | string[] | undefined>;

/**
 * One request header as a single string with RFC 9110 optional whitespace (SP / HTAB)
 * stripped; `undefined` when absent or empty. `name` must be lower-case (Node's form).
 * A repeated header (string[]) yields its first value.
 */
export function headerValue(headers: HttpHeaders, name: string): string | undefined {
  const raw = headers[name];
  const value = typeof raw === 'string' ? raw : Array.isArray(raw) ? raw[0] : undefined;
  if (value === undefined) return undefined;
  let start = 0;
  let end = value.length;
  while (start < end && isOws(value.charCodeAt(start))) start++;
  while (end > start && isOws(value.charCodeAt(end - 1))) end--;
  if (start === end) return undefined;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

function isOws(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

/** Attributes of a Set-Cookie header the console uses. */
export interface CookieOptions {
  maxAgeSeconds: number;
  path: string;
  sameSite: 'Strict' | 'Lax';
  secure: boolean;
}

/**
 * The cookies of a request (`Cookie` header) by name. Malformed pairs are skipped and the first
 * occurrence of a name wins (a browser sends the most specific path first).
 */
export function parseCookies(header: string | string[] | undefined): Map<string, string> {
  const out = new Map<string, string>();
  const raw = Array.isArray(header) ? header.join('; ') : (header ?? '');
  for (const part of raw.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    let value = part.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    if (name && !out.has(name)) out.set(name, value);
  }
  return out;
}

/** A `Set-Cookie` value; always HttpOnly (no console cookie is for scripts). A max age of 0 deletes it. */
export function serializeCookie(name: string, value: string, options: CookieOptions): string {
  if (!/^[A-Za-z0-9_-]+$/.test(name)) throw new Error(`bad cookie name ${name}`);
  if (!/^[A-Za-z0-9._~-]*$/.test(value)) throw new Error('cookie values must be URL-safe tokens');
  const parts = [
    `${name}=${value}`,
    `Path=${options.path}`,
    `Max-Age=${Math.max(0, Math.floor(options.maxAgeSeconds))}`,
    'HttpOnly',
    `SameSite=${options.sameSite}`,
  ];
  if (options.maxAgeSeconds <= 0) parts.push('Expires=Thu, 01 Jan 1970 00:00:00 GMT');
  if (options.secure) parts.push('Secure');
  return parts.join('; ');
}

/**
 * Origin and Host checks (DNS-rebinding protection, MCP transports §Security). Patterns are
 * exact origins (`https://claude.ai`) or a port wildcard (`http://localhost:*`); hosts are
 * hostnames compared without their port.
 */
export function originAllowed(origin: string, allowed: readonly string[]): boolean {
  for (const pattern of allowed) {
    if (pattern === origin) return true;
    if (pattern.endsWith(':*')) {
      const base = pattern.slice(0, -2);
      if (origin === base) return true;
      if (origin.startsWith(base + ':') && /^\d{1,5}$/.test(origin.slice(base.length + 1))) return true;
    }
  }
  return false;
}

/** Hostname of a Host header value (`[::1]:3000` → `[::1]`, `a.b:80` → `a.b`), lower-cased. */
export function hostnameOf(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end === -1 ? h : h.slice(0, end + 1);
  }
  const colon = h.indexOf(':');
  return colon === -1 ? h : h.slice(0, colon);
}

export function hostAllowed(host: string | undefined, allowed: readonly string[]): boolean {
  if (allowed.length === 0) return true;
  if (!host) return false;
  return allowed.includes(hostnameOf(host));
}

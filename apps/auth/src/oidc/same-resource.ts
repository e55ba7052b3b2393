/**
 * True when `resource` names the same MCP endpoint as `canonical`: scheme and host compare
 * case-insensitively, a trailing slash is tolerated; port, path and query must match.
 */
export function sameResource(resource: string, canonical: string): boolean {
  const a = URL.parse(resource);
  const b = URL.parse(canonical);
  if (!a || !b || a.hash || a.username || a.password) return false;
  const path = (u: URL) => u.pathname.replace(/\/+$/, '') || '/';
  return a.protocol === b.protocol && a.host === b.host && path(a) === path(b) && a.search === b.search;
}

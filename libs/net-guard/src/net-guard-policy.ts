/** What the operator allows beyond public https URLs. */
export interface NetGuardPolicy {
  /**
   * Host names or IP literals (lower case, no port) an operator trusts: plain http is accepted
   * for them and their addresses are not range-checked (e.g. `localhost` in development).
   */
  allowHosts: readonly string[];
  /** Resolves a host to its addresses for `checkUrl` (default: the system resolver); tests inject one. */
  resolve?: (host: string) => Promise<string[]>;
}

/** Normalises a URL hostname for comparison with the allow-list (`[::1]` → `::1`). */
export function normaliseHost(hostname: string): string {
  const h = hostname.toLowerCase();
  return h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h.replace(/\.$/, '');
}

/** True when the operator allow-listed this host. */
export function isAllowedHost(policy: NetGuardPolicy, hostname: string): boolean {
  const host = normaliseHost(hostname);
  return policy.allowHosts.some((h) => normaliseHost(h) === host);
}

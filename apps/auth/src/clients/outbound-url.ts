import { checkUrl, NetGuardError } from '@switchboard/net-guard';

/** Resolves a host name to its addresses (injectable for tests). */
export type HostLookup = (host: string) => Promise<string[]>;

/**
 * Whether the authorization server may fetch a URL a client named (a CIMD client id): https,
 * no userinfo, and every address the host resolves to outside the blocked ranges of
 * libs/net-guard — the same guard the gateway and registry use for tenant URLs (one table).
 * No host is allow-listed: the auth service never fetches loopback or private addresses for a client.
 */
export async function outboundUrlAllowed(rawUrl: string, resolve?: HostLookup): Promise<boolean> {
  try {
    await checkUrl(rawUrl, { allowHosts: [], ...(resolve ? { resolve } : {}) });
    return true;
  } catch (err) {
    if (err instanceof NetGuardError) return false;
    throw err;
  }
}

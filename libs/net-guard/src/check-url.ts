import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { blockedRange } from './blocked-range';
import { NetGuardError } from './net-guard-error';
import { isAllowedHost, normaliseHost, type NetGuardPolicy } from './net-guard-policy';

/**
 * Checks a tenant-supplied URL before any request: https only (http for allow-listed hosts),
 * no credentials in the URL, and every address the host resolves to outside the blocked
 * ranges. Returns the parsed URL; throws NetGuardError with a message naming the problem.
 * Resolution here is advisory: the guarded lookup checks again when the socket connects.
 */
export async function checkUrl(raw: string | URL, policy: NetGuardPolicy): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch (err) {
    throw new NetGuardError('NET_GUARD_BAD_URL', `"${String(raw)}" is not a valid URL`, {}, { cause: err });
  }
  const text = url.href;
  const host = normaliseHost(url.hostname);
  const allowed = isAllowedHost(policy, host);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new NetGuardError('NET_GUARD_SCHEME', `URL scheme ${url.protocol} is not allowed; use https`, { url: text, host });
  }
  if (url.protocol === 'http:' && !allowed) {
    throw new NetGuardError(
      'NET_GUARD_SCHEME',
      `plain http is not allowed for host ${host}; use https (http is only for operator allow-listed hosts)`,
      { url: text, host },
    );
  }
  if (url.username || url.password) {
    throw new NetGuardError('NET_GUARD_BAD_URL', 'credentials in the URL are not allowed; configure the server auth instead', {
      url: text,
      host,
    });
  }
  if (allowed) return url;
  if (isIP(host) !== 0) {
    const range = blockedRange(host);
    if (range) throw blocked(text, host, host, range);
    return url;
  }
  let addresses: string[];
  try {
    addresses = policy.resolve ? await policy.resolve(host) : (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  } catch (err) {
    throw new NetGuardError('NET_GUARD_DNS', `host ${host} could not be resolved`, { url: text, host }, { cause: err });
  }
  if (addresses.length === 0) throw new NetGuardError('NET_GUARD_DNS', `host ${host} could not be resolved`, { url: text, host });
  for (const address of addresses) {
    const range = blockedRange(address);
    if (range) throw blocked(text, host, address, range);
  }
  return url;
}

/** The error for an address in a blocked range (shared with the connect-time lookup). */
export function blocked(url: string | undefined, host: string, address: string, range: string): NetGuardError {
  const via = host === address ? '' : ` (resolves to ${address})`;
  return new NetGuardError('NET_GUARD_BLOCKED_ADDRESS', `host ${host}${via} is in a blocked address range: ${range}`, {
    url,
    host,
    address,
    range,
  });
}

import { BlockList, isIP } from 'node:net';
import { z } from 'zod';

/**
 * `TRUST_PROXY` as Fastify's `trustProxy`: `false`/empty (no proxy: the socket address is the
 * client), a hop count (`1` = one proxy in front, the rightmost `X-Forwarded-For` entry it
 * appended is the client), or a comma-separated list of proxy addresses / CIDRs (entries
 * appended by those are skipped). `true` is refused: it trusts the leftmost, client-written
 * entry, so any client could pick the key of its own rate limit.
 * @throws Error naming the bad entry.
 */
export function parseTrustProxy(value: string | undefined): false | number | ((address: string, hop: number) => boolean) {
  const v = (value ?? '').trim();
  if (v === '' || v === 'false' || v === '0') return false;
  if (v === 'true')
    throw new Error("must be a hop count or a list of proxy CIDRs, not 'true' (it would trust a client-written X-Forwarded-For)");
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    if (hops > 10) throw new Error('a hop count above 10 is not a real proxy chain');
    return hops;
  }
  const list = new BlockList();
  for (const raw of v.split(',')) {
    const entry = raw.trim();
    const [address, bits] = entry.split('/');
    const family = isIP(address ?? '');
    if (family === 0) throw new Error(`'${entry}' is not an IP address or CIDR`);
    const type = family === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address, type);
    else {
      const prefix = Number(bits);
      if (!/^\d+$/.test(bits) || prefix > (family === 6 ? 128 : 32)) throw new Error(`'${entry}' has a bad prefix length`);
      list.addSubnet(address, prefix, type);
    }
  }
  return (address: string) => {
    const mapped = address.startsWith('::ffff:') ? address.slice(7) : address;
    const family = isIP(mapped);
    return family !== 0 && list.check(mapped, family === 6 ? 'ipv6' : 'ipv4');
  };
}

/** A config-schema field for TRUST_PROXY and its kin: optional, any value `parseTrustProxy` accepts, its problem as the message. */
export function trustProxySchema() {
  return z
    .string()
    .optional()
    .superRefine((v, ctx) => {
      try {
        parseTrustProxy(v);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
      }
    });
}

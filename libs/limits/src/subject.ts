import { isIPv6 } from 'node:net';
import type { UsageSubjectKind } from './usage-batch';

/** The verified caller as limits and usage see it (the transport's `AuthGranted`, structurally). */
export interface CallerAuth {
  subject?: string;
  clientId?: string;
}

/**
 * Who a request is limited and metered as: its OAuth `sub`, else its OAuth client, else its
 * address. Kind and id stay apart so neither the limiter's rule cache nor a usage batch builds
 * a `kind:id` string per request (the limiter's key spells `kind:id` once, when its rules are built).
 */
export function subjectKindOf(auth: CallerAuth | undefined): UsageSubjectKind {
  return auth?.subject ? 'sub' : auth?.clientId ? 'client' : 'ip';
}

/**
 * The id that goes with `subjectKindOf` (`?` for a request without an address). An anonymous
 * IPv6 caller is keyed by its /64 (see {@link addressKey}).
 */
export function subjectIdOf(auth: CallerAuth | undefined, ip: string | undefined): string {
  return auth?.subject || auth?.clientId || (ip ? addressKey(ip) : '?');
}

/**
 * The rate-limit key of a client address: IPv4 as is; IPv6 as its /64 prefix
 * (`2001:db8:0:1::/64`), because one host is routinely given a whole /64 and could otherwise
 * draw a fresh bucket per address; an IPv4-mapped address (`::ffff:192.0.2.1`) is the IPv4
 * address it maps. Anything that is not an IPv6 literal is returned unchanged.
 */
export function addressKey(ip: string): string {
  // Cheap exit for the common case: IPv4 (and non-addresses) have no colon.
  if (!ip.includes(':')) return ip;
  const zone = ip.indexOf('%');
  const address = zone >= 0 ? ip.slice(0, zone) : ip;
  if (!isIPv6(address)) return ip;
  const groups = ipv6Groups(address.toLowerCase());
  if (groups[0] === 0 && groups[1] === 0 && groups[2] === 0 && groups[3] === 0 && groups[4] === 0 && groups[5] === 0xffff) {
    return `${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`;
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 literal (`::` expanded, a dotted IPv4 tail as two groups). */
function ipv6Groups(address: string): number[] {
  const halves = address.split('::');
  const parse = (part: string): number[] => {
    if (part === '') return [];
    const out: number[] = [];
    for (const piece of part.split(':')) {
      if (piece.includes('.')) {
        const [a, b, c, d] = piece.split('.').map(Number) as [number, number, number, number];
        out.push((a << 8) | b, (c << 8) | d);
      } else {
        out.push(parseInt(piece, 16));
      }
    }
    return out;
  };
  const head = parse(halves[0]!);
  if (halves.length === 1) return head;
  const tail = parse(halves[1]!);
  return [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}

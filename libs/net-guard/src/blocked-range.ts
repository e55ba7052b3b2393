import { BlockList, isIP } from 'node:net';

/**
 * Ranges no tenant URL may reach: the IANA IPv4 and IPv6 Special-Purpose Address Registries
 * (RFC 6890 and successors) — every entry not globally reachable — plus multicast and the
 * transition formats that embed or tunnel to an IPv4 address we cannot vet (IPv4-mapped,
 * IPv4-compatible, 6to4, Teredo). A few globally reachable anycast services inside a blocked
 * block (PCP/TURN in 192.0.0.0/24 and 2001::/23) are refused with it: no MCP server lives there.
 */
const RANGES: ReadonlyArray<[name: string, cidrs: ReadonlyArray<[string, number, 'ipv4' | 'ipv6']>]> = [
  ['unspecified (0.0.0.0/8)', [['0.0.0.0', 8, 'ipv4']]],
  [
    'private (RFC 1918)',
    [
      ['10.0.0.0', 8, 'ipv4'],
      ['172.16.0.0', 12, 'ipv4'],
      ['192.168.0.0', 16, 'ipv4'],
    ],
  ],
  ['carrier-grade NAT (100.64.0.0/10)', [['100.64.0.0', 10, 'ipv4']]],
  [
    'loopback',
    [
      ['127.0.0.0', 8, 'ipv4'],
      ['::1', 128, 'ipv6'],
    ],
  ],
  ['link-local / cloud metadata (169.254.0.0/16)', [['169.254.0.0', 16, 'ipv4']]],
  ['IETF protocol assignments (192.0.0.0/24)', [['192.0.0.0', 24, 'ipv4']]],
  ['deprecated 6to4 relay anycast (192.88.99.0/24)', [['192.88.99.0', 24, 'ipv4']]],
  [
    'documentation / benchmarking',
    [
      ['192.0.2.0', 24, 'ipv4'],
      ['198.18.0.0', 15, 'ipv4'],
      ['198.51.100.0', 24, 'ipv4'],
      ['203.0.113.0', 24, 'ipv4'],
      ['2001:db8::', 32, 'ipv6'],
      ['3fff::', 20, 'ipv6'],
      ['2001:2::', 48, 'ipv6'],
    ],
  ],
  [
    'multicast / reserved',
    [
      ['224.0.0.0', 4, 'ipv4'],
      ['240.0.0.0', 4, 'ipv4'],
      ['ff00::', 8, 'ipv6'],
    ],
  ],
  ['unspecified (::)', [['::', 128, 'ipv6']]],
  ['IPv4-compatible (::/96, deprecated)', [['::', 96, 'ipv6']]],
  ['IPv4-mapped (::ffff:0:0/96)', [['::ffff:0:0', 96, 'ipv6']]],
  ['local-use IPv4/IPv6 translation (64:ff9b:1::/48)', [['64:ff9b:1::', 48, 'ipv6']]],
  [
    'IPv6 discard / dummy prefix (100::/64, 100:0:0:1::/64)',
    [
      ['100::', 64, 'ipv6'],
      ['100:0:0:1::', 64, 'ipv6'],
    ],
  ],
  ['IETF protocol assignments incl. Teredo (2001::/23)', [['2001::', 23, 'ipv6']]],
  ['6to4 (2002::/16)', [['2002::', 16, 'ipv6']]],
  ['segment routing SIDs (5f00::/16)', [['5f00::', 16, 'ipv6']]],
  ['IPv6 unique local (fc00::/7)', [['fc00::', 7, 'ipv6']]],
  ['IPv6 link-local (fe80::/10)', [['fe80::', 10, 'ipv6']]],
  ['IPv6 site-local (fec0::/10)', [['fec0::', 10, 'ipv6']]],
];

// One list per family: Node's BlockList also matches IPv4 addresses against IPv4-mapped IPv6
// subnets, so `::ffff:0:0/96` in a shared list would block every IPv4 address.
const LISTS = (['ipv4', 'ipv6'] as const).map((family) =>
  RANGES.map(([name, cidrs]) => {
    const list = new BlockList();
    for (const [net, prefix, type] of cidrs) if (type === family) list.addSubnet(net, prefix, type);
    return { name, list };
  }),
);

/**
 * The name of the blocked range an IP address falls in, or undefined when it is public.
 * An IPv6 address embedding an IPv4 one (mapped, compatible, NAT64, 6to4) whose IPv4 is blocked
 * is named after the IPv4 range; NAT64 (64:ff9b::/96) to a public IPv4 is allowed, the other
 * embedding formats are refused whatever they embed. A string that is not an IP is blocked.
 */
export function blockedRange(address: string): string | undefined {
  const family = isIP(address);
  if (family === 0) return 'not an IP address';
  if (family === 4) return match(address, 'ipv4');
  const embedded = embeddedIpv4(address);
  if (embedded !== undefined) {
    const inner = match(embedded, 'ipv4');
    if (inner !== undefined) return `${inner} (embedded in IPv6 ${address})`;
  }
  return match(address, 'ipv6');
}

function match(address: string, type: 'ipv4' | 'ipv6'): string | undefined {
  for (const { name, list } of LISTS[type === 'ipv4' ? 0 : 1]) if (list.check(address, type)) return name;
  return undefined;
}

/** The IPv4 address embedded in a mapped, NAT64 or 6to4 IPv6 address. */
function embeddedIpv4(address: string): string | undefined {
  const words = expandIpv6(address);
  if (!words) return undefined;
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zero = (from: number, to: number) => words.slice(from, to).every((w) => w === 0);
  if (zero(0, 5) && words[5] === 0xffff) return v4(words[6], words[7]); // ::ffff:a.b.c.d
  if (zero(0, 5) && words[5] === 0 && (words[6] !== 0 || words[7] > 1)) return v4(words[6], words[7]); // deprecated ::a.b.c.d
  if (words[0] === 0x64 && words[1] === 0xff9b && zero(2, 6)) return v4(words[6], words[7]); // NAT64
  if (words[0] === 0x2002) return v4(words[1], words[2]); // 6to4
  return undefined;
}

function expandIpv6(address: string): number[] | undefined {
  let text = address.toLowerCase();
  const zone = text.indexOf('%');
  if (zone !== -1) text = text.slice(0, zone);
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const parts = tail.split('.').map(Number);
    if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) return undefined;
    text = `${text.slice(0, lastColon + 1)}${((parts[0] << 8) | parts[1]).toString(16)}:${((parts[2] << 8) | parts[3]).toString(16)}`;
  }
  const [head, rest] = text.split('::');
  const h = head ? head.split(':') : [];
  const r = rest !== undefined ? (rest ? rest.split(':') : []) : undefined;
  const fill = r === undefined ? [] : new Array<string>(8 - h.length - r.length).fill('0');
  const all = [...h, ...fill, ...(r ?? [])];
  if (all.length !== 8) return undefined;
  return all.map((w) => parseInt(w, 16));
}

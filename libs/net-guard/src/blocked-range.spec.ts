import { blockedRange } from './blocked-range';

describe('blockedRange', () => {
  // One row per IANA special-purpose entry that is not globally reachable (plus multicast and the
  // IPv4-embedding formats), each probed inside the range.
  it.each([
    ['0.0.0.0', 'unspecified (0.0.0.0/8)'],
    ['0.1.2.3', 'unspecified (0.0.0.0/8)'],
    ['10.1.2.3', 'private (RFC 1918)'],
    ['172.20.0.1', 'private (RFC 1918)'],
    ['192.168.1.1', 'private (RFC 1918)'],
    ['100.64.0.1', 'carrier-grade NAT (100.64.0.0/10)'],
    ['127.0.0.1', 'loopback'],
    ['169.254.169.254', 'link-local / cloud metadata (169.254.0.0/16)'],
    ['192.0.0.8', 'IETF protocol assignments (192.0.0.0/24)'],
    ['192.88.99.1', 'deprecated 6to4 relay anycast (192.88.99.0/24)'],
    ['192.0.2.1', 'documentation / benchmarking'],
    ['198.18.0.1', 'documentation / benchmarking'],
    ['198.51.100.1', 'documentation / benchmarking'],
    ['203.0.113.1', 'documentation / benchmarking'],
    ['224.0.0.1', 'multicast / reserved'],
    ['240.0.0.1', 'multicast / reserved'],
    ['255.255.255.255', 'multicast / reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified (::)'],
    ['::1.1.1.1', 'IPv4-compatible (::/96, deprecated)'],
    ['::8.8.8.8', 'IPv4-compatible (::/96, deprecated)'],
    ['::ffff:8.8.8.8', 'IPv4-mapped (::ffff:0:0/96)'],
    ['::ffff:101:101', 'IPv4-mapped (::ffff:0:0/96)'],
    ['64:ff9b:1::a00:1', 'local-use IPv4/IPv6 translation (64:ff9b:1::/48)'],
    ['64:ff9b:1::808:808', 'local-use IPv4/IPv6 translation (64:ff9b:1::/48)'],
    ['100::1', 'IPv6 discard / dummy prefix'],
    ['100:0:0:1::1', 'IPv6 discard / dummy prefix'],
    ['2001::1', 'IETF protocol assignments incl. Teredo (2001::/23)'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'IETF protocol assignments incl. Teredo (2001::/23)'],
    ['2001:2::1', 'documentation / benchmarking'],
    ['2001:db8::1', 'documentation / benchmarking'],
    ['3fff::1', 'documentation / benchmarking'],
    ['2002:808:808::', '6to4 (2002::/16)'],
    ['5f00::1', 'segment routing SIDs (5f00::/16)'],
    ['fd00:ec2::254', 'IPv6 unique local (fc00::/7)'],
    ['fe80::1', 'IPv6 link-local (fe80::/10)'],
    ['fec0::1', 'IPv6 site-local (fec0::/10)'],
    ['ff02::1', 'multicast / reserved'],
  ])('refuses %s as %s', (address, range) => {
    expect(blockedRange(address)).toContain(range);
  });

  it.each([
    ['::ffff:127.0.0.1', 'loopback (embedded in IPv6 ::ffff:127.0.0.1)'],
    ['::ffff:a9fe:a9fe', 'link-local / cloud metadata (169.254.0.0/16) (embedded in IPv6 ::ffff:a9fe:a9fe)'],
    ['64:ff9b::a00:1', 'private (RFC 1918) (embedded in IPv6 64:ff9b::a00:1)'],
    ['2002:a00:1::', 'private (RFC 1918) (embedded in IPv6 2002:a00:1::)'],
  ])('names the IPv4 range embedded in %s', (address, range) => {
    expect(blockedRange(address)).toBe(range);
  });

  it.each(['8.8.8.8', '1.1.1.1', '192.0.1.1', '2606:4700:4700::1111', '2620:4f:8000::1', '64:ff9b::808:808', '2001:4860:4860::8888'])(
    'accepts the public address %s',
    (address) => {
      expect(blockedRange(address)).toBeUndefined();
    },
  );

  it('treats a non-IP string as blocked', () => {
    expect(blockedRange('example.com')).toBe('not an IP address');
  });
});

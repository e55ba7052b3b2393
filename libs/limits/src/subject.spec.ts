import { addressKey, subjectIdOf } from './subject';

describe('addressKey (anonymous callers keyed by /64)', () => {
  it.each([
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:DB8:0001:0002::1', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['64:ff9b::192.0.2.1', '64:ff9b:0:0::/64'],
  ])('%s → %s', (ip, key) => expect(addressKey(ip)).toBe(key));

  it('gives every address of one /64 the same key and a neighbouring /64 another', () => {
    const keys = new Set(['2001:db8:aa:bb::1', '2001:db8:aa:bb:1::', '2001:db8:aa:bb:dead:beef:0:1'].map(addressKey));
    expect(keys.size).toBe(1);
    expect(addressKey('2001:db8:aa:bc::1')).not.toBe(addressKey('2001:db8:aa:bb::1'));
  });

  it('keeps IPv4 as is, and an IPv4-mapped IPv6 address is the IPv4 address', () => {
    expect(addressKey('192.0.2.7')).toBe('192.0.2.7');
    expect(addressKey('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(addressKey('::FFFF:c000:0207')).toBe('192.0.2.7');
  });

  it('returns anything that is not an IPv6 literal unchanged', () => {
    for (const junk of ['', '?', 'not:an:address', 'gggg::1', '1:2:3:4:5:6:7:8:9']) expect(addressKey(junk)).toBe(junk);
  });
});

describe('subjectIdOf', () => {
  it('prefers the OAuth subject, then the client, then the address key', () => {
    expect(subjectIdOf({ subject: 'acme|ada', clientId: 'c' }, '2001:db8::1')).toBe('acme|ada');
    expect(subjectIdOf({ clientId: 'c' }, '2001:db8::1')).toBe('c');
    expect(subjectIdOf(undefined, '2001:db8:0:0:1::9')).toBe('2001:db8:0:0::/64');
    expect(subjectIdOf(undefined, undefined)).toBe('?');
  });
});

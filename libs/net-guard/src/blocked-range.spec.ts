import { blockedRange } from './blocked-range';

describe('blockedRange', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.20.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'carrier-grade'],
    ['0.0.0.0', 'unspecified'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fd00:ec2::254', 'unique local'],
    ['fe80::1', 'link-local'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['64:ff9b::a00:1', 'private'],
    ['2002:a00:1::', 'private'],
  ])('refuses %s as %s', (address, range) => {
    expect(blockedRange(address)).toContain(range);
  });

  it.each(['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('accepts the public address %s', (address) => {
    expect(blockedRange(address)).toBeUndefined();
  });

  it('treats a non-IP string as blocked', () => {
    expect(blockedRange('example.com')).toBe('not an IP address');
  });
});

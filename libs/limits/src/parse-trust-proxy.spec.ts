import { parseTrustProxy, trustProxySchema } from './parse-trust-proxy';

describe('parseTrustProxy', () => {
  it('reads no proxy, a hop count and a CIDR list', () => {
    expect(parseTrustProxy(undefined)).toBe(false);
    expect(parseTrustProxy('false')).toBe(false);
    expect(parseTrustProxy('1')).toBe(1);
    const trusted = parseTrustProxy('10.0.0.0/8, 127.0.0.1, fd00::/8');
    if (typeof trusted !== 'function') throw new Error('expected a predicate');
    expect(trusted('10.1.2.3', 0)).toBe(true);
    expect(trusted('::ffff:127.0.0.1', 0)).toBe(true);
    expect(trusted('fd12::1', 0)).toBe(true);
    expect(trusted('203.0.113.9', 0)).toBe(false);
  });

  it("refuses 'true' and bad entries, naming them", () => {
    expect(() => parseTrustProxy('true')).toThrow(/not 'true'/);
    expect(() => parseTrustProxy('10.0.0.0/99')).toThrow(/'10.0.0.0\/99' has a bad prefix/);
    expect(() => parseTrustProxy('proxy.local')).toThrow(/'proxy.local' is not an IP/);
    expect(() => parseTrustProxy('50')).toThrow(/hop count/);
  });

  it("is a config field: unset or valid passes, a bad value fails with parseTrustProxy's message", () => {
    const field = trustProxySchema();
    expect(field.safeParse(undefined).success).toBe(true);
    expect(field.safeParse('2').data).toBe('2');
    const refused = field.safeParse('true');
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.message).toMatch(/not 'true'/);
  });
});

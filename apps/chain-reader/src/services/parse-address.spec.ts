import { ToolError } from '@switchboard/catalog';
import { parseAddress } from './parse-address';

// The test vectors of EIP-55 (https://eips.ethereum.org/EIPS/eip-55#test-cases).
const EIP55_ALL_CAPS = ['0x52908400098527886E0F7030069857D2E4169EE7', '0x8617E340B3D01FA5F11F306F4090FD50E238070D'];
const EIP55_ALL_LOWER = ['0xde709f2102306220921060314715629080e2fb77', '0x27b1fdb04752bbc536007a920d24acb045561c26'];
const EIP55_NORMAL = [
  '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
  '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
  '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
];

function codeOf(fn: () => unknown): { code: unknown; message: string } | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(ToolError);
    return { code: (err as ToolError).details?.['code'], message: (err as ToolError).message };
  }
}

/** Flips the case of the first letter that has one, keeping the hex value: a checksum typo. */
function flipOneCase(address: string): string {
  const i = [...address].findIndex((c, n) => n > 1 && /[a-fA-F]/.test(c));
  const c = address[i]!;
  return address.slice(0, i) + (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()) + address.slice(i + 1);
}

describe('parseAddress (EIP-55)', () => {
  it.each(EIP55_NORMAL)('accepts the checksummed vector %s and returns it unchanged', (a) => {
    expect(parseAddress(a)).toBe(a);
  });

  it.each([...EIP55_ALL_CAPS, ...EIP55_ALL_LOWER])('accepts the single-case vector %s (no checksum to check)', (a) => {
    expect(parseAddress(a).toLowerCase()).toBe(a.toLowerCase());
  });

  it.each(EIP55_NORMAL)('refuses %s with one letter’s case flipped, naming the field and the checksum', (a) => {
    const bad = flipOneCase(a);
    expect(codeOf(() => parseAddress(bad, 'address'))).toEqual({
      code: 'CR_BAD_CHECKSUM',
      message: expect.stringMatching(new RegExp(`^address: ${bad} has a bad EIP-55 checksum.*${a}`)),
    });
  });

  it('refuses a one-digit typo in a checksummed address instead of reading another account', () => {
    const typo = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAee';
    expect(codeOf(() => parseAddress(typo))).toEqual({
      code: 'CR_BAD_CHECKSUM',
      message: expect.stringMatching(/^address: .*bad EIP-55 checksum/),
    });
  });

  it('refuses malformed input with a short message', () => {
    expect(codeOf(() => parseAddress('0x' + 'a'.repeat(100_000), 'caller'))).toEqual({
      code: 'CR_BAD_ADDRESS',
      message: expect.stringMatching(/^caller: ".*…" \(100002 chars\) is not a 0x-prefixed 20-byte hex address$/),
    });
    expect(codeOf(() => parseAddress('0x' + 'a'.repeat(100_000)))!.message.length).toBeLessThan(200);
  });
});

import { decodeHeaderValue } from './decode-header-value';

const sentinel = (text: string) => `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;

describe('decodeHeaderValue', () => {
  it('returns a plain ASCII value as is', () => {
    expect(decodeHeaderValue('get_weather')).toBe('get_weather');
  });

  it('decodes the Base64 sentinel as UTF-8', () => {
    expect(decodeHeaderValue(sentinel('café ☕'))).toBe('café ☕');
    expect(decodeHeaderValue('=?base64?SGVsbG8=?=')).toBe('Hello');
  });

  it('decodes an empty sentinel payload to the empty string', () => {
    expect(decodeHeaderValue('=?base64??=')).toBe('');
  });

  it('treats a value with only the prefix or only the suffix as literal', () => {
    expect(decodeHeaderValue('=?base64?SGVsbG8=')).toBe('=?base64?SGVsbG8=');
    expect(decodeHeaderValue('SGVsbG8=?=')).toBe('SGVsbG8=?=');
    expect(decodeHeaderValue('SGVsbG8=')).toBe('SGVsbG8=');
  });

  it('rejects unpadded Base64 (conformance ServerRejectsInvalidBase64Padding)', () => {
    expect(decodeHeaderValue('=?base64?SGVsbG8?=')).toBeUndefined();
  });

  it('rejects characters outside the Base64 alphabet', () => {
    expect(decodeHeaderValue('=?base64?SGVs!!!bG8=?=')).toBeUndefined();
    expect(decodeHeaderValue('=?base64?SGVs bG8=?=')).toBeUndefined();
  });

  it('rejects a payload that is not valid UTF-8', () => {
    expect(decodeHeaderValue(`=?base64?${Buffer.from([0xff, 0xfe]).toString('base64')}?=`)).toBeUndefined();
  });
});

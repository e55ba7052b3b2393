import { ibanValid, luhn } from './pii-patterns';
import { MAX_REDACT_DEPTH, RedactionDepthError, piiDetectors, redactDeep } from './pii-redactor';

const all = piiDetectors({ builtin: 'pii', nationalIds: [{ name: 'ssn', pattern: '\\b[0-9]{3}-[0-9]{2}-[0-9]{4}\\b' }] });
const redact = (s: string) => redactDeep(s, all).value;

describe('PII and secret redaction', () => {
  it.each([
    ['mail jane.doe+x@example.co.uk now', 'mail [REDACTED:email] now'],
    ['call +44 20 7946 0958 or (555) 123-4567', 'call [REDACTED:phone] or [REDACTED:phone]'],
    ['card 4111 1111 1111 1111 ok', 'card [REDACTED:card] ok'],
    ['iban GB82 WEST 1234 5698 7654 32.', 'iban [REDACTED:iban].'],
    ['ssn 123-45-6789', 'ssn [REDACTED:ssn]'],
    ['t=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl', 't=[REDACTED:jwt]'],
    ['Authorization: Bearer abcdefghijklmnop1234', 'Authorization: Bearer [REDACTED:bearer]'],
    ['aws AKIAIOSFODNN7EXAMPLE', 'aws [REDACTED:apiKey]'],
    [`gh ghp_${'a'.repeat(36)}`, 'gh [REDACTED:apiKey]'],
    ['slack xoxb-1234567890-abcdef', 'slack [REDACTED:apiKey]'],
    [`stripe sk_live_${'a'.repeat(24)}`, 'stripe [REDACTED:apiKey]'],
    [`openai sk-proj-${'A'.repeat(40)}`, 'openai [REDACTED:apiKey]'],
    [`google AIza${'b'.repeat(35)}`, 'google [REDACTED:apiKey]'],
  ])('redacts %j', (input, output) => {
    expect(redact(input)).toBe(output);
  });

  it('keeps numbers that fail their checksum, and plain text', () => {
    expect(luhn('4111111111111112')).toBe(false);
    expect(ibanValid('GB82WEST12345698765433')).toBe(false);
    for (const s of ['order 4111 1111 1111 1112', 'iban GB82 WEST 1234 5698 7654 33', 'version 1.2.3', 'no secrets here'])
      expect(redact(s)).toBe(s);
  });

  it('redacts strings in place in a tool result, keeping types and protocol fields', () => {
    const result = {
      content: [
        { type: 'text', text: 'reach me at jane@example.com' },
        { type: 'resource', resource: { uri: 'mailto:jane@example.com', mimeType: 'text/plain', text: 'jane@example.com' } },
      ],
      structuredContent: {
        email: 'jane@example.com',
        type: 'jane@example.com',
        age: 41,
        tags: ['ok', 'bob@example.org'],
        nested: { paid: true },
      },
      isError: false,
    };
    const { value, counts } = redactDeep(result, all);
    expect(value).toEqual({
      content: [
        { type: 'text', text: 'reach me at [REDACTED:email]' },
        { type: 'resource', resource: { uri: 'mailto:jane@example.com', mimeType: 'text/plain', text: '[REDACTED:email]' } },
      ],
      structuredContent: {
        email: '[REDACTED:email]',
        type: '[REDACTED:email]',
        age: 41,
        tags: ['ok', '[REDACTED:email]'],
        nested: { paid: true },
      },
      isError: false,
    });
    expect(counts).toEqual({ email: 5 });
    expect(result.content[0]!.text).toBe('reach me at jane@example.com');
  });

  it('returns the same object when nothing matched (no copy on the clean path)', () => {
    const clean = { content: [{ type: 'text', text: 'hello' }] };
    expect(redactDeep(clean, all).value).toBe(clean);
  });

  it('runs only the kinds configured', () => {
    const emailOnly = piiDetectors({ builtin: 'pii', kinds: ['email'] });
    expect(redactDeep('a@b.io 4111 1111 1111 1111', emailOnly).value).toBe('[REDACTED:email] 4111 1111 1111 1111');
  });

  it('refuses a payload nested deeper than the bound', () => {
    let deep: unknown = 'x';
    for (let i = 0; i <= MAX_REDACT_DEPTH; i++) deep = [deep];
    expect(() => redactDeep(deep, all)).toThrow(RedactionDepthError);
  });

  it('stays linear on hostile input (RE2, no backtracking)', () => {
    const hostile = `${'a.'.repeat(100_000)}@${'1 '.repeat(50_000)}`;
    const started = process.hrtime.bigint();
    redactDeep(hostile, all);
    expect(Number(process.hrtime.bigint() - started) / 1e9).toBeLessThan(20);
  });
});

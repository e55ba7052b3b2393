import { redactCaptured } from './redact-captured';

describe('redactCaptured', () => {
  it('replaces values under default and tenant keys anywhere, case-insensitively', () => {
    const out = redactCaptured({ query: 'x', Password: 'p', nested: [{ api_key: 'k', ssn: '123', ok: 1 }] }, ['SSN']);
    expect(out).toEqual({ query: 'x', Password: '[redacted]', nested: [{ api_key: '[redacted]', ssn: '[redacted]', ok: 1 }] });
  });

  it('truncates past the byte bound and cuts nesting past 16 levels', () => {
    expect(redactCaptured({ text: 'a'.repeat(10_000) }, [], 100)).toMatchObject({ truncated: true });
    let deep: unknown = 'leaf';
    for (let i = 0; i < 40; i++) deep = { d: deep };
    expect(JSON.stringify(redactCaptured(deep))).toContain('[depth]');
  });

  it('keeps only text jsonb can hold: no NUL, no lone surrogate, in keys as in values', () => {
    const out = redactCaptured({ 'k\u0000ey': 'a\u0000b', ['lone\ud800']: ['x\udc00y', '😀 paired'] });
    expect(out).toEqual({ key: 'ab', 'lone\ufffd': ['x\ufffdy', '😀 paired'] });
    expect(JSON.stringify(out)).not.toMatch(/\\u(0000|d[89a-f])/i);
  });
});

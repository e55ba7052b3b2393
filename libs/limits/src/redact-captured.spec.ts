import { redactCaptured, redactCapturedSized, redactText } from './redact-captured';

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

describe('redactText (token-like values and URLs in any string)', () => {
  const jwt = 'eyJhbGciOiJFUzI1NiIsInR5cCI6ImF0K2p3dCJ9.eyJzdWIiOiJhY21lfGFkYSJ9.c2lnbmF0dXJlLWJ5dGVz';
  it.each([
    ['a JWT', `session ${jwt} ok`, 'session [redacted JWT] ok'],
    ['a bearer header value', 'Authorization: Bearer abc123.def456-ghi', 'Authorization: [redacted bearer credential]'],
    ['a basic credential', 'sent basic dXNlcjpwYXNzd29yZA== upstream', 'sent [redacted bearer credential] upstream'],
    ['an OpenAI / Anthropic key', 'key=sk-ant-api03-AbCdEfGhIjKlMnOpQrSt', 'key=[redacted OpenAI / Anthropic key]'],
    ['a Stripe key', 'sk_live_4eC39HqLyjWDarjtT1zdp7dc', '[redacted Stripe key]'],
    ['a GitHub token', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789', '[redacted GitHub token]'],
    ['a fine-grained GitHub token', 'github_pat_11ABCDEFG0abcdefghijklmnop', '[redacted GitHub token]'],
    ['a GitLab token', 'glpat-abcdefghij0123456789', '[redacted GitLab token]'],
    ['a Slack token', 'xoxb-123456789012-abcdefghij', '[redacted Slack token]'],
    ['an AWS access key id', 'id AKIAIOSFODNN7EXAMPLE here', 'id [redacted AWS access key id] here'],
    ['a Google API key', 'AIzaSyA1234567890abcdefghijklmnopqrstuv', '[redacted Google API key]'],
    ['an npm token', 'npm_abcdefghijklmnopqrstuvwxyz0123456789', '[redacted npm token]'],
    ['a private key block', '-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY----- tail', '[redacted private key] tail'],
  ])('redacts %s', (_what, input, output) => expect(redactText(input)).toBe(output));

  it("keeps a URL's path and replaces its query, fragment and user info (connector link tickets included)", () => {
    expect(redactText('Connect here: https://auth.example.com/t/acme/connect/github?ticket=v1.abc.def&x=1 then retry')).toBe(
      'Connect here: https://auth.example.com/t/acme/connect/github?[redacted] then retry',
    );
    expect(redactText('https://user:pw@db.example.com:5432/app#access_token=xyz')).toBe(
      'https://[redacted]@db.example.com:5432/app#[redacted]',
    );
    expect(redactText('see https://example.com/docs/page.')).toBe('see https://example.com/docs/page.');
  });

  it("replaces a resource URI's query part", () => {
    expect(redactText('s3://bucket/report.csv?X-Amz-Signature=abc&X-Amz-Credential=AKIA')).toBe('s3://bucket/report.csv?[redacted]');
    expect(redactText('file:///var/data/x.json?token=1')).toBe('file:///var/data/x.json?[redacted]');
  });

  it('leaves ordinary prose alone', () => {
    const prose = 'Basic authentication failed: the task-management token expired; ask an admin (sk-8 is a model name).';
    expect(redactText(prose)).toBe(prose);
  });

  it('cuts a string past the bound without leaving half a token behind', () => {
    const cut = redactText(`${'x '.repeat(10)}ghp_abcdefghijklmnopqrstuvwxyz0123456789 and more`, 30);
    expect(cut).toBe(`${'x '.repeat(10)}[redacted …`);
    expect(redactText('😀'.repeat(10), 5).isWellFormed()).toBe(true);
  });
});

describe('redactCaptured applies the token table in any string, under any key', () => {
  it('redacts tokens in values, nested arrays and keys; a resource URI argument loses its query', () => {
    const out = redactCaptured({
      note: 'use Bearer abc123.def456-ghi',
      list: [{ link: 'https://x.test/a?ticket=t' }],
      ['ghp_abcdefghijklmnopqrstuvwxyz0123456789']: 1,
    });
    expect(out).toEqual({
      note: 'use [redacted bearer credential]',
      list: [{ link: 'https://x.test/a?[redacted]' }],
      '[redacted GitHub token]': 1,
    });
    expect(redactCaptured('db://main/orders?api_key=k')).toBe('db://main/orders?[redacted]');
  });
});

describe('redactCapturedSized (the capture stream is bounded in bytes)', () => {
  it('never returns more than maxBytes of JSON, even when escaping inflates the preview', () => {
    for (const text of ['a'.repeat(10_000), '"'.repeat(10_000), '\u0001'.repeat(10_000), '€'.repeat(10_000)]) {
      const { value, bytes } = redactCapturedSized({ text }, [], 512);
      expect(value).toMatchObject({ truncated: true });
      expect(Buffer.byteLength(JSON.stringify(value))).toBe(bytes);
      expect(bytes).toBeLessThanOrEqual(512);
    }
  });

  it('reports the size of what fits', () => {
    expect(redactCapturedSized({ a: 1 })).toEqual({ value: { a: 1 }, bytes: 7 });
  });
});

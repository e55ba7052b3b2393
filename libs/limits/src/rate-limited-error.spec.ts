import { rateLimitedAnswer } from './rate-limited-error';

describe('rateLimitedAnswer', () => {
  const now = Date.UTC(2026, 11, 1, 12);

  it('legacy era: −32029 in an HTTP 200 with retryAfterSeconds, the limit and a Retry-After header', () => {
    const answer = rateLimitedAnswer(
      { allowed: false, mode: 'shared', retryAfterMs: 1_200, rule: { kind: 'rate', id: 'tool', key: 'k', perSecond: 1, burst: 1 } },
      'legacy',
      now,
    );
    expect(answer.error).toMatchObject({ code: -32029, httpStatus: 200, data: { retryAfterSeconds: 2, limit: 'tool' } });
    expect(answer.error.message).toContain('retry after 2 s');
    expect(answer.headers).toEqual({ 'retry-after': '2' });
  });

  it('modern era: the same body with HTTP 429', () => {
    const answer = rateLimitedAnswer(
      { allowed: false, mode: 'local', retryAfterMs: 10, rule: { kind: 'rate', id: 'tenant', key: 'k', perSecond: 1, burst: 1 } },
      'modern',
      now,
    );
    expect(answer.error).toMatchObject({ code: -32029, httpStatus: 429, data: { retryAfterSeconds: 1, limit: 'tenant' } });
  });

  it('a daily quota names its reset time', () => {
    const resetAtMs = Date.UTC(2026, 11, 2);
    const answer = rateLimitedAnswer(
      {
        allowed: false,
        mode: 'shared',
        retryAfterMs: resetAtMs - now,
        rule: { kind: 'quota', id: 'daily', key: 'k', limit: 5, resetAtMs },
      },
      'legacy',
      now,
    );
    expect(answer.error).toMatchObject({
      data: { limit: 'daily', resetAt: '2026-12-02T00:00:00.000Z', retryAfterSeconds: 43_200, quota: 5 },
    });
    expect(answer.error.message).toContain('resets at 2026-12-02T00:00:00.000Z');
  });
});

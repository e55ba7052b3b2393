import { RateLimiter } from './rate-limiter';

describe('RateLimiter', () => {
  it('counts hits per key and window', () => {
    const l = new RateLimiter(2, 60_000);
    expect(l.hit('a', 0)).toBe(0);
    expect(l.hit('a', 1000)).toBe(0);
    expect(l.hit('a', 2000)).toBe(58);
    expect(l.hit('b', 2000)).toBe(0);
    expect(l.hit('a', 60_000)).toBe(0);
  });

  it('blocked() tells whether the next attempt is over the limit without counting it', () => {
    const l = new RateLimiter(2, 60_000);
    expect(l.blocked('ip', 0)).toBe(0);
    l.hit('ip', 0);
    expect(l.blocked('ip', 10)).toBe(0);
    l.hit('ip', 20);
    expect(l.blocked('ip', 30_000)).toBe(30);
    expect(l.blocked('ip', 30_000)).toBe(30);
    expect(l.blocked('ip', 60_000)).toBe(0);
  });
});

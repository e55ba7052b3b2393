/**
 * Fixed-window counter per key, in memory. Per replica: with N replicas the effective limit is
 * N times higher, which is acceptable for abuse limits on registration (move to Redis when
 * a tighter global quota is needed).
 */
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /** Counts one hit; returns 0 when allowed, otherwise the seconds until the window resets. */
  hit(key: string, now = Date.now()): number {
    let w = this.windows.get(key);
    if (!w || now - w.start >= this.windowMs) {
      w = { start: now, count: 0 };
      this.windows.set(key, w);
      if (this.windows.size > 100_000) this.sweep(now);
    }
    w.count += 1;
    return w.count <= this.limit ? 0 : Math.max(1, Math.ceil((w.start + this.windowMs - now) / 1000));
  }

  /** Like `hit` without counting: 0 while the key is within its limit, else the seconds until the window resets. */
  blocked(key: string, now = Date.now()): number {
    const w = this.windows.get(key);
    if (!w || now - w.start >= this.windowMs || w.count < this.limit) return 0;
    return Math.max(1, Math.ceil((w.start + this.windowMs - now) / 1000));
  }

  private sweep(now: number): void {
    for (const [k, w] of this.windows) if (now - w.start >= this.windowMs) this.windows.delete(k);
  }
}

import { AdaptiveBatcher } from './adaptive-batcher';

describe('AdaptiveBatcher', () => {
  beforeEach(() => {
    jest.useFakeTimers();
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  const make = (idleMs: number, maxWaitMs: number, maxBytes = 1_000, maxItems = 1_000) => {
    const sent: number[][] = [];
    const b = new AdaptiveBatcher<number>({ idleMs, maxWaitMs, maxBytes, maxItems }, (_key, items) => sent.push(items));
    return { b, sent };
  };
  /** `n` reads, one every `gapMs`. */
  const arrive = (b: AdaptiveBatcher<number>, n: number, gapMs: number): void => {
    for (let i = 0; i < n; i += 1) {
      b.add('latest', i, 10);
      jest.advanceTimersByTime(gapMs);
    }
  };

  it('grows its window while reads keep arriving, up to maxWaitMs', () => {
    // 100 reads over ~500 ms (one every 5 ms), idle gap 16 ms, bound 250 ms ⇒ 2 batches.
    const { b, sent } = make(16, 250);
    arrive(b, 100, 5);
    jest.advanceTimersByTime(100);
    expect(sent.map((s) => s.length)).toEqual([50, 50]);
  });

  it('under a steady stream sparser than the idle gap, waits a few average gaps instead of sending each read alone', () => {
    // 40 reads, one every 25 ms (40/s), idle gap 16 ms, bound 500 ms.
    const adaptive = make(16, 500);
    arrive(adaptive.b, 40, 25);
    jest.advanceTimersByTime(1_000);
    expect(adaptive.b.idleGapMs).toBe(75);
    // The first reads go alone until the rate is known; then ~20 reads per 500 ms window.
    expect(adaptive.sent.length).toBeLessThanOrEqual(5);
    expect(adaptive.sent.flat()).toEqual(Array.from({ length: 40 }, (_, i) => i));
    const sparse = make(16, 500);
    arrive(sparse.b, 5, 200);
    // 5 reads/s is not load: each goes after the 16 ms idle gap.
    expect(sparse.sent.length).toBe(5);
    expect(sparse.b.idleGapMs).toBe(16);
  });

  it('with idle = max behaves as the old fixed 16 ms window', () => {
    const { b, sent } = make(16, 16);
    arrive(b, 100, 5);
    jest.advanceTimersByTime(100);
    expect(sent.length).toBe(25);
    expect(sent.flat()).toEqual(Array.from({ length: 100 }, (_, i) => i));
  });

  it('sends a lone read after the idle gap, not the bound', () => {
    const { b, sent } = make(16, 250);
    b.add('latest', 1, 10);
    jest.advanceTimersByTime(15);
    expect(sent).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(sent).toEqual([[1]]);
  });

  it('sends a full batch at once, without waiting for the window', () => {
    const { b, sent } = make(16, 250, 30);
    b.add('latest', 1, 10);
    b.add('latest', 2, 10);
    b.add('latest', 3, 10);
    expect(sent).toEqual([]);
    b.add('latest', 4, 10);
    expect(sent).toEqual([[1, 2, 3]]);
    const byCount = make(16, 250, 1_000, 2);
    byCount.b.add('latest', 1, 1);
    byCount.b.add('latest', 2, 1);
    byCount.b.add('latest', 3, 1);
    expect(byCount.sent).toEqual([[1, 2]]);
  });

  it('keeps one batch per key (block)', () => {
    const { b, sent } = make(16, 250);
    b.add('latest', 1, 10);
    b.add('100', 2, 10);
    b.add('latest', 3, 10);
    jest.advanceTimersByTime(20);
    expect(sent).toHaveLength(2);
    expect(sent).toEqual(expect.arrayContaining([[1, 3], [2]]));
  });
});

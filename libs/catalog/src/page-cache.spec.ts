import { PageCache } from './page-cache';

const bytes = (s: string) => Buffer.from(s, 'utf8');

describe('PageCache', () => {
  it('returns what was stored, and undefined for an unknown page', () => {
    const cache = new PageCache(1_000);
    const stored = cache.set(1, 'a', bytes('{"tools":[]}'));
    expect(cache.get(1, 'a')).toBe(stored);
    expect(cache.get(1, 'b')).toBeUndefined();
    expect(cache.get(2, 'a')).toBeUndefined();
  });

  it('holds one Buffer for equal bytes under different keys and owners (content-addressed)', () => {
    const cache = new PageCache(1_000);
    const first = cache.set(1, 'generic 2025-06-18', bytes('same page'));
    const second = cache.set(2, 'claude 2025-11-25', bytes('same page'));
    expect(second).toBe(first);
    expect(cache.stats).toMatchObject({ keys: 2, buffers: 1, bytes: 'same page'.length });
  });

  it('evicts least recently used pages to stay within its byte bound', () => {
    const cache = new PageCache(30);
    cache.set(1, 'a', bytes('a'.repeat(10)));
    cache.set(1, 'b', bytes('b'.repeat(10)));
    cache.set(1, 'c', bytes('c'.repeat(10)));
    expect(cache.get(1, 'a')).toBeDefined(); // a is now the most recent
    cache.set(1, 'd', bytes('d'.repeat(10)));
    expect(cache.get(1, 'b')).toBeUndefined();
    expect(cache.get(1, 'a')).toBeDefined();
    expect(cache.get(1, 'c')).toBeDefined();
    expect(cache.get(1, 'd')).toBeDefined();
    expect(cache.stats.bytes).toBe(30);
  });

  it('gives a page asked for since the last eviction pass a second chance, and drops the oldest unasked one', () => {
    const cache = new PageCache(30);
    cache.set(1, 'a', bytes('a'.repeat(10)));
    cache.set(1, 'b', bytes('b'.repeat(10)));
    cache.set(1, 'c', bytes('c'.repeat(10)));
    cache.get(1, 'a');
    cache.get(1, 'b');
    cache.set(1, 'd', bytes('d'.repeat(10))); // a and b were asked for: c goes
    expect(cache.get(1, 'c')).toBeUndefined();
    // The pass moved a and b (marks cleared) behind d, which nobody asked for since: the next store drops d.
    cache.set(1, 'e', bytes('e'.repeat(10)));
    expect(cache.get(1, 'd')).toBeUndefined();
    expect(cache.get(1, 'a')).toBeDefined();
    expect(cache.get(1, 'b')).toBeDefined();
    expect(cache.stats).toMatchObject({ keys: 3, bytes: 30 });
  });

  it('keeps the page just stored over older unasked ones, and serves it under its full key', () => {
    const cache = new PageCache(20);
    cache.set(1, 'a', bytes('a'.repeat(10)));
    cache.set(2, 'b', bytes('b'.repeat(10)));
    const c = cache.set(3, 'c', bytes('c'.repeat(10)));
    expect(cache.getKey(PageCache.keyOf(3, 'c'))).toBe(c);
    expect(cache.get(1, 'a')).toBeUndefined();
    expect(cache.getKey(PageCache.keyOf(2, 'b'))?.toString()).toBe('b'.repeat(10));
    expect(cache.getKey(PageCache.keyOf(2, 'c'))).toBeUndefined();
  });

  it('counts shared bytes once against the bound, and frees them with their last key', () => {
    const cache = new PageCache(20);
    cache.set(1, 'a', bytes('x'.repeat(20)));
    cache.set(2, 'a', bytes('x'.repeat(20)));
    expect(cache.stats).toMatchObject({ keys: 2, bytes: 20 });
    cache.release(1);
    expect(cache.stats).toMatchObject({ keys: 1, bytes: 20 });
    cache.release(2);
    expect(cache.stats).toMatchObject({ keys: 0, buffers: 0, bytes: 0 });
  });

  it('serves a page larger than the whole bound without keeping it', () => {
    const cache = new PageCache(5);
    const big = bytes('too large for the cache');
    expect(cache.set(1, 'a', big)).toBe(big);
    expect(cache.get(1, 'a')).toBeUndefined();
    expect(cache.stats.bytes).toBe(0);
  });

  it('release drops only that owner’s pages', () => {
    const cache = new PageCache(1_000);
    cache.set(1, 'a', bytes('one'));
    const kept = cache.set(2, 'a', bytes('two'));
    cache.release(1);
    expect(cache.get(1, 'a')).toBeUndefined();
    expect(cache.get(2, 'a')).toBe(kept);
  });

  it('replacing a key releases the bytes it pointed at', () => {
    const cache = new PageCache(1_000);
    cache.set(1, 'a', bytes('old'));
    cache.set(1, 'a', bytes('newer'));
    expect(cache.stats).toMatchObject({ keys: 1, buffers: 1, bytes: 5 });
    expect(cache.get(1, 'a')?.toString()).toBe('newer');
  });

  it('refuses a negative or non-numeric bound', () => {
    expect(() => new PageCache(-1)).toThrow(RangeError);
    expect(() => new PageCache(Number.NaN)).toThrow(RangeError);
  });
});

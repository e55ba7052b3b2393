import { createHash } from 'node:crypto';

/** Default bound of the process-wide page cache: 64 MiB of distinct page bytes. */
export const DEFAULT_PAGE_CACHE_BYTES = 64 * 1024 * 1024;

interface Stored {
  bytes: Buffer;
  /** Cache keys currently pointing at these bytes. */
  refs: number;
}

/**
 * Compiled list pages (result bytes) shared by every catalog in the process: an LRU over page
 * keys, bounded by the bytes of the **distinct** Buffers it holds, and content-addressed — two
 * keys whose bytes are equal (the same page on two versions or surfaces, or two tenants with the
 * same tools) hold one Buffer. An evicted page is simply compiled again on its next request;
 * a Buffer already handed out stays valid (callers must never write into one).
 */
export class PageCache {
  /** Page key → content hash; Map order is recency (oldest first). */
  private readonly keys = new Map<string, string>();
  private readonly byHash = new Map<string, Stored>();
  /** Keys of each owner (one compiled catalog), so a swap drops only its own pages. */
  private readonly owners = new Map<number, Set<string>>();
  private held = 0;
  private hitCount = 0;
  private missCount = 0;

  constructor(readonly maxBytes: number = DEFAULT_PAGE_CACHE_BYTES) {
    if (!Number.isFinite(maxBytes) || maxBytes < 0) throw new RangeError(`maxBytes must be a number >= 0, got ${maxBytes}`);
  }

  /** The page `key` of `owner`, marked most recently used; undefined when it is not held. */
  get(owner: number, pageKey: string): Buffer | undefined {
    const key = `${owner}\u0000${pageKey}`;
    const hash = this.keys.get(key);
    if (hash === undefined) {
      this.missCount++;
      return undefined;
    }
    this.hitCount++;
    this.keys.delete(key);
    this.keys.set(key, hash);
    return (this.byHash.get(hash) as Stored).bytes;
  }

  /**
   * Stores `bytes` as page `pageKey` of `owner` (a compiled catalog's id) and returns the Buffer to serve: an equal Buffer
   * already held when there is one (content addressing), else `bytes` itself. Evicts least
   * recently used keys until the distinct bytes held fit `maxBytes` (a single page larger than
   * the bound is served but not kept).
   */
  set(owner: number, pageKey: string, bytes: Buffer): Buffer {
    const key = `${owner}\u0000${pageKey}`;
    const hash = createHash('sha256').update(bytes).digest('base64');
    if (this.keys.has(key)) this.remove(key);
    let stored = this.byHash.get(hash);
    if (!stored) {
      if (bytes.length > this.maxBytes) return bytes;
      stored = { bytes, refs: 0 };
      this.byHash.set(hash, stored);
      this.held += bytes.length;
    }
    stored.refs++;
    this.keys.set(key, hash);
    let mine = this.owners.get(owner);
    if (!mine) {
      mine = new Set();
      this.owners.set(owner, mine);
    }
    mine.add(key);
    while (this.held > this.maxBytes) {
      const oldest = this.keys.keys().next();
      if (oldest.done) break;
      this.remove(oldest.value);
    }
    return stored.bytes;
  }

  /** Drops every page of `owner` (a replaced catalog); other owners' pages stay. */
  release(owner: number): void {
    const mine = this.owners.get(owner);
    if (!mine) return;
    this.owners.delete(owner);
    for (const key of mine) this.remove(key, false);
  }

  /** Distinct bytes held, keys, distinct Buffers, and hit/miss counters (for metrics and benches). */
  get stats(): { bytes: number; keys: number; buffers: number; hits: number; misses: number } {
    return { bytes: this.held, keys: this.keys.size, buffers: this.byHash.size, hits: this.hitCount, misses: this.missCount };
  }

  private remove(key: string, fromOwner = true): void {
    const hash = this.keys.get(key);
    if (hash === undefined) return;
    this.keys.delete(key);
    if (fromOwner) {
      const owner = Number(key.slice(0, key.indexOf('\u0000')));
      const mine = this.owners.get(owner);
      mine?.delete(key);
      if (mine?.size === 0) this.owners.delete(owner);
    }
    const stored = this.byHash.get(hash) as Stored;
    if (--stored.refs === 0) {
      this.byHash.delete(hash);
      this.held -= stored.bytes.length;
    }
  }
}

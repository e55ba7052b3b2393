import { createHash } from 'node:crypto';

/** Default bound of a page cache: 64 MiB of distinct page bytes. */
export const DEFAULT_PAGE_CACHE_BYTES = 64 * 1024 * 1024;

interface Stored {
  readonly bytes: Buffer;
  /** Its content hash (the `byHash` key). */
  readonly hash: string;
  /** Cache keys currently pointing at these bytes. */
  refs: number;
}

interface Entry {
  readonly owner: number;
  readonly stored: Stored;
  /** Asked for since eviction last passed it (the second chance of a CLOCK eviction). */
  used: boolean;
}

/**
 * Compiled list pages (result bytes) shared by the catalogs of one `CatalogCaches`: a cache of page
 * keys, bounded by the bytes of the **distinct** Buffers it holds, and content-addressed — two
 * keys whose bytes are equal (the same page on two versions or surfaces, or two tenants with the
 * same tools) hold one Buffer. Eviction is CLOCK (second chance), an approximation of LRU whose
 * hit costs one lookup and one flag write instead of re-ordering a map on every request; a page
 * asked for since eviction last passed it is kept, the oldest one not asked for goes. An evicted
 * page is simply compiled again on its next request; a Buffer already handed out stays valid
 * (callers must never write into one).
 */
export class PageCache {
  /** Full key (`PageCache.keyOf`) → entry; Map order is insertion (oldest first), the CLOCK hand's order. */
  private readonly entries = new Map<string, Entry>();
  private readonly byHash = new Map<string, Stored>();
  /** Keys of each owner (one compiled catalog), so a swap drops only its own pages. */
  private readonly owners = new Map<number, Set<string>>();
  private held = 0;
  private hitCount = 0;
  private missCount = 0;

  constructor(readonly maxBytes: number = DEFAULT_PAGE_CACHE_BYTES) {
    if (!Number.isFinite(maxBytes) || maxBytes < 0) throw new RangeError(`maxBytes must be a number >= 0, got ${maxBytes}`);
  }

  /** The full key of page `pageKey` of `owner`: callers on a hot path build it once and use `getKey`. */
  static keyOf(owner: number, pageKey: string): string {
    return `${owner}\u0000${pageKey}`;
  }

  /** The page `pageKey` of `owner`, marked as used; undefined when it is not held. */
  get(owner: number, pageKey: string): Buffer | undefined {
    return this.getKey(PageCache.keyOf(owner, pageKey));
  }

  /** The page under a full key (`PageCache.keyOf`), marked as used; undefined when it is not held. */
  getKey(key: string): Buffer | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) {
      this.missCount++;
      return undefined;
    }
    this.hitCount++;
    entry.used = true;
    return entry.stored.bytes;
  }

  /**
   * Stores `bytes` as page `pageKey` of `owner` (a compiled catalog's id) and returns the Buffer to serve: an equal Buffer
   * already held when there is one (content addressing), else `bytes` itself. Evicts until the
   * distinct bytes held fit `maxBytes` (a single page larger than the bound is served but not kept).
   */
  set(owner: number, pageKey: string, bytes: Buffer): Buffer {
    const key = PageCache.keyOf(owner, pageKey);
    const hash = createHash('sha256').update(bytes).digest('base64');
    if (this.entries.has(key)) this.remove(key);
    let stored = this.byHash.get(hash);
    if (!stored) {
      if (bytes.length > this.maxBytes) return bytes;
      stored = { bytes, hash, refs: 0 };
      this.byHash.set(hash, stored);
      this.held += bytes.length;
    }
    stored.refs++;
    this.entries.set(key, { owner, stored, used: false });
    let mine = this.owners.get(owner);
    if (!mine) {
      mine = new Set();
      this.owners.set(owner, mine);
    }
    mine.add(key);
    this.evict(key);
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
    return { bytes: this.held, keys: this.entries.size, buffers: this.byHash.size, hits: this.hitCount, misses: this.missCount };
  }

  /**
   * CLOCK: from the oldest entry on, a used one gets a second chance (flag cleared, moved to the
   * newest end), an unused one is dropped, until the bytes fit. `justSet` is dropped last: it was
   * stored to be served, and goes only when nothing else is left to drop.
   */
  private evict(justSet: string): void {
    while (this.held > this.maxBytes && this.entries.size > 0) {
      const [key, entry] = this.entries.entries().next().value as [string, Entry];
      if (entry.used || (key === justSet && this.entries.size > 1)) {
        entry.used = false;
        this.entries.delete(key);
        this.entries.set(key, entry);
      } else {
        this.remove(key);
      }
    }
  }

  private remove(key: string, fromOwner = true): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    if (fromOwner) {
      const mine = this.owners.get(entry.owner);
      mine?.delete(key);
      if (mine?.size === 0) this.owners.delete(entry.owner);
    }
    const stored = entry.stored;
    if (--stored.refs === 0) {
      this.byHash.delete(stored.hash);
      this.held -= stored.bytes.length;
    }
  }
}

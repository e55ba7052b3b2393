/** How an AdaptiveBatcher sizes its window. */
export interface AdaptiveBatcherOptions {
  /**
   * Idle gap in ms: a batch is sent this long after the last read joined it. A lone read waits
   * exactly this long; while reads keep arriving faster than this, the window keeps growing.
   */
  idleMs: number;
  /** Upper bound in ms on a batch's window, counted from its first read. idleMs = maxWaitMs gives a fixed window. */
  maxWaitMs: number;
  /** A batch is sent at once when the next item would take it past this many bytes. */
  maxBytes: number;
  /** …or past this many items. */
  maxItems: number;
}

interface OpenBatch<T> {
  items: T[];
  bytes: number;
  openedAt: number;
  timer: NodeJS.Timeout;
}

/**
 * Groups items that arrive from independent requests into batches per key (one per block), with
 * a window that adapts to the arrival rate: it closes `idleMs` after the last arrival, so under
 * load (arrivals closer than `idleMs`) it grows, up to `maxWaitMs` from the first arrival; a
 * batch that is full (bytes or items) is sent at once without waiting for its window.
 */
export class AdaptiveBatcher<T> {
  private readonly open = new Map<string, OpenBatch<T>>();

  constructor(private readonly options: AdaptiveBatcherOptions, private readonly send: (key: string, items: T[]) => void) {}

  add(key: string, item: T, bytes: number): void {
    const now = performance.now();
    let batch = this.open.get(key);
    if (batch && (batch.bytes + bytes > this.options.maxBytes || batch.items.length + 1 > this.options.maxItems)) {
      this.flush(key);
      batch = undefined;
    }
    if (!batch) {
      batch = { items: [], bytes: 0, openedAt: now, timer: setTimeout(() => this.flush(key), this.options.idleMs) };
      this.open.set(key, batch);
    } else {
      // Extend the window to idleMs after this arrival, never past maxWaitMs after the first one.
      const closeAt = Math.min(batch.openedAt + this.options.maxWaitMs, now + this.options.idleMs);
      clearTimeout(batch.timer);
      batch.timer = setTimeout(() => this.flush(key), Math.max(0, closeAt - now));
    }
    batch.items.push(item);
    batch.bytes += bytes;
  }

  /** Sends every open batch now (shutdown). */
  flushAll(): void {
    for (const key of [...this.open.keys()]) this.flush(key);
  }

  private flush(key: string): void {
    const batch = this.open.get(key);
    if (!batch) return;
    this.open.delete(key);
    clearTimeout(batch.timer);
    if (batch.items.length > 0) this.send(key, batch.items);
  }
}

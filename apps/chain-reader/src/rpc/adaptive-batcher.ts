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

/** Weight of the newest inter-arrival gap in the moving average. */
const GAP_EWMA_ALPHA = 0.2;
/** Under load a batch waits this many average gaps for the next read before it is sent. */
const GAPS_TO_WAIT = 3;
/** Arrivals count as load when the average gap is at most maxWaitMs / this (20 reads/s at 500 ms). */
const LOAD_GAP_DIVISOR = 10;

/**
 * Groups items that arrive from independent requests into batches per key (one per block), with
 * a window that adapts to the arrival rate. A batch closes an idle gap after its last arrival:
 * `idleMs` when reads are sparse, or GAPS_TO_WAIT × the moving-average gap between arrivals
 * when they come at least 10 per `maxWaitMs` (so a steady stream keeps one batch open instead
 * of closing it between two reads), never later than `maxWaitMs` after its first arrival. A
 * batch that is full (bytes or items) is sent at once without waiting for its window.
 */
export class AdaptiveBatcher<T> {
  private readonly open = new Map<string, OpenBatch<T>>();
  private lastArrival: number | undefined;
  private avgGap: number | undefined;

  /** The idle gap a batch waits for its next read, from the arrival rate seen so far. */
  get idleGapMs(): number {
    const { idleMs, maxWaitMs } = this.options;
    if (this.avgGap === undefined || this.avgGap > maxWaitMs / LOAD_GAP_DIVISOR) return idleMs;
    return Math.min(maxWaitMs, Math.max(idleMs, GAPS_TO_WAIT * this.avgGap));
  }

  constructor(
    private readonly options: AdaptiveBatcherOptions,
    private readonly send: (key: string, items: T[]) => void,
  ) {}

  add(key: string, item: T, bytes: number): void {
    const now = performance.now();
    if (this.lastArrival !== undefined) {
      const gap = now - this.lastArrival;
      this.avgGap = this.avgGap === undefined ? gap : this.avgGap + GAP_EWMA_ALPHA * (gap - this.avgGap);
    }
    this.lastArrival = now;
    const idle = this.idleGapMs;
    let batch = this.open.get(key);
    if (batch && (batch.bytes + bytes > this.options.maxBytes || batch.items.length + 1 > this.options.maxItems)) {
      this.flush(key);
      batch = undefined;
    }
    if (!batch) {
      batch = { items: [], bytes: 0, openedAt: now, timer: setTimeout(() => this.flush(key), Math.min(idle, this.options.maxWaitMs)) };
      this.open.set(key, batch);
    } else {
      // Extend the window to one idle gap after this arrival, never past maxWaitMs after the first one.
      const closeAt = Math.min(batch.openedAt + this.options.maxWaitMs, now + idle);
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

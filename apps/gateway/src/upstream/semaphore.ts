/** Thrown at once when a semaphore's bounded queue is full. */
export class SemaphoreFullError extends Error {
  override readonly name = 'SemaphoreFullError';
}

/**
 * A counting semaphore with a bounded FIFO queue: `acquire` rejects at once when `maxQueue`
 * callers already wait (never an unbounded queue), and rejects a waiter whose signal aborts.
 */
export class Semaphore {
  private active = 0;
  private readonly queue: Array<() => void> = [];

  constructor(
    private readonly limit: number,
    private readonly maxQueue = Number.POSITIVE_INFINITY,
  ) {}

  async acquire(signal?: AbortSignal): Promise<() => void> {
    if (this.active < this.limit) {
      this.active++;
      return once(() => this.release());
    }
    if (this.queue.length >= this.maxQueue) throw new SemaphoreFullError(`${this.active} in flight and ${this.queue.length} waiting`);
    if (signal?.aborted) throw signal.reason;
    return new Promise((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        this.active++;
        resolve(once(() => this.release()));
      };
      const onAbort = () => {
        const i = this.queue.indexOf(grant);
        if (i !== -1) this.queue.splice(i, 1);
        reject(signal?.reason ?? new Error('aborted'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(grant);
    });
  }

  get inFlight(): number {
    return this.active;
  }

  get waiting(): number {
    return this.queue.length;
  }

  private release(): void {
    this.active--;
    const next = this.queue.shift();
    if (next) next();
  }
}

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}

/** Tenants metered at once before those with no debt left are swept. */
const SWEEP_AT = 10_000;

/**
 * Each tenant's share of the notification bytes its upstreams may make this replica read and
 * relay: a GCRA meter with byte weights. Within `burstBytes` a tenant pays nothing; past it,
 * each notification owes the time its bytes take at `bytesPerSecond`, and the call reading it
 * pauses its socket for that long. One tenant's flood then slows that tenant's upstreams (TCP
 * pushes back on them), not the CPU every other tenant's requests need.
 */
export class NotificationPacer {
  /** Theoretical arrival time (ms) per tenant: when its debt is repaid. */
  private readonly tats = new Map<string, number>();
  private readonly pacers = new Map<string, (bytes: number) => number>();
  private readonly msPerByte: number;
  private readonly burstMs: number;

  constructor(
    bytesPerSecond: number,
    burstBytes: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.msPerByte = 1000 / bytesPerSecond;
    this.burstMs = burstBytes * this.msPerByte;
  }

  /** The meter of one tenant's calls: bytes in, ms to pause out (0 within its share). */
  forTenant(tenantId: string): (bytes: number) => number {
    let pace = this.pacers.get(tenantId);
    if (!pace) {
      if (this.pacers.size >= SWEEP_AT) this.sweep();
      pace = (bytes) => this.take(tenantId, bytes);
      this.pacers.set(tenantId, pace);
    }
    return pace;
  }

  take(tenantId: string, bytes: number): number {
    const now = this.now();
    const tat = Math.max(this.tats.get(tenantId) ?? now, now) + bytes * this.msPerByte;
    this.tats.set(tenantId, tat);
    return Math.max(0, Math.ceil(tat - now - this.burstMs));
  }

  /** Tenants metered (tests). */
  get size(): number {
    return this.tats.size;
  }

  private sweep(): void {
    const now = this.now();
    for (const [tenantId, tat] of this.tats) {
      if (tat <= now) {
        this.tats.delete(tenantId);
        this.pacers.delete(tenantId);
      }
    }
    // Every tenant still in debt: start over rather than grow without bound.
    if (this.pacers.size >= SWEEP_AT) {
      this.pacers.clear();
      this.tats.clear();
    }
  }
}

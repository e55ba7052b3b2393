/**
 * Caps password verifications in flight (scrypt at the registry is CPU-bound): at most
 * `perAddress` per client address and `total` overall on this replica. A refused attempt is
 * answered 429 at once — it never waits in a queue and never reaches the registry.
 */
export class VerificationSlots {
  private readonly byAddress = new Map<string, number>();
  private inFlight = 0;

  constructor(
    private readonly perAddress: number,
    private readonly total: number,
  ) {}

  /** A release function, or undefined when a cap is reached. */
  tryAcquire(address: string): (() => void) | undefined {
    const mine = this.byAddress.get(address) ?? 0;
    if (mine >= this.perAddress || this.inFlight >= this.total) return undefined;
    this.byAddress.set(address, mine + 1);
    this.inFlight += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight -= 1;
      const left = (this.byAddress.get(address) ?? 1) - 1;
      if (left <= 0) this.byAddress.delete(address);
      else this.byAddress.set(address, left);
    };
  }
}

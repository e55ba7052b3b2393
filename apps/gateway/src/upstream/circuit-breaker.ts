export interface CircuitBreakerOptions {
  /** Consecutive failures that open the circuit. */
  failureThreshold: number;
  /** How long an open circuit refuses calls before letting one trial call through, in ms. */
  openMs: number;
  now?: () => number;
}

/**
 * A per-upstream circuit breaker: after `failureThreshold` consecutive failures (timeouts,
 * connection errors) calls are refused at once for `openMs`, then one trial call is let
 * through (half-open); its success closes the circuit, its failure opens it again. Keeps a
 * dead upstream from tying up a tenant's concurrency slots and callers' time.
 */
export class CircuitBreaker {
  private failures = 0;
  private openedAt: number | undefined;
  private trialInFlight = false;
  private readonly now: () => number;

  constructor(private readonly options: CircuitBreakerOptions) {
    this.now = options.now ?? Date.now;
  }

  get state(): 'closed' | 'open' | 'half-open' {
    if (this.openedAt === undefined) return 'closed';
    return this.now() - this.openedAt >= this.options.openMs ? 'half-open' : 'open';
  }

  /** Whether a call may proceed now; in half-open only one trial call at a time. */
  tryPass(): boolean {
    const state = this.state;
    if (state === 'closed') return true;
    if (state === 'open' || this.trialInFlight) return false;
    this.trialInFlight = true;
    return true;
  }

  success(): void {
    this.failures = 0;
    this.openedAt = undefined;
    this.trialInFlight = false;
  }

  failure(): void {
    this.failures++;
    if (this.trialInFlight || this.failures >= this.options.failureThreshold) this.openedAt = this.now();
    this.trialInFlight = false;
  }

  /** The passed call ended without telling anything about the upstream (cancelled, refused by the gateway): frees a half-open trial slot. */
  release(): void {
    this.trialInFlight = false;
  }

  /** Milliseconds until a trial call is allowed (0 when not open). */
  get retryInMs(): number {
    return this.openedAt === undefined ? 0 : Math.max(0, this.options.openMs - (this.now() - this.openedAt));
  }
}

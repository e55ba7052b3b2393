/** The registry's tenant id syntax: anything else is unknown without a look-up. */
const TENANT_ID = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** Reads of one tenant restarted because a `catalog:changed` for it arrived mid-read, before the last read is applied anyway. */
const MAX_ATTEMPTS = 3;

export interface ColdLoadsOptions<R, V> {
  /** Reads a tenant from its stores. */
  read(tenantId: string): Promise<R | 'unknown' | 'unavailable'>;
  /** Applies what was read (compiles and installs it); undefined or a throw when it is rejected. */
  apply(tenantId: string, read: R): V | undefined;
  /** Most ids remembered as unknown (oldest forgotten first). */
  negativeMax: number;
  /** How long an unknown id answers without a look-up (a `catalog:changed` for it ends it at once). */
  negativeTtlMs: number;
  /** How long an id answers without a look-up after its stores were unreachable or its document was rejected. */
  unavailableTtlMs: number;
  /** Look-ups of ids not held and not remembered, per second (burst twice as many); past it they are not looked up. */
  fetchesPerSec: number;
  /** `apply` threw. */
  onError?: (tenantId: string, err: Error) => void;
  now?: () => number;
}

export interface ColdLoadStats {
  fetches: number;
  /** Loads that joined a read already in flight for the same tenant. */
  joined: number;
  negativeHits: number;
  /** Look-ups refused because the cold rate was spent. */
  shed: number;
  /** `catalog:changed` messages that found a read of their tenant in flight. */
  changedInFlight: number;
  /** Reads restarted because the tenant changed while they ran. */
  restarted: number;
}

interface Flight<V> {
  promise: Promise<V | undefined>;
  /** A `catalog:changed` for the tenant arrived while this read ran: what it read may be older. */
  stale: boolean;
}

/**
 * The cold path of a tenant working set (the gateway's compiled tenants, auth's documents): the
 * first look-up of a tenant not held reads it, once however many callers wait (they share the
 * flight); an id no store has is remembered for a while in a bounded map apart from the held
 * tenants, so a scan of made-up ids neither evicts real tenants nor costs more than
 * `fetchesPerSec` look-ups a second; a change heard mid-read makes the read start again. The
 * caller checks what it holds first: this sees only misses.
 */
export class ColdLoads<R, V> {
  readonly stats: ColdLoadStats = { fetches: 0, joined: 0, negativeHits: 0, shed: 0, changedInFlight: 0, restarted: 0 };
  private readonly flights = new Map<string, Flight<V>>();
  /** Unknown ids → when they may be looked up again; insertion order is age (oldest dropped past the bound). */
  private readonly negative = new Map<string, number>();
  private tokens: number;
  private refilled: number;
  private readonly now: () => number;

  constructor(private readonly options: ColdLoadsOptions<R, V>) {
    this.now = options.now ?? Date.now;
    this.tokens = options.fetchesPerSec * 2;
    this.refilled = this.now();
  }

  /** What `apply` made of the tenant once read, or undefined (unknown, unreachable, rejected or shed) — at once when nothing is read. */
  load(tenantId: string): Promise<V | undefined> | undefined {
    if (!TENANT_ID.test(tenantId)) return undefined;
    const flight = this.flights.get(tenantId);
    if (flight) {
      this.stats.joined++;
      return flight.promise;
    }
    const until = this.negative.get(tenantId);
    if (until !== undefined) {
      if (until > this.now()) {
        this.stats.negativeHits++;
        return undefined;
      }
      this.negative.delete(tenantId);
    }
    if (!this.take()) {
      this.stats.shed++;
      return undefined;
    }
    // Registered before the read starts, so a change heard from its first step on marks it.
    const started: Flight<V> = { promise: Promise.resolve(undefined), stale: false };
    this.flights.set(tenantId, started);
    started.promise = this.run(tenantId, started);
    return started.promise;
  }

  /** A `catalog:changed` for `tenantId`: forget it was unknown; a read of it in flight reads again. Returns whether one was. */
  invalidate(tenantId: string): boolean {
    this.negative.delete(tenantId);
    const flight = this.flights.get(tenantId);
    if (!flight) return false;
    flight.stale = true;
    this.stats.changedInFlight++;
    return true;
  }

  get negativeSize(): number {
    return this.negative.size;
  }

  private async run(tenantId: string, flight: Flight<V>): Promise<V | undefined> {
    try {
      for (let attempt = 1; ; attempt++) {
        flight.stale = false;
        this.stats.fetches++;
        const got = await this.options.read(tenantId);
        if (flight.stale && attempt < MAX_ATTEMPTS) {
          this.stats.restarted++;
          continue;
        }
        if (got === 'unknown' || got === 'unavailable') {
          this.remember(tenantId, got === 'unknown' ? this.options.negativeTtlMs : this.options.unavailableTtlMs);
          return undefined;
        }
        const applied = this.options.apply(tenantId, got);
        if (applied === undefined) this.remember(tenantId, this.options.unavailableTtlMs);
        return applied;
      }
    } catch (err) {
      this.options.onError?.(tenantId, err as Error);
      this.remember(tenantId, this.options.unavailableTtlMs);
      return undefined;
    } finally {
      // Still inside the read's last continuation: what it applied is installed before anyone can miss it.
      this.flights.delete(tenantId);
    }
  }

  private remember(tenantId: string, ttlMs: number): void {
    if (ttlMs <= 0 || this.options.negativeMax <= 0) return;
    this.negative.delete(tenantId);
    if (this.negative.size >= this.options.negativeMax) this.negative.delete(this.negative.keys().next().value as string);
    this.negative.set(tenantId, this.now() + ttlMs);
  }

  private take(): boolean {
    const now = this.now();
    const rate = this.options.fetchesPerSec;
    this.tokens = Math.min(rate * 2, this.tokens + ((now - this.refilled) / 1000) * rate);
    this.refilled = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

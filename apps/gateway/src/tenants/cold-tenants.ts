import type { McpTarget } from '@switchboard/mcp-http';
import type { TenantCatalog } from '../catalog-source/catalog-source';

/** The registry's tenant id syntax: anything else is unknown without a look-up. */
const TENANT_ID = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** Fetches of one tenant restarted because a `catalog:changed` for it arrived mid-fetch, before the last read is applied anyway. */
const MAX_ATTEMPTS = 3;

export interface ColdTenantsOptions {
  /** Reads a tenant (the source's fetch on use). */
  fetch(tenantId: string): Promise<TenantCatalog | 'unknown' | 'unavailable'>;
  /** Compiles and installs a fetched tenant (the runtime's applyTenant); may throw on a catalog it rejects. */
  apply(tenant: TenantCatalog): McpTarget;
  /** Most ids remembered as unknown (oldest forgotten first). */
  negativeMax: number;
  /** How long an unknown id answers 404 without a look-up (a `catalog:changed` for it ends it at once). */
  negativeTtlMs: number;
  /** How long an id whose stores were all unreachable answers 404 without a look-up. */
  unavailableTtlMs: number;
  /** Look-ups of ids not held and not remembered, per second (burst twice as many); past it they answer 404 without one. */
  fetchesPerSec: number;
  onError?: (tenantId: string, err: Error) => void;
  now?: () => number;
}

export interface ColdStats {
  fetches: number;
  /** Requests that joined a fetch already in flight for the same tenant. */
  joined: number;
  negativeHits: number;
  /** Look-ups refused because the cold rate was spent. */
  shed: number;
  /** `catalog:changed` messages that found a fetch of their tenant in flight. */
  changedInFlight: number;
  /** Fetches restarted because the tenant changed while they ran. */
  restarted: number;
}

interface Flight {
  promise: Promise<McpTarget | undefined>;
  /** A `catalog:changed` for the tenant arrived while this fetch ran: what it read may be older. */
  stale: boolean;
}

/**
 * The working set's cold path: the first request for a tenant not held fetches it, once however
 * many requests wait for it (they share the flight), and an id that is not published is
 * remembered for a while in a bounded map apart from the held tenants, so a scan of made-up
 * ids neither evicts real tenants nor costs more than `fetchesPerSec` look-ups a second.
 */
export class ColdTenants {
  readonly stats: ColdStats = { fetches: 0, joined: 0, negativeHits: 0, shed: 0, changedInFlight: 0, restarted: 0 };
  private readonly flights = new Map<string, Flight>();
  /** Unknown ids → when they may be looked up again; insertion order is age (oldest dropped past the bound). */
  private readonly negative = new Map<string, number>();
  private tokens: number;
  private refilled: number;
  private readonly now: () => number;

  constructor(private readonly options: ColdTenantsOptions) {
    this.now = options.now ?? Date.now;
    this.tokens = options.fetchesPerSec * 2;
    this.refilled = this.now();
  }

  /** The tenant's target once fetched, or undefined (unknown, unreachable, or shed) — synchronously when no fetch is needed. */
  load(tenantId: string): Promise<McpTarget | undefined> | undefined {
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
    // Registered before the fetch starts, so a change heard from its first step on marks it.
    const started: Flight = { promise: Promise.resolve(undefined), stale: false };
    this.flights.set(tenantId, started);
    started.promise = this.run(tenantId, started);
    return started.promise;
  }

  /** A `catalog:changed` for `tenantId`: forget it was unknown, and restart a fetch of it in flight. */
  invalidate(tenantId: string): void {
    this.negative.delete(tenantId);
    const flight = this.flights.get(tenantId);
    if (!flight) return;
    flight.stale = true;
    this.stats.changedInFlight++;
  }

  get negativeSize(): number {
    return this.negative.size;
  }

  private async run(tenantId: string, flight: Flight): Promise<McpTarget | undefined> {
    try {
      for (let attempt = 1; ; attempt++) {
        flight.stale = false;
        this.stats.fetches++;
        const got = await this.options.fetch(tenantId);
        if (flight.stale && attempt < MAX_ATTEMPTS) {
          this.stats.restarted++;
          continue;
        }
        if (got === 'unknown' || got === 'unavailable') {
          this.remember(tenantId, got === 'unknown' ? this.options.negativeTtlMs : this.options.unavailableTtlMs);
          return undefined;
        }
        return this.options.apply(got);
      }
    } catch (err) {
      this.options.onError?.(tenantId, err as Error);
      this.remember(tenantId, this.options.unavailableTtlMs);
      return undefined;
    } finally {
      // Still inside the fetch's last continuation: the target is installed before anyone can miss it.
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

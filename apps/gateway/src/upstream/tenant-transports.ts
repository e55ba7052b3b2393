import type { AsyncLocalStorage } from 'node:async_hooks';
import { limitResponseBytes, type GuardedFetch } from '@switchboard/net-guard';
import { upstreamDispatcher, UpstreamResponseBrokenError, type UpstreamDispatcher } from '@switchboard/upstream-client';
import { summarize } from './call-failure';
import type { CallScope } from './upstream-call';

export interface TenantTransportOptions {
  /** Makes one tenant's fetch (the SSRF-guarded one for tenant-registered upstreams); unset: the global fetch. */
  fetchFactory?: () => GuardedFetch;
  /** Makes one tenant's keep-alive pool for direct requests (with the guarded lookup); unset: an unguarded pool. */
  dispatcherFactory?: () => UpstreamDispatcher;
  /** Direct requests on (default) or off. */
  directRequests?: boolean;
}

/**
 * Each tenant's own fetch and keep-alive pool, so two tenants never share a connection. Every
 * body the fetch reads is counted against the byte limit of the call in scope.
 */
export class TenantTransports {
  private readonly fetches = new Map<string, GuardedFetch>();
  private readonly dispatchers = new Map<string, UpstreamDispatcher>();

  constructor(
    private readonly options: TenantTransportOptions,
    private readonly scope: AsyncLocalStorage<CallScope>,
    /** The tenant's response byte limit, for reads outside any call (the handshake, the standalone stream). */
    private readonly maxBytesOf: (tenantId: string) => number,
  ) {}

  fetchFor(tenantId: string): GuardedFetch {
    let f = this.fetches.get(tenantId);
    if (!f) {
      f = this.limitedFetch(tenantId);
      this.fetches.set(tenantId, f);
    }
    return f;
  }

  /** The tenant's own keep-alive pool for direct requests (undefined: direct requests are off). */
  dispatcherFor(tenantId: string): UpstreamDispatcher | undefined {
    if (this.options.directRequests === false) return undefined;
    let d = this.dispatchers.get(tenantId);
    if (!d) {
      d = this.options.dispatcherFactory?.() ?? upstreamDispatcher();
      this.dispatchers.set(tenantId, d);
    }
    return d;
  }

  async close(): Promise<void> {
    const dispatchers = [...this.dispatchers.values()];
    this.dispatchers.clear();
    await Promise.all(dispatchers.map((d) => d.close().catch(() => undefined)));
  }

  private limitedFetch(tenantId: string): GuardedFetch {
    const inner: GuardedFetch = this.options.fetchFactory?.() ?? ((url, init) => fetch(url, init));
    // Outside a call (the handshake, the standalone GET stream) the transport's signal stays.
    const base: GuardedFetch = (url, init) => {
      const signal = this.scope.getStore()?.signal;
      return inner(url, signal && init ? { ...init, signal } : init);
    };
    return limitResponseBytes(base, () => {
      const scope = this.scope.getStore();
      return {
        maxBytes: scope?.maxBytes ?? this.maxBytesOf(tenantId),
        ...(scope?.maxStreamBytes === undefined ? {} : { maxStreamBytes: scope.maxStreamBytes }),
        onExceeded: (err) => scope?.fail(err),
        // A body broken by the call's own abort (timeout, cancellation) is that abort, not a broken upstream.
        onBroken: (err) => {
          if (!scope?.signal?.aborted)
            scope?.fail(new UpstreamResponseBrokenError(`the response broke off mid-way (${summarize(err as Error)})`, { cause: err }));
        },
      };
    });
  }
}

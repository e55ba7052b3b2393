import { createRemoteJWKSet, customFetch, type JWTVerifyGetKey } from 'jose';
import { guardedFetch, limitResponseBytes, type NetGuardPolicy } from '@switchboard/net-guard';

/** Per JWKS request, body included. */
const JWKS_TIMEOUT_MS = 5_000;
/** Largest JWKS document read (a few keys are a few KiB). */
const JWKS_MAX_BYTES = 64 * 1024;
/** How long fetched keys are used before they are fetched again. */
const JWKS_MAX_AGE_MS = 10 * 60_000;
/** Least time between two fetches triggered by an unknown `kid` (an attacker's tokens cannot make us hammer the IdP). */
const JWKS_COOLDOWN_MS = 30_000;
/** Key sets kept (tenant × IdP); the least recently used one is dropped beyond. */
const MAX_SETS = 2000;

export interface EnterpriseJwksOptions {
  /** The net-guard allow-list (loopback only in development, see upstreamAllowHosts). */
  allowHosts: readonly string[];
  /** Resolver of the pre-request URL check (tests inject one). */
  resolve?: NetGuardPolicy['resolve'];
  timeoutMs?: number;
  maxBytes?: number;
}

/**
 * The signing keys of tenants' enterprise IdPs, fetched with jose's remote key set through
 * libs/net-guard (no private or loopback address at check or connect time, redirects not
 * followed) with a time bound covering the body and a byte cap, and cached per tenant and
 * JWKS URL: the URL is the tenant's choice, so one tenant's IdP never shares a cache entry
 * (or a refetch cooldown) with another's.
 */
export class EnterpriseJwks {
  private readonly sets = new Map<string, JWTVerifyGetKey>();
  private readonly fetch: (url: string, init?: RequestInit) => Promise<Response>;
  private readonly timeoutMs: number;

  constructor(o: EnterpriseJwksOptions) {
    const maxBytes = o.maxBytes ?? JWKS_MAX_BYTES;
    this.timeoutMs = o.timeoutMs ?? JWKS_TIMEOUT_MS;
    const guarded = limitResponseBytes(guardedFetch({ allowHosts: o.allowHosts, ...(o.resolve ? { resolve: o.resolve } : {}) }), () => ({
      maxBytes,
    }));
    const timeoutMs = this.timeoutMs;
    this.fetch = async (url, init) => {
      const deadline = AbortSignal.timeout(timeoutMs);
      const signal = init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
      const res = await guarded(url, { method: 'GET', headers: init?.headers, redirect: 'manual', signal });
      // Buffered here so a slow or oversized body fails inside the deadline and the byte cap.
      const bytes = await res.arrayBuffer();
      return new Response(bytes, { status: res.status, statusText: res.statusText, headers: res.headers });
    };
  }

  /** The key resolver of one tenant's IdP JWKS URL. */
  keys(tenantId: string, jwksUri: string): JWTVerifyGetKey {
    const key = `${tenantId}\u0000${jwksUri}`;
    let set = this.sets.get(key);
    if (set) {
      this.sets.delete(key);
      this.sets.set(key, set);
      return set;
    }
    set = createRemoteJWKSet(new URL(jwksUri), {
      timeoutDuration: this.timeoutMs,
      cacheMaxAge: JWKS_MAX_AGE_MS,
      cooldownDuration: JWKS_COOLDOWN_MS,
      [customFetch]: this.fetch,
    });
    this.sets.set(key, set);
    while (this.sets.size > MAX_SETS) {
      const oldest = this.sets.keys().next().value;
      if (oldest === undefined) break;
      this.sets.delete(oldest);
    }
    return set;
  }
}

import * as client from 'openid-client';
import { boundedFetch, checkUrl, guardedFetch, isAllowedHost, type NetGuardPolicy } from '@switchboard/net-guard';
import { hashId } from '@switchboard/secret-box';

/** Seconds an upstream AS gets per request (discovery, JWKS, code exchange, refresh, revocation), body included. */
const UPSTREAM_TIMEOUT_S = 10;
/** Largest upstream answer read (a discovery document, JWKS or token response is a few KiB). */
const UPSTREAM_MAX_BYTES = 256 * 1024;
const MAX_CONFIGS = 2000;
/** Hosts a development auth service may reach over plain http and inside the loopback range. */
const DEVELOPMENT_HOSTS = ['localhost', '127.0.0.1', '::1'];

/** Where an upstream OpenID provider is and how we authenticate to it. */
export interface UpstreamClientSettings {
  issuer: string;
  clientId: string;
  clientSecret?: string;
}

export interface UpstreamOidcOptions {
  /** Hosts reachable over plain http and not range-checked (the net-guard allow-list). */
  allowHosts: readonly string[];
  /** Per request, body included (default UPSTREAM_TIMEOUT_S). */
  timeoutS?: number;
  /** Per response body (default UPSTREAM_MAX_BYTES). */
  maxBytes?: number;
  /** Resolver of the pre-request URL check (tests inject one; the connect-time check always uses the system's). */
  resolve?: NetGuardPolicy['resolve'];
}

/**
 * The net-guard allow-list of the auth service's outbound calls: AUTH_ALLOW_HTTP_HOSTS when the
 * operator set it, else loopback in development and nothing at all otherwise — a production
 * service never reaches loopback or private addresses because a tenant named them as its IdP.
 */
export function upstreamAllowHosts(config: {
  SWITCHBOARD_ENV: string;
  AUTH_ALLOW_HTTP_HOSTS?: readonly string[] | undefined;
}): readonly string[] {
  if (config.AUTH_ALLOW_HTTP_HOSTS !== undefined) return config.AUTH_ALLOW_HTTP_HOSTS;
  return config.SWITCHBOARD_ENV === 'development' ? DEVELOPMENT_HOSTS : [];
}

/**
 * Discovers upstream OpenID providers (a tenant's enterprise IdP, a connector's AS) with
 * openid-client and caches the result per issuer + client + secret (a rotated client secret
 * takes effect with the next document, not the next restart). Every request the resulting
 * configuration makes — discovery, JWKS, code exchange, refresh, revocation — goes through
 * libs/net-guard (https only, no private or loopback address at check or connect time, every
 * redirect re-checked) with a time bound covering the body and a byte cap: tenants choose these
 * URLs, so a hostile one must not reach inside the cluster or tie up the shared service.
 */
export class UpstreamOidc {
  private readonly configs = new Map<string, Promise<client.Configuration>>();
  private readonly fetch: client.CustomFetch;
  private readonly policy: NetGuardPolicy;
  private readonly timeoutS: number;

  constructor(o: UpstreamOidcOptions) {
    this.policy = { allowHosts: o.allowHosts, ...(o.resolve ? { resolve: o.resolve } : {}) };
    this.timeoutS = o.timeoutS ?? UPSTREAM_TIMEOUT_S;
    const maxBytes = o.maxBytes ?? UPSTREAM_MAX_BYTES;
    this.fetch = upstreamFetch(boundedFetch(guardedFetch(this.policy), { timeoutMs: this.timeoutS * 1000, maxBytes }));
  }

  config(s: UpstreamClientSettings): Promise<client.Configuration> {
    // The secret is part of the key: a rotated connector secret takes effect at once.
    const key = `${s.issuer}|${s.clientId}|${s.clientSecret ? hashId(s.clientSecret) : ''}`;
    let cfg = this.configs.get(key);
    if (!cfg) {
      cfg = this.discover(s);
      cfg.catch(() => this.configs.delete(key));
      // Bounded: tenants control issuers and secrets, so the oldest discovery is dropped past the cap.
      if (this.configs.size >= MAX_CONFIGS) this.configs.delete(this.configs.keys().next().value as string);
      this.configs.set(key, cfg);
    }
    return cfg;
  }

  private async discover(s: UpstreamClientSettings): Promise<client.Configuration> {
    // Checked first so a refused issuer gets net-guard's message, not openid-client's generic https one.
    const url = await checkUrl(s.issuer, this.policy);
    // openid-client refuses http on its own; an allow-listed host may use it (net-guard still checks every other URL).
    const insecure = url.protocol === 'http:' && isAllowedHost(this.policy, url.hostname);
    try {
      return await client.discovery(
        url,
        s.clientId,
        s.clientSecret,
        s.clientSecret ? client.ClientSecretPost(s.clientSecret) : client.None(),
        {
          timeout: this.timeoutS,
          [client.customFetch]: this.fetch,
          ...(insecure ? { execute: [client.allowInsecureRequests] } : {}),
        },
      );
    } catch (err) {
      throw guardCause(err);
    }
  }
}

/** The fetch openid-client uses: net-guarded, byte-capped and under one deadline, body included; redirects are openid-client's to refuse. */
function upstreamFetch(bounded: ReturnType<typeof boundedFetch>): client.CustomFetch {
  return (url, options) =>
    bounded(url, {
      method: options.method,
      headers: options.headers,
      body: options.body as RequestInit['body'],
      redirect: 'manual',
      ...(options.signal ? { signal: options.signal } : {}),
    });
}

/** openid-client wraps fetch failures; the net-guard or size refusal underneath is the error worth showing. */
export function guardCause(err: unknown): unknown {
  let e: unknown = err;
  for (let i = 0; i < 5 && e instanceof Error; i++) {
    if (e.name === 'NetGuardError' || e.name === 'ResponseTooLargeError' || e.name === 'TimeoutError') return e;
    e = e.cause;
  }
  return err;
}

export { client as openidClient };

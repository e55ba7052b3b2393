import * as client from 'openid-client';
import { checkUrl, guardedFetch, isAllowedHost, limitResponseBytes, type GuardedFetch, type NetGuardPolicy } from '@switchboard/net-guard';
import { createHash } from 'node:crypto';

/** Seconds the IdP gets per request (discovery, JWKS, code exchange), body included. */
export const SSO_TIMEOUT_S = 10;
/** Largest IdP answer read (discovery, JWKS and token responses are a few KiB). */
export const SSO_MAX_BYTES = 256 * 1024;
/** Discovered IdP configurations kept (one per tenant issuer + client + secret). */
const MAX_CONFIGS = 1000;

export interface SsoClientSettings {
  issuer: string;
  clientId: string;
  clientSecret: string | undefined;
}

/**
 * openid-client configurations for tenants' console IdPs. Every request a configuration makes
 * (discovery, JWKS, token) goes through libs/net-guard with the registry's policy (https only and
 * no private address unless allow-listed, redirects re-checked), a deadline over the whole
 * exchange and a byte cap: a tenant picks the issuer, so it must not reach inside the cluster or
 * hold the registry. The same shape as the auth service's UpstreamOidc (apps cannot share code).
 */
export class SsoClients {
  private readonly configs = new Map<string, Promise<client.Configuration>>();
  private readonly fetch: client.CustomFetch;

  constructor(private readonly policy: NetGuardPolicy) {
    this.fetch = boundedFetch(
      limitResponseBytes(guardedFetch(policy), () => ({ maxBytes: SSO_MAX_BYTES })),
      SSO_TIMEOUT_S * 1000,
    );
  }

  config(s: SsoClientSettings): Promise<client.Configuration> {
    // The secret is part of the key so a rotated one takes effect at once; only its hash is held here.
    const key = `${s.issuer}|${s.clientId}|${s.clientSecret ? createHash('sha256').update(s.clientSecret).digest('hex') : ''}`;
    let cfg = this.configs.get(key);
    if (!cfg) {
      cfg = this.discover(s);
      cfg.catch(() => this.configs.delete(key));
      if (this.configs.size >= MAX_CONFIGS) this.configs.delete(this.configs.keys().next().value as string);
      this.configs.set(key, cfg);
    }
    return cfg;
  }

  private async discover(s: SsoClientSettings): Promise<client.Configuration> {
    const url = await checkUrl(s.issuer, this.policy);
    // openid-client refuses http by itself; an allow-listed host (development, tests) may use it.
    const insecure = url.protocol === 'http:' && isAllowedHost(this.policy, url.hostname);
    return client.discovery(url, s.clientId, s.clientSecret, s.clientSecret ? client.ClientSecretPost(s.clientSecret) : client.None(), {
      timeout: SSO_TIMEOUT_S,
      [client.customFetch]: this.fetch,
      ...(insecure ? { execute: [client.allowInsecureRequests] } : {}),
    });
  }
}

function boundedFetch(guarded: GuardedFetch, timeoutMs: number): client.CustomFetch {
  return async (url, options) => {
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
    const res = await guarded(url, {
      method: options.method,
      headers: options.headers,
      body: options.body as RequestInit['body'],
      redirect: 'manual',
      signal,
    });
    // Buffered here so a slow or oversized body fails inside this call, bounded by the same deadline and cap.
    const bytes = await res.arrayBuffer();
    return new Response(bytes, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

export { client as openidClient };

import * as client from 'openid-client';
import { hashId } from '@switchboard/secret-box';

/** Seconds an upstream AS gets per request (discovery, code exchange, refresh). */
const UPSTREAM_TIMEOUT_S = 10;
const MAX_CONFIGS = 2000;

/** Where an upstream OpenID provider is and how we authenticate to it. */
export interface UpstreamClientSettings {
  issuer: string;
  clientId: string;
  clientSecret?: string;
}

/**
 * Discovers upstream OpenID providers (a tenant's enterprise IdP, a connector's AS) with
 * openid-client and caches the result per issuer + client + secret (a rotated client secret
 * takes effect with the next document, not the next restart). Plain-http issuers are only
 * accepted on loopback (development and tests).
 */
export class UpstreamOidc {
  private readonly configs = new Map<string, Promise<client.Configuration>>();

  config(s: UpstreamClientSettings): Promise<client.Configuration> {
    // The secret is part of the key: a rotated connector secret takes effect at once.
    const key = `${s.issuer}|${s.clientId}|${s.clientSecret ? hashId(s.clientSecret) : ''}`;
    let cfg = this.configs.get(key);
    if (!cfg) {
      const url = new URL(s.issuer);
      const loopbackHttp = url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
      cfg = client.discovery(url, s.clientId, s.clientSecret, s.clientSecret ? client.ClientSecretPost(s.clientSecret) : client.None(), { timeout: UPSTREAM_TIMEOUT_S, ...(loopbackHttp ? { execute: [client.allowInsecureRequests] } : {}) });
      // Token and refresh requests too: a hanging upstream AS must not hold a vault row lock for long.
      void cfg.then((c) => (c.timeout = UPSTREAM_TIMEOUT_S), () => undefined);
      cfg.catch(() => this.configs.delete(key));
      // Bounded: tenants control issuers and secrets, so the oldest discovery is dropped past the cap.
      if (this.configs.size >= MAX_CONFIGS) this.configs.delete(this.configs.keys().next().value as string);
      this.configs.set(key, cfg);
    }
    return cfg;
  }
}

export { client as openidClient };

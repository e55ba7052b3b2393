import * as client from 'openid-client';
import { hashId } from '@switchboard/secret-box';

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
    const key = `${s.issuer}|${s.clientId}|${s.clientSecret ? hashId(s.clientSecret) : ''}`;
    let cfg = this.configs.get(key);
    if (!cfg) {
      const url = new URL(s.issuer);
      const loopbackHttp = url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
      cfg = client.discovery(url, s.clientId, s.clientSecret, s.clientSecret ? client.ClientSecretPost(s.clientSecret) : client.None(), loopbackHttp ? { execute: [client.allowInsecureRequests] } : undefined);
      cfg.catch(() => this.configs.delete(key));
      this.configs.set(key, cfg);
    }
    return cfg;
  }
}

export { client as openidClient };

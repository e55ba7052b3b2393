import type { AuthGranted } from '@switchboard/mcp-http';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';
const EXCHANGE_TIMEOUT_MS = 5_000;
/** A cached upstream token is reused until this long before it expires. */
const EARLY_EXPIRY_MS = 30_000;
const MAX_CACHED = 10_000;

export type ConnectorCredential =
  | { kind: 'token'; token: string }
  /** The user has not linked the connector yet: send them here. */
  | { kind: 'link'; linkUrl: string }
  | { kind: 'error'; message: string };

export interface ConnectorTokensOptions {
  /** Base URL of the auth service's internal API. */
  authUrl: string;
  /** Its INTERNAL_TOKEN. */
  internalToken: string | undefined;
  fetch?: typeof fetch;
}

/**
 * Per-user credentials for enterprise connectors: the gateway exchanges the caller's
 * verified access token at the auth service's internal token-exchange endpoint (RFC 8693
 * shape) for that user's token at the upstream, which the auth service keeps sealed in its
 * vault and refreshes. The caller's own token goes only to our auth service, never upstream.
 */
export class ConnectorTokens {
  private readonly cache = new Map<string, { token: string; until: number }>();

  constructor(private readonly options: ConnectorTokensOptions) {}

  async credential(tenantId: string, connectorId: string, auth: AuthGranted | undefined): Promise<ConnectorCredential> {
    if (!auth?.token || !auth.subject) return { kind: 'error', message: 'this tool acts on behalf of a signed-in user; the request carried no user token' };
    const key = `${tenantId}\u0000${connectorId}\u0000${auth.subject}\u0000${auth.token}`;
    const cached = this.cache.get(key);
    if (cached && cached.until > Date.now()) return { kind: 'token', token: cached.token };
    let res: Response;
    try {
      res = await (this.options.fetch ?? fetch)(`${this.options.authUrl.replace(/\/+$/, '')}/internal/t/${encodeURIComponent(tenantId)}/token-exchange`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${this.options.internalToken ?? ''}` },
        body: new URLSearchParams({ grant_type: TOKEN_EXCHANGE, subject_token: auth.token, subject_token_type: ACCESS_TOKEN, audience: connectorId }).toString(),
        signal: AbortSignal.timeout(EXCHANGE_TIMEOUT_MS),
      });
    } catch {
      return { kind: 'error', message: 'the credential vault is unavailable; try again shortly' };
    }
    const body = (await res.json().catch(() => ({}))) as { access_token?: string; expires_in?: number; error?: string; link_url?: string };
    if (res.ok && typeof body.access_token === 'string') {
      const lifetimeMs = typeof body.expires_in === 'number' ? body.expires_in * 1000 : 300_000;
      if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(key, { token: body.access_token, until: Date.now() + Math.max(0, lifetimeMs - EARLY_EXPIRY_MS) });
      return { kind: 'token', token: body.access_token };
    }
    if (typeof body.link_url === 'string') return { kind: 'link', linkUrl: body.link_url };
    return { kind: 'error', message: `the credential vault refused the exchange (${body.error ?? res.status})` };
  }
}

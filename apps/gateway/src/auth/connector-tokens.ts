import type { AuthGranted } from '@switchboard/mcp-http';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';
const EXCHANGE_TIMEOUT_MS = 5_000;
/** A cached upstream token is reused until this long before it expires. */
const EARLY_EXPIRY_MS = 30_000;
const MAX_CACHED = 10_000;
/** An answer of the auth service is small; a larger one is not read. */
const MAX_ANSWER_BYTES = 16 * 1024;
/** Characters of the auth service's refusal text passed on in a tool error. */
const MAX_REASON_CHARS = 600;

/** Coded tool errors of per-user connectors (in the result's `_meta["switchboard/error"].code` and at the start of its text). */
export const CONNECTOR_ERRORS = {
  /** The user has no linked account (never linked, unlinked, or the upstream refused a refresh): `linkUrl` says where to link. */
  notLinked: 'GW_CONNECTOR_NOT_LINKED',
  /** The call carried no signed-in user (an open tenant, or no token): per-user servers need one. */
  signInRequired: 'GW_CONNECTOR_SIGN_IN_REQUIRED',
  /** The vault or the upstream's AS could not answer now; the link is kept. */
  unavailable: 'GW_CONNECTOR_UNAVAILABLE',
  /** The connector obtains tokens from the user's enterprise identity and its AS (or the enterprise IdP) refused, with no linked account to fall back on. */
  exchangeRefused: 'GW_CONNECTOR_EXCHANGE_REFUSED',
} as const;

export type ConnectorCredential =
  | { kind: 'token'; token: string }
  /** The user has not linked the connector (or must link it again): send them here. */
  | { kind: 'link'; linkUrl: string; reason: string }
  | { kind: 'error'; code: (typeof CONNECTOR_ERRORS)[keyof typeof CONNECTOR_ERRORS]; message: string };

export interface ConnectorTokensOptions {
  /** Base URL of the auth service's internal API. */
  authUrl: string;
  /** Its INTERNAL_TOKEN. */
  internalToken: string | undefined;
  /**
   * Longest a vaulted token is reused without asking the vault again, in ms (never past its
   * expiry): bounds how long an unlink takes to reach this replica. 0 ⇒ ask on every call.
   */
  cacheMs?: number;
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
    if (!auth?.token || !auth.subject) {
      return {
        kind: 'error',
        code: CONNECTOR_ERRORS.signInRequired,
        message: 'this tool acts on behalf of a signed-in user; the request carried no user token (the tenant must require sign-in)',
      };
    }
    const key = `${tenantId}\u0000${connectorId}\u0000${auth.subject}\u0000${auth.token}`;
    const cached = this.cache.get(key);
    if (cached && cached.until > Date.now()) return { kind: 'token', token: cached.token };
    this.cache.delete(key);
    let res: Response;
    let body: {
      access_token?: unknown;
      expires_in?: unknown;
      error?: unknown;
      error_description?: unknown;
      link_url?: unknown;
      reason?: unknown;
    };
    try {
      res = await (this.options.fetch ?? fetch)(
        `${this.options.authUrl.replace(/\/+$/, '')}/internal/t/${encodeURIComponent(tenantId)}/token-exchange`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${this.options.internalToken ?? ''}` },
          body: new URLSearchParams({
            grant_type: TOKEN_EXCHANGE,
            subject_token: auth.token,
            subject_token_type: ACCESS_TOKEN,
            audience: connectorId,
          }).toString(),
          signal: AbortSignal.timeout(EXCHANGE_TIMEOUT_MS),
        },
      );
      const text = await res.text();
      body = text.length <= MAX_ANSWER_BYTES ? (JSON.parse(text) as typeof body) : {};
    } catch {
      return { kind: 'error', code: CONNECTOR_ERRORS.unavailable, message: 'the credential vault is unavailable; try again shortly' };
    }
    if (res.ok && typeof body.access_token === 'string') {
      const lifetimeMs = typeof body.expires_in === 'number' ? body.expires_in * 1000 : 300_000;
      const keepMs = Math.min(Math.max(0, lifetimeMs - EARLY_EXPIRY_MS), this.options.cacheMs ?? 0);
      if (keepMs > 0) {
        if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value as string);
        this.cache.set(key, { token: body.access_token, until: Date.now() + keepMs });
      }
      return { kind: 'token', token: body.access_token };
    }
    if (body.reason === 'exchange_refused') {
      const why =
        typeof body.error_description === 'string' ? body.error_description.slice(0, MAX_REASON_CHARS) : 'the token exchange was refused';
      const link =
        typeof body.link_url === 'string' && /^https?:\/\//.test(body.link_url)
          ? `; a linked account would be used instead: ${body.link_url}`
          : '';
      return { kind: 'error', code: CONNECTOR_ERRORS.exchangeRefused, message: `${why}${link}` };
    }
    if (typeof body.link_url === 'string' && /^https?:\/\//.test(body.link_url))
      return { kind: 'link', linkUrl: body.link_url, reason: typeof body.reason === 'string' ? body.reason : 'not_linked' };
    const detail = typeof body.error_description === 'string' ? `: ${body.error_description.slice(0, MAX_REASON_CHARS)}` : '';
    return {
      kind: 'error',
      code: CONNECTOR_ERRORS.unavailable,
      message: `the credential vault refused the exchange (${typeof body.error === 'string' ? body.error : res.status}${detail})`,
    };
  }
}

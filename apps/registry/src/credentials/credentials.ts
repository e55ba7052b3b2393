import {
  checkUrl,
  guardedFetch,
  limitResponseBytes,
  stripForbiddenHeaders,
  type GuardedFetch,
  type NetGuardPolicy,
} from '@switchboard/net-guard';
import type { SecretBox } from '@switchboard/secret-box';
import { serverSecretAad } from '../crypto/secret-aad';
import type { Database } from '../db/database';
import type { ServerRow } from '../model/server-row';

const TOKEN_RESPONSE_MAX_BYTES = 64 * 1024;

const TOKEN_MARGIN_MS = 60_000;
const TOKEN_TIMEOUT_MS = 10_000;

/** A credential could not be obtained (OAuth token endpoint refused, unreachable, …). */
export class CredentialError extends Error {
  override readonly name = 'CredentialError';
}

/**
 * Turns a server's auth settings into the headers sent upstream. Static secrets are opened
 * from their sealed form; OAuth client-credentials tokens are fetched (through the SSRF
 * guard), sealed and cached in Postgres until a minute before they expire.
 */
export class Credentials {
  private readonly fetch: GuardedFetch;

  constructor(
    private readonly db: Database,
    private readonly box: SecretBox,
    private readonly policy: NetGuardPolicy,
  ) {
    // A token answer is small; a hostile token endpoint cannot make us buffer more than this.
    this.fetch = limitResponseBytes(guardedFetch(policy), () => ({ maxBytes: TOKEN_RESPONSE_MAX_BYTES }));
  }

  async headers(row: ServerRow): Promise<Record<string, string>> {
    const secret = () => (row.secret ? this.box.open(row.secret, serverSecretAad(row.tenant_id, row.id)) : '');
    switch (row.auth_mode) {
      case 'bearer':
        return { authorization: `Bearer ${secret()}` };
      case 'header':
        // Stripped again at send time: a row stored before the deny-list existed never sends a framing header.
        return stripForbiddenHeaders({ [row.auth_config.header.toLowerCase()]: secret() });
      case 'oauth_client_credentials':
        return { authorization: `Bearer ${await this.clientCredentialsToken(row, secret())}` };
      default:
        // `none`; `oauth_user` tokens are per user and come from the auth service at call time.
        return {};
    }
  }

  /** When the cached token expires (for the refresh job); undefined for other modes. */
  private async clientCredentialsToken(row: ServerRow, clientSecret: string): Promise<string> {
    const aad = `${serverSecretAad(row.tenant_id, row.id)}:token`;
    if (row.token_secret && row.token_expires_at && row.token_expires_at.getTime() - TOKEN_MARGIN_MS > Date.now()) {
      return this.box.open(row.token_secret, aad);
    }
    const cfg = row.auth_config;
    await checkUrl(cfg.tokenUrl, this.policy);
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: cfg.clientId, client_secret: clientSecret });
    if (cfg.scope) form.set('scope', cfg.scope);
    if (cfg.audience) form.set('audience', cfg.audience);
    let res: Response;
    try {
      res = await this.fetch(cfg.tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form,
        // The client secret travels in the body, which a 307/308 would re-send to wherever it points: no redirects at all.
        redirect: 'error',
        signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS),
      });
    } catch (err) {
      throw new CredentialError(`OAuth token endpoint ${cfg.tokenUrl} unreachable: ${(err as Error).message}`, { cause: err });
    }
    const body = (await res.json().catch(() => ({}))) as { access_token?: unknown; expires_in?: unknown; error?: unknown };
    if (!res.ok || typeof body.access_token !== 'string') {
      throw new CredentialError(`OAuth token endpoint answered ${res.status}${typeof body.error === 'string' ? ` (${body.error})` : ''}`);
    }
    const expiresIn = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 3600;
    const expiresAt = new Date(Date.now() + expiresIn * 1000);
    await this.db.query('UPDATE registry.servers SET token_secret = $3, token_expires_at = $4 WHERE tenant_id = $1 AND id = $2', [
      row.tenant_id,
      row.id,
      this.box.seal(body.access_token, aad),
      expiresAt,
    ]);
    row.token_expires_at = expiresAt;
    return body.access_token;
  }
}

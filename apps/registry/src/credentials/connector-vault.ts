import type { Queryable } from '../db/database';
import type { ConnectorRow } from '../model/tenant-auth-store';

const VAULT_TIMEOUT_MS = 10_000;
const MAX_ANSWER_BYTES = 16 * 1024;

/** Why the vault gave no admin token: not configured / not linked (final), or unreachable (retry). */
export class ConnectorVaultError extends Error {
  override readonly name = 'ConnectorVaultError';

  constructor(
    readonly code: 'CONNECTOR_NOT_CONFIGURED' | 'CONNECTOR_NOT_LINKED' | 'UNAVAILABLE',
    message: string,
  ) {
    super(message);
  }

  /** Retrying cannot help until an admin acts. */
  get final(): boolean {
    return this.code !== 'UNAVAILABLE';
  }
}

/** The tenant admin's linked account of a connector, as the auth service reports it (no token material). */
export interface AdminAccount {
  linked: boolean;
  expiresAt?: number;
  refreshable?: boolean;
  updatedAt?: number;
}

/**
 * The registry's client of the auth service's vault (internal API, Bearer INTERNAL_TOKEN): the
 * tenant admin's upstream account per connector — start a link, read its state, unlink, and
 * the admin's token for discovering an `oauth_user` server. Every call sends the connector's
 * settings from Postgres (the registry is their source; auth may not have the tenant's document
 * yet, e.g. before its first publish). Tokens only ever go to discovery, never into a catalog.
 */
export class ConnectorVault {
  constructor(
    private readonly authUrl: string | undefined,
    private readonly internalToken: string,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  /** A one-time URL (10 min) the admin opens in a browser to link the upstream account. */
  async startLink(q: Queryable, tenantId: string, serverId: string): Promise<{ linkUrl: string; expiresIn: number }> {
    const body = await this.call('POST', tenantId, serverId, 'admin-link', await this.settings(q, tenantId, serverId));
    return { linkUrl: String(body.link_url), expiresIn: Number(body.expires_in) };
  }

  async account(tenantId: string, serverId: string): Promise<AdminAccount> {
    const b = await this.call('GET', tenantId, serverId, 'admin-account');
    return {
      linked: b.linked === true,
      ...(typeof b.expiresAt === 'number' ? { expiresAt: b.expiresAt } : {}),
      ...(typeof b.refreshable === 'boolean' ? { refreshable: b.refreshable } : {}),
      ...(typeof b.updatedAt === 'number' ? { updatedAt: b.updatedAt } : {}),
    };
  }

  async unlink(tenantId: string, serverId: string): Promise<boolean> {
    return (await this.call('DELETE', tenantId, serverId, 'admin-account')).unlinked === true;
  }

  /** Headers for discovering an `oauth_user` server: the admin's upstream token (refreshed by auth when due). */
  async discoveryHeaders(q: Queryable, tenantId: string, serverId: string): Promise<Record<string, string>> {
    const body = await this.call('POST', tenantId, serverId, 'admin-token', await this.settings(q, tenantId, serverId));
    return { authorization: `Bearer ${String(body.access_token)}` };
  }

  private async settings(q: Queryable, tenantId: string, serverId: string): Promise<{ connector: Record<string, unknown> }> {
    const rows = await q.query<ConnectorRow>(
      'SELECT server_id, issuer, client_id, scopes, secret FROM registry.tenant_connectors WHERE tenant_id = $1 AND server_id = $2',
      [tenantId, serverId],
    );
    const c = rows[0];
    if (!c)
      throw new ConnectorVaultError(
        'CONNECTOR_NOT_CONFIGURED',
        `server ${serverId} has no connector: set its OAuth issuer and client with PUT /v1/servers/${serverId}/connector`,
      );
    return { connector: { issuer: c.issuer, clientId: c.client_id, scopes: c.scopes, ...(c.secret ? { clientSecret: c.secret } : {}) } };
  }

  private async call(method: string, tenantId: string, serverId: string, what: string, body?: unknown): Promise<Record<string, unknown>> {
    if (!this.authUrl)
      throw new ConnectorVaultError('UNAVAILABLE', 'the auth service is not configured (AUTH_INTERNAL_URL): accounts cannot be linked');
    let res: Response;
    let answer: Record<string, unknown> = {};
    try {
      res = await this.fetchImpl(
        `${this.authUrl.replace(/\/+$/, '')}/internal/t/${encodeURIComponent(tenantId)}/connectors/${encodeURIComponent(serverId)}/${what}`,
        {
          method,
          headers: { authorization: `Bearer ${this.internalToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
          ...(body ? { body: JSON.stringify(body) } : {}),
          redirect: 'error',
          signal: AbortSignal.timeout(VAULT_TIMEOUT_MS),
        },
      );
      const text = await res.text();
      if (text.length <= MAX_ANSWER_BYTES) answer = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new ConnectorVaultError('UNAVAILABLE', 'the auth service (credential vault) is unreachable; try again shortly');
    }
    if (res.ok) return answer;
    if (res.status === 400 && answer.error === 'invalid_grant') {
      const again = answer.reason === 'refresh_failed' ? ' (the upstream refused to renew access: link it again)' : '';
      throw new ConnectorVaultError(
        'CONNECTOR_NOT_LINKED',
        `no upstream account is linked for server ${serverId}${again}: link one with POST /v1/servers/${serverId}/connector/link`,
      );
    }
    throw new ConnectorVaultError(
      'UNAVAILABLE',
      `the credential vault answered ${res.status}${typeof answer.error === 'string' ? ` (${answer.error})` : ''}`,
    );
  }
}

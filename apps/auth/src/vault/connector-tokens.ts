import { openidClient } from '../federation/upstream-oidc';
import type { AuthServices } from '../auth-services';
import type { ConnectorSettings } from '../tenants/tenant-auth';
import type { RefreshOutcome, VaultedTokens } from './vault-store';

/** Why no token can be handed out: never linked / unlinked, the upstream refused the refresh, or a transient failure. */
export type TokenResult = { kind: 'ok'; tokens: VaultedTokens } | { kind: 'not_linked' | 'refresh_failed' | 'unavailable' };

/** A connector's vaulted tokens, refreshed at its upstream AS when they are about to expire. */
export class ConnectorTokens {
  constructor(private readonly s: AuthServices) {}

  /**
   * The vaulted tokens of (tenant, subject, connector), refreshed when they expire within
   * VAULT_REFRESH_SKEW_S. Several replicas asking at once refresh once (VaultStore.refreshOnce).
   */
  async tokensFor(
    tenantId: string,
    subject: string,
    connectorId: string,
    connector: ConnectorSettings,
    signal?: AbortSignal,
  ): Promise<TokenResult> {
    const skew = this.s.config.VAULT_REFRESH_SKEW_S;
    const stale = (t: VaultedTokens) => t.expiresAt !== undefined && t.expiresAt - skew <= Math.floor(Date.now() / 1000);
    const tokens = await this.s.vault.get(tenantId, subject, connectorId);
    if (!tokens) return { kind: 'not_linked' };
    if (!stale(tokens)) return { kind: 'ok', tokens };
    const r = await this.s.vault.refreshOnce(
      tenantId,
      subject,
      connectorId,
      stale,
      (t) => this.refresh(tenantId, connectorId, connector, t),
      signal,
    );
    if (r.tokens) return { kind: 'ok', tokens: r.tokens };
    if (r.outcome === 'refused') return { kind: 'refresh_failed' };
    if (r.outcome === 'unavailable') return { kind: 'unavailable' };
    return { kind: 'not_linked' };
  }

  private async refresh(
    tenantId: string,
    connectorId: string,
    connector: ConnectorSettings,
    current: VaultedTokens,
  ): Promise<RefreshOutcome> {
    let cfg;
    try {
      cfg = await this.s.upstream.config(this.clientSettings(tenantId, connectorId, connector));
    } catch {
      return { kind: 'unavailable' };
    }
    try {
      const t = await openidClient.refreshTokenGrant(cfg, current.refreshToken ?? '');
      this.s.logger.info({ tenant: tenantId, connector: connectorId }, 'connector token refreshed');
      return { kind: 'ok', tokens: { ...toVaulted(t), refreshToken: t.refresh_token ?? current.refreshToken } };
    } catch (err) {
      // The AS answered with an OAuth error (invalid_grant: revoked, expired, reused): relink. Anything else is transient.
      const refused = err instanceof openidClient.ResponseBodyError && err.status >= 400 && err.status < 500;
      this.s.logger.warn(
        { err: (err as Error).message, tenant: tenantId, connector: connectorId, refused },
        refused ? 'connector refresh refused; relink needed' : 'connector refresh failed; will retry',
      );
      return refused ? { kind: 'refused' } : { kind: 'unavailable' };
    }
  }

  /** The upstream client of a connector, its secret opened. */
  clientSettings(tenantId: string, connectorId: string, c: ConnectorSettings) {
    return {
      issuer: c.issuer,
      clientId: c.clientId,
      clientSecret: this.s.secrets.open(tenantId, `connector:${connectorId}`, c.clientSecret),
    };
  }
}

/** Vaulted tokens of an OAuth token response (expiry made absolute). */
export function toVaulted(t: { access_token: string; refresh_token?: string; expires_in?: number }): VaultedTokens {
  return {
    accessToken: t.access_token,
    ...(t.refresh_token ? { refreshToken: t.refresh_token } : {}),
    ...(t.expires_in !== undefined ? { expiresAt: Math.floor(Date.now() / 1000) + t.expires_in } : {}),
  };
}

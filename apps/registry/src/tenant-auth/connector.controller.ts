import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Put, UseGuards } from '@nestjs/common';
import { tenantSecretAad } from '@switchboard/catalog';
import type { GuardedFetch, NetGuardPolicy } from '@switchboard/net-guard';
import { SecretBox } from '@switchboard/secret-box';
import { ConnectorVault, ConnectorVaultError } from '../credentials/connector-vault';
import { Database } from '../db/database';
import { ApiOperation, ApiTag } from '../docs/api-operation';
import { connectorAccountSchema, connectorLinkSchema, tenantAuthViewSchema } from '../docs/tenant-response-schemas';
import { ApiError } from '../http/api-error';
import type { TenantPrincipal } from '../http/authenticator';
import { checkIssuer } from '../http/check-issuer';
import { parseInput } from '../http/parse-input';
import { GUARDED_FETCH, NET_POLICY } from '../http/registry-tokens';
import { serverIdParams } from '../http/schemas';
import { Tenant, TenantGuard } from '../http/tenant-guard';
import { audit } from '../model/audit';
import { loadTenantAuth, tenantAuthView } from '../model/tenant-auth-store';
import { emitWebhookEvent } from '../model/webhook-events';
import { Publisher } from '../publishing/publisher';
import { resolveConnectorGrant } from './connector-grant';
import { pushIfPublished } from './push-if-published';
import { connectorBody } from './tenant-auth-body';

/**
 * Enterprise connectors per upstream server (calls carry each user's own token) and the admin's
 * own linked account at the auth service's vault. Changes are validated, audited and re-pushed.
 */
@Controller('v1')
@ApiTag('Tenant auth')
export class ConnectorController {
  constructor(
    @Inject(Database) private readonly db: Database,
    @Inject(SecretBox) private readonly box: SecretBox,
    @Inject(ConnectorVault) private readonly vault: ConnectorVault,
    @Inject(Publisher) private readonly publisher: Publisher,
    @Inject(NET_POLICY) private readonly policy: NetGuardPolicy,
    @Inject(GUARDED_FETCH) private readonly fetch: GuardedFetch,
  ) {}

  @Put('servers/:id/connector')
  @ApiOperation({
    operationId: 'setConnector',
    summary:
      "Make the server an enterprise connector: calls carry each user's own token, obtained with this OAuth client (issuer discovery-checked through the SSRF guard; secret sealed). With `grant` the token comes from the user's enterprise identity first — `token_exchange` (RFC 8693 at the issuer) or `cross_app` (ID-JAG from `idpIssuer`, then JWT-bearer at the issuer) — and the linked account from the auth service's vault is the fallback; `grant` left out keeps the stored one, null removes it. Audited",
    auth: 'tenant',
    body: connectorBody,
    params: serverIdParams,
    response: tenantAuthViewSchema,
  })
  @UseGuards(TenantGuard)
  async setConnector(@Tenant() { tenantId, actor }: TenantPrincipal, @Param() params: unknown, @Body() body: unknown) {
    const { id } = parseInput(serverIdParams, params, 'params');
    const input = parseInput(connectorBody, body, 'body');
    const servers = await this.db.query('SELECT 1 FROM registry.servers WHERE tenant_id = $1 AND id = $2', [tenantId, id]);
    if (servers.length === 0) throw ApiError.notFound('server', id, 'params.id');
    const current = (await loadTenantAuth(this.db, tenantId))?.connectors[id];
    const issuerMetadata = await checkIssuer(this.fetch, input.issuer, 'body.issuer', [
      'oauth-authorization-server',
      'openid-configuration',
    ]);
    const grant = await resolveConnectorGrant({
      tenantId,
      serverId: id,
      input: input.grant,
      current: current?.grant,
      issuerMetadata,
      fetch: this.fetch,
      box: this.box,
    });
    const keep = current && current.issuer === input.issuer && current.clientId === input.clientId ? current.clientSecret : undefined;
    const secret =
      input.clientSecret === undefined
        ? keep
        : input.clientSecret === null
          ? undefined
          : this.box.seal(input.clientSecret, tenantSecretAad(tenantId, `connector:${id}`));
    await this.db.tx(async (q) => {
      // Connectors live in the document's `auth`: make sure the tenant has one (not protected until turned on).
      await q.query('INSERT INTO registry.tenant_auth (tenant_id) VALUES ($1) ON CONFLICT (tenant_id) DO NOTHING', [tenantId]);
      await q.query(
        `INSERT INTO registry.tenant_connectors (tenant_id, server_id, issuer, client_id, scopes, secret, grant_settings) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (tenant_id, server_id) DO UPDATE SET issuer = EXCLUDED.issuer, client_id = EXCLUDED.client_id, scopes = EXCLUDED.scopes, secret = EXCLUDED.secret, grant_settings = EXCLUDED.grant_settings, updated_at = now()`,
        [tenantId, id, input.issuer, input.clientId, JSON.stringify(input.scopes), secret ?? null, grant ? JSON.stringify(grant) : null],
      );
      await audit(q, tenantId, actor, 'connector.set', id, {
        issuer: input.issuer,
        clientId: input.clientId,
        scopes: input.scopes,
        secretChanged: input.clientSecret !== undefined,
        grant: grant
          ? { kind: grant.kind, ...(grant.kind === 'cross_app' ? { idpIssuer: grant.idpIssuer, idpClientId: grant.idpClientId } : {}) }
          : null,
      });
    });
    return { ...tenantAuthView(await loadTenantAuth(this.db, tenantId)), pushed: await this.push(tenantId) };
  }

  @Delete('servers/:id/connector')
  @ApiOperation({
    operationId: 'removeConnector',
    summary: 'Stop treating the server as a connector (audited); 409 CONFLICT while it is a published oauth_user server',
    auth: 'tenant',
    params: serverIdParams,
    response: tenantAuthViewSchema,
  })
  @UseGuards(TenantGuard)
  async removeConnector(@Tenant() { tenantId, actor }: TenantPrincipal, @Param() params: unknown) {
    const { id } = parseInput(serverIdParams, params, 'params');
    // A published `oauth_user` server without its connector would be called with no credential at all.
    const published = await this.db.query(
      "SELECT 1 FROM registry.servers s JOIN registry.publications p ON p.tenant_id = s.tenant_id AND p.server_id = s.id WHERE s.tenant_id = $1 AND s.id = $2 AND s.auth_mode = 'oauth_user' LIMIT 1",
      [tenantId, id],
    );
    if (published.length > 0)
      throw new ApiError(
        409,
        'CONFLICT',
        `params.id: server "${id}" is a published per-user OAuth server; unpublish it before removing its connector`,
        'params.id',
      );
    const removed = await this.db.tx(async (q) => {
      const rows = await q.query('DELETE FROM registry.tenant_connectors WHERE tenant_id = $1 AND server_id = $2 RETURNING server_id', [
        tenantId,
        id,
      ]);
      if (rows.length > 0) {
        await audit(q, tenantId, actor, 'connector.remove', id);
        await emitWebhookEvent(q, tenantId, 'connector.unlinked', { serverId: id, by: actor, what: 'connector' });
      }
      return rows.length > 0;
    });
    if (!removed) throw ApiError.notFound('connector of server', id, 'params.id');
    return { ...tenantAuthView(await loadTenantAuth(this.db, tenantId)), pushed: await this.push(tenantId) };
  }

  /**
   * Starts linking the tenant admin's own upstream account for a connector (issue 11,
   * `oauth_user` servers): a one-time URL at the auth service (10 min) that the admin opens in
   * a browser; the token lands sealed in auth's vault and is used only to discover the server.
   */
  @Post('servers/:id/connector/link')
  @ApiOperation({
    operationId: 'startConnectorLink',
    summary:
      "Start linking the tenant admin's own upstream account for the server's connector: returns a one-time linkUrl (at the auth service, expiresIn seconds) to open in a browser; the token is sealed in auth's vault, refreshed there, and used only to discover oauth_user servers. 409 CONNECTOR_NOT_CONFIGURED without a connector; 503 UNAVAILABLE when auth is unreachable. Audited",
    auth: 'tenant',
    params: serverIdParams,
    response: connectorLinkSchema,
  })
  @HttpCode(200)
  @UseGuards(TenantGuard)
  async startLink(@Tenant() { tenantId, actor }: TenantPrincipal, @Param() params: unknown) {
    const { id } = parseInput(serverIdParams, params, 'params');
    await this.requireServer(tenantId, id);
    const link = await vaultCall(() => this.vault.startLink(this.db, tenantId, id));
    await audit(this.db, tenantId, actor, 'connector.link_started', id);
    return { serverId: id, ...link };
  }

  /** Whether the tenant admin's upstream account is linked for this server's connector (no token material). */
  @Get('servers/:id/connector/account')
  @ApiOperation({
    operationId: 'getConnectorAccount',
    summary:
      "Whether the tenant admin's upstream account is linked for this connector (linked, expiresAt, refreshable, updatedAt; never a token)",
    auth: 'tenant',
    params: serverIdParams,
    response: connectorAccountSchema,
  })
  @UseGuards(TenantGuard)
  async account(@Tenant() { tenantId }: TenantPrincipal, @Param() params: unknown) {
    const { id } = parseInput(serverIdParams, params, 'params');
    await this.requireServer(tenantId, id);
    return { serverId: id, ...(await vaultCall(() => this.vault.account(tenantId, id))) };
  }

  /** Unlinks the tenant admin's upstream account (discovery of an `oauth_user` server then needs a new link). */
  @Delete('servers/:id/connector/account')
  @ApiOperation({
    operationId: 'unlinkConnectorAccount',
    summary: "Unlink the tenant admin's upstream account (404 when none is linked). Audited",
    auth: 'tenant',
    params: serverIdParams,
  })
  @UseGuards(TenantGuard)
  async unlinkAccount(@Tenant() { tenantId, actor }: TenantPrincipal, @Param() params: unknown) {
    const { id } = parseInput(serverIdParams, params, 'params');
    await this.requireServer(tenantId, id);
    const unlinked = await vaultCall(() => this.vault.unlink(tenantId, id));
    if (!unlinked) throw new ApiError(404, 'NOT_FOUND', `params.id: no account is linked for server "${id}"`, 'params.id');
    await this.db.tx(async (q) => {
      await audit(q, tenantId, actor, 'connector.unlink', id);
      await emitWebhookEvent(q, tenantId, 'connector.unlinked', { serverId: id, by: actor, what: 'account' });
    });
    return { serverId: id, unlinked: true };
  }

  private async requireServer(tenantId: string, id: string): Promise<void> {
    const servers = await this.db.query('SELECT 1 FROM registry.servers WHERE tenant_id = $1 AND id = $2', [tenantId, id]);
    if (servers.length === 0) throw ApiError.notFound('server', id, 'params.id');
  }

  private push(tenantId: string): Promise<'ok' | 'unavailable' | null> {
    return pushIfPublished(this.db, this.publisher, tenantId);
  }
}

/** Vault failures as admin API errors: no connector / not linked ⇒ 409, auth unreachable ⇒ 503. */
async function vaultCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof ConnectorVaultError)) throw err;
    if (err.code === 'UNAVAILABLE') throw new ApiError(503, 'UNAVAILABLE', err.message);
    throw new ApiError(409, err.code, `params.id: ${err.message}`, 'params.id');
  }
}

import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Put, Req } from '@nestjs/common';
import { tenantAuthSchema, tenantSecretAad, type TenantAuthSettings } from '@switchboard/catalog';
import { guardedFetch, type GuardedFetch } from '@switchboard/net-guard';
import type { FastifyRequest } from 'fastify';
import type { Queryable } from '../db/database';
import { ApiError } from '../http/api-error';
import { parseInput } from '../http/parse-input';
import { serverIdParams } from '../http/schemas';
import { loadTenant } from '../publishing/build-snapshot';
import { REGISTRY_CONTEXT, type RegistryContext } from '../registry-context';
import { audit } from '../tenants/audit';
import { ConnectorVaultError } from '../servers/connector-vault';
import { checkIssuer } from './check-issuer';
import { connectorBody, tenantAuthBody } from './tenant-auth-body';
import { loadTenantAuth, tenantAuthView } from './tenant-auth-store';

/**
 * The tenant's OAuth settings (issue 11): protection on/off, scopes, per-tool scopes, the
 * enterprise IdP (client secret sealed at once, never shown again) and connectors per
 * upstream server. Every change is validated (fields named), the IdP issuer's discovery
 * document is fetched through the SSRF guard before saving, the change is audited, and a
 * published tenant's document is re-pushed so every gateway and auth replica swaps it.
 */
@Controller('v1')
export class TenantAuthController {
  private readonly fetch: GuardedFetch;

  constructor(@Inject(REGISTRY_CONTEXT) private readonly ctx: RegistryContext) {
    this.fetch = guardedFetch(ctx.policy);
  }

  @Get('tenant/auth')
  async get(@Req() req: FastifyRequest) {
    const { tenantId } = await this.ctx.auth.tenant(req);
    return tenantAuthView(await loadTenantAuth(this.ctx.db, tenantId));
  }

  @Patch('tenant/auth')
  async update(@Req() req: FastifyRequest, @Body() body: unknown) {
    const { tenantId, actor } = await this.ctx.auth.tenant(req);
    const input = parseInput(tenantAuthBody, body, 'body');
    const current = await loadTenantAuth(this.ctx.db, tenantId);
    const base: TenantAuthSettings = current ?? tenantAuthSchema.parse({ protected: false });
    let idp = base.idp;
    if (input.idp?.kind === 'local') idp = { kind: 'local' };
    if (input.idp?.kind === 'oidc') {
      const sameClient = base.idp.kind === 'oidc' && base.idp.issuer === input.idp.issuer && base.idp.clientId === input.idp.clientId;
      const keep = sameClient && base.idp.kind === 'oidc' ? base.idp.clientSecret : undefined;
      const secret = input.idp.clientSecret === undefined ? keep : input.idp.clientSecret === null ? undefined : this.ctx.box.seal(input.idp.clientSecret, tenantSecretAad(tenantId, 'idp'));
      idp = {
        kind: 'oidc',
        issuer: input.idp.issuer,
        clientId: input.idp.clientId,
        scopes: input.idp.scopes ?? (base.idp.kind === 'oidc' ? base.idp.scopes : ['openid', 'email', 'profile']),
        ...(secret ? { clientSecret: secret } : {}),
      };
      if (!(base.idp.kind === 'oidc' && base.idp.issuer === input.idp.issuer)) await checkIssuer(this.fetch, input.idp.issuer, 'body.idp.issuer', ['openid-configuration']);
    }
    const next: TenantAuthSettings = {
      ...base,
      ...(input.protected !== undefined ? { protected: input.protected } : {}),
      ...(input.scopes ? { scopes: input.scopes } : {}),
      ...(input.toolScopes ? { toolScopes: input.toolScopes } : {}),
      ...(input.allowPrivateUseRedirects !== undefined ? { allowPrivateUseRedirects: input.allowPrivateUseRedirects } : {}),
      idp,
    };
    if (input.defaultScopes === null) delete next.defaultScopes;
    else if (input.defaultScopes) next.defaultScopes = input.defaultScopes;
    const unknown = (next.defaultScopes ?? []).find((s) => !next.scopes.includes(s));
    if (unknown) {
      const field = input.defaultScopes ? 'body.defaultScopes' : 'body.scopes';
      throw new ApiError(400, 'VALIDATION', `${field}: default scope "${unknown}" is not one of the tenant's scopes`, field, { issues: [{ field, message: `default scope "${unknown}" is not one of the tenant's scopes` }] });
    }
    await this.ctx.db.tx(async (q) => {
      await loadTenant(q, tenantId);
      await saveTenantAuth(q, tenantId, next);
      await audit(q, tenantId, actor, 'auth.update', tenantId, {
        fields: Object.keys(input),
        protected: next.protected,
        idp: next.idp.kind === 'oidc' ? { kind: 'oidc', issuer: next.idp.issuer, clientId: next.idp.clientId, secretChanged: input.idp?.kind === 'oidc' && input.idp.clientSecret !== undefined } : { kind: 'local' },
      });
    });
    return { ...tenantAuthView(await loadTenantAuth(this.ctx.db, tenantId)), pushed: await this.push(tenantId) };
  }

  @Put('servers/:id/connector')
  async setConnector(@Req() req: FastifyRequest, @Param() params: unknown, @Body() body: unknown) {
    const { tenantId, actor } = await this.ctx.auth.tenant(req);
    const { id } = parseInput(serverIdParams, params, 'params');
    const input = parseInput(connectorBody, body, 'body');
    const servers = await this.ctx.db.query('SELECT 1 FROM registry.servers WHERE tenant_id = $1 AND id = $2', [tenantId, id]);
    if (servers.length === 0) throw ApiError.notFound('server', id, 'params.id');
    const current = (await loadTenantAuth(this.ctx.db, tenantId))?.connectors[id];
    await checkIssuer(this.fetch, input.issuer, 'body.issuer', ['oauth-authorization-server', 'openid-configuration']);
    const keep = current && current.issuer === input.issuer && current.clientId === input.clientId ? current.clientSecret : undefined;
    const secret = input.clientSecret === undefined ? keep : input.clientSecret === null ? undefined : this.ctx.box.seal(input.clientSecret, tenantSecretAad(tenantId, `connector:${id}`));
    await this.ctx.db.tx(async (q) => {
      // Connectors live in the document's `auth`: make sure the tenant has one (not protected until turned on).
      await q.query('INSERT INTO registry.tenant_auth (tenant_id) VALUES ($1) ON CONFLICT (tenant_id) DO NOTHING', [tenantId]);
      await q.query(
        `INSERT INTO registry.tenant_connectors (tenant_id, server_id, issuer, client_id, scopes, secret) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (tenant_id, server_id) DO UPDATE SET issuer = EXCLUDED.issuer, client_id = EXCLUDED.client_id, scopes = EXCLUDED.scopes, secret = EXCLUDED.secret, updated_at = now()`,
        [tenantId, id, input.issuer, input.clientId, JSON.stringify(input.scopes), secret ?? null],
      );
      await audit(q, tenantId, actor, 'connector.set', id, { issuer: input.issuer, clientId: input.clientId, scopes: input.scopes, secretChanged: input.clientSecret !== undefined });
    });
    return { ...tenantAuthView(await loadTenantAuth(this.ctx.db, tenantId)), pushed: await this.push(tenantId) };
  }

  @Delete('servers/:id/connector')
  async removeConnector(@Req() req: FastifyRequest, @Param() params: unknown) {
    const { tenantId, actor } = await this.ctx.auth.tenant(req);
    const { id } = parseInput(serverIdParams, params, 'params');
    // A published `oauth_user` server without its connector would be called with no credential at all.
    const published = await this.ctx.db.query(
      "SELECT 1 FROM registry.servers s JOIN registry.publications p ON p.tenant_id = s.tenant_id AND p.server_id = s.id WHERE s.tenant_id = $1 AND s.id = $2 AND s.auth_mode = 'oauth_user' LIMIT 1",
      [tenantId, id],
    );
    if (published.length > 0) throw new ApiError(409, 'CONFLICT', `params.id: server "${id}" is a published per-user OAuth server; unpublish it before removing its connector`, 'params.id');
    const removed = await this.ctx.db.tx(async (q) => {
      const rows = await q.query('DELETE FROM registry.tenant_connectors WHERE tenant_id = $1 AND server_id = $2 RETURNING server_id', [tenantId, id]);
      if (rows.length > 0) await audit(q, tenantId, actor, 'connector.remove', id);
      return rows.length > 0;
    });
    if (!removed) throw ApiError.notFound('connector of server', id, 'params.id');
    return { ...tenantAuthView(await loadTenantAuth(this.ctx.db, tenantId)), pushed: await this.push(tenantId) };
  }

  /**
   * Starts linking the tenant admin's own upstream account for a connector (issue 11,
   * `oauth_user` servers): a one-time URL at the auth service (10 min) that the admin opens in
   * a browser; the token lands sealed in auth's vault and is used only to discover the server.
   */
  @Post('servers/:id/connector/link')
  @HttpCode(200)
  async startLink(@Req() req: FastifyRequest, @Param() params: unknown) {
    const { tenantId, actor } = await this.ctx.auth.tenant(req);
    const { id } = parseInput(serverIdParams, params, 'params');
    await this.requireServer(tenantId, id);
    const link = await vaultCall(() => this.ctx.vault.startLink(this.ctx.db, tenantId, id));
    await audit(this.ctx.db, tenantId, actor, 'connector.link_started', id);
    return { serverId: id, ...link };
  }

  /** Whether the tenant admin's upstream account is linked for this server's connector (no token material). */
  @Get('servers/:id/connector/account')
  async account(@Req() req: FastifyRequest, @Param() params: unknown) {
    const { tenantId } = await this.ctx.auth.tenant(req);
    const { id } = parseInput(serverIdParams, params, 'params');
    await this.requireServer(tenantId, id);
    return { serverId: id, ...(await vaultCall(() => this.ctx.vault.account(tenantId, id))) };
  }

  /** Unlinks the tenant admin's upstream account (discovery of an `oauth_user` server then needs a new link). */
  @Delete('servers/:id/connector/account')
  async unlinkAccount(@Req() req: FastifyRequest, @Param() params: unknown) {
    const { tenantId, actor } = await this.ctx.auth.tenant(req);
    const { id } = parseInput(serverIdParams, params, 'params');
    await this.requireServer(tenantId, id);
    const unlinked = await vaultCall(() => this.ctx.vault.unlink(tenantId, id));
    if (!unlinked) throw new ApiError(404, 'NOT_FOUND', `params.id: no account is linked for server "${id}"`, 'params.id');
    await audit(this.ctx.db, tenantId, actor, 'connector.unlink', id);
    return { serverId: id, unlinked: true };
  }

  private async requireServer(tenantId: string, id: string): Promise<void> {
    const servers = await this.ctx.db.query('SELECT 1 FROM registry.servers WHERE tenant_id = $1 AND id = $2', [tenantId, id]);
    if (servers.length === 0) throw ApiError.notFound('server', id, 'params.id');
  }

  /** Re-pushes a published tenant's document (settings changed, catalog not); null before the first publish. */
  private async push(tenantId: string): Promise<'ok' | 'unavailable' | null> {
    const tenant = await loadTenant(this.ctx.db, tenantId);
    return tenant.current_version ? this.ctx.publisher.push(tenantId) : null;
  }
}

async function saveTenantAuth(q: Queryable, tenantId: string, a: TenantAuthSettings): Promise<void> {
  const oidc = a.idp.kind === 'oidc' ? a.idp : undefined;
  await q.query(
    `INSERT INTO registry.tenant_auth (tenant_id, protected, scopes, default_scopes, tool_scopes, allow_private_use_redirects, idp_kind, idp_issuer, idp_client_id, idp_scopes, idp_secret)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     ON CONFLICT (tenant_id) DO UPDATE SET protected = EXCLUDED.protected, scopes = EXCLUDED.scopes, default_scopes = EXCLUDED.default_scopes, tool_scopes = EXCLUDED.tool_scopes,
       allow_private_use_redirects = EXCLUDED.allow_private_use_redirects, idp_kind = EXCLUDED.idp_kind, idp_issuer = EXCLUDED.idp_issuer, idp_client_id = EXCLUDED.idp_client_id,
       idp_scopes = EXCLUDED.idp_scopes, idp_secret = EXCLUDED.idp_secret, updated_at = now()`,
    [
      tenantId,
      a.protected,
      JSON.stringify(a.scopes),
      a.defaultScopes ? JSON.stringify(a.defaultScopes) : null,
      JSON.stringify(a.toolScopes),
      a.allowPrivateUseRedirects,
      a.idp.kind,
      oidc?.issuer ?? null,
      oidc?.clientId ?? null,
      oidc ? JSON.stringify(oidc.scopes) : null,
      oidc?.clientSecret ?? null,
    ],
  );
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

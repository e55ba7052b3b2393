import { Controller, Delete, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { tenantAuthSchema } from '@switchboard/catalog';
import { AUTH_SERVICES, type AuthServices } from '../auth-services';
import { openidClient } from '../federation/upstream-oidc';
import { internalCaller } from '../http/internal.controller';
import { formBody, sendOAuthError } from '../http/request-helpers';
import { TENANT_ID } from '../tenants/identifiers';
import type { AuthTenant, ConnectorSettings } from '../tenants/tenant-auth';
import { ConnectorTokens } from './connector-tokens';
import { EnterpriseGrants } from './enterprise-grant';
import { GrantTokenCache } from './grant-token-cache';
import { LinkConfirmation, LINK_STATE_TTL_S } from './link-confirmation';
import { ADMIN_SUBJECT, bareTenant, verifySubject } from './vault-access';
import type { VaultedTokens } from './vault-store';

export { ADMIN_SUBJECT } from './vault-access';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const CONNECTOR_ID = /^[a-z0-9][a-z0-9_-]{0,31}$/;

/**
 * The upstream-credential vault. The gateway exchanges a user's access token (RFC 8693 shape,
 * over the internal endpoint) for that user's token at a connector's upstream AS; tokens are
 * obtained by a linking flow (openid-client, PKCE, browser-bound state), sealed at rest and
 * refreshed here — single-flight across replicas (a lease on the row, no connection held while
 * the upstream is called), so a refresh race never forces a relink. The registry links the tenant admin's own account (internal routes) to discover
 * `oauth_user` servers; end users' own routes are ConnectorLinkController's.
 * The client's own token never leaves this service.
 */
@Controller()
export class VaultController {
  private readonly links: LinkConfirmation;
  private readonly grants: EnterpriseGrants;
  private readonly tokens: ConnectorTokens;

  constructor(@Inject(AUTH_SERVICES) private readonly s: AuthServices) {
    this.links = new LinkConfirmation(s);
    this.grants = new EnterpriseGrants(s, new GrantTokenCache(s.pool, s.config.AUTH_DB_SCHEMA, s.box));
    this.tokens = new ConnectorTokens(s);
  }

  @Post('internal/t/:tenant/token-exchange')
  async exchange(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    if (!internalCaller(this.s, req)) return void sendOAuthError(reply, 401, 'invalid_client', 'internal token required');
    const tenant = this.s.tenants.byId(tenantId);
    if (!tenant) return void sendOAuthError(reply, 404, 'invalid_request', `unknown tenant: ${tenantId}`);
    const body = formBody(req);
    if (body.grant_type !== TOKEN_EXCHANGE)
      return void sendOAuthError(reply, 400, 'unsupported_grant_type', `grant_type must be ${TOKEN_EXCHANGE}`);
    if (!body.subject_token) return void sendOAuthError(reply, 400, 'invalid_request', 'subject_token is required');
    if (body.subject_token_type !== undefined && body.subject_token_type !== ACCESS_TOKEN_TYPE) {
      return void sendOAuthError(reply, 400, 'invalid_request', `subject_token_type must be ${ACCESS_TOKEN_TYPE}`);
    }
    const connectorId = body.audience ?? body.resource ?? '';
    const connector = tenant.settings.connectors[connectorId];
    if (!connector) return void sendOAuthError(reply, 400, 'invalid_target', `audience must name a connector of tenant ${tenant.id}`);
    const subject = await verifySubject(this.s, tenant, body.subject_token);
    if (!subject) return void sendOAuthError(reply, 400, 'invalid_grant', 'subject_token is not a valid access token of this tenant');
    if (connector.grant) return this.enterpriseExchange(tenant, subject, connectorId, connector, reply);
    const result = await this.tokens.tokensFor(tenant.id, subject, connectorId, connector, hungUp(reply));
    if (result.kind === 'ok') return void this.sendToken(reply, result.tokens);
    if (result.kind === 'unavailable')
      return void sendOAuthError(
        reply,
        503,
        'temporarily_unavailable',
        `the ${connectorId} service could not refresh the token; try again shortly`,
      );
    void reply
      .code(400)
      .header('content-type', 'application/json')
      .header('cache-control', 'no-store')
      .send({
        error: 'invalid_grant',
        reason: result.kind,
        error_description:
          result.kind === 'refresh_failed'
            ? `the ${connectorId} account must be linked again (the service refused to renew access)`
            : `connector ${connectorId} is not linked for this user`,
        link_url: this.links.linkUrl(tenant, subject, connectorId),
      });
  }

  /**
   * A connector with a `grant`: the token from the user's enterprise identity first; when that
   * is refused or unavailable, the user's linked account (the fallback); else a refusal that
   * says who refused and why (`reason: exchange_refused`, with the link URL).
   */
  private async enterpriseExchange(
    tenant: AuthTenant,
    subject: string,
    connectorId: string,
    connector: ConnectorSettings,
    reply: FastifyReply,
  ): Promise<void> {
    const grant = connector.grant;
    const outcome = grant
      ? await this.grants.token(tenant, subject, connectorId, connector, grant)
      : { kind: 'unavailable' as const, reason: 'no grant is configured' };
    if (outcome.kind === 'ok') return this.sendToken(reply, outcome.token);
    const linked = await this.tokens.tokensFor(tenant.id, subject, connectorId, connector, hungUp(reply));
    if (linked.kind === 'ok') return this.sendToken(reply, linked.tokens);
    // The gateway names the connector (it asked for it); the reason says who refused and why.
    const description = outcome.reason;
    if (outcome.kind === 'unavailable') return void sendOAuthError(reply, 503, 'temporarily_unavailable', description);
    void reply
      .code(400)
      .header('cache-control', 'no-store')
      .send({
        error: 'invalid_grant',
        reason: 'exchange_refused',
        error_description: description,
        link_url: this.links.linkUrl(tenant, subject, connectorId),
      });
  }

  /** Starts the tenant admin's link (registry, internal): a one-time URL the admin opens in a browser. */
  @Post('internal/t/:tenant/connectors/:connector/admin-link')
  async adminLink(
    @Param('tenant') tenantId: string,
    @Param('connector') connectorId: string,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const target = this.adminTarget(tenantId, connectorId, req, reply);
    if (!target) return;
    const nonce = openidClient.randomState();
    await this.s.federation.put(
      nonce,
      target.tenant.id,
      'admin-link',
      { connector: connectorId, settings: target.settings },
      LINK_STATE_TTL_S,
    );
    void reply.header('cache-control', 'no-store').send({
      link_url: `${target.tenant.issuer}/connectors/${encodeURIComponent(connectorId)}/link?admin=${nonce}`,
      expires_in: LINK_STATE_TTL_S,
    });
  }

  /** The tenant admin's upstream token (registry discovery, internal), refreshed single-flight. */
  @Post('internal/t/:tenant/connectors/:connector/admin-token')
  async adminToken(
    @Param('tenant') tenantId: string,
    @Param('connector') connectorId: string,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const target = this.adminTarget(tenantId, connectorId, req, reply);
    if (!target) return;
    const result = await this.tokens.tokensFor(target.tenant.id, ADMIN_SUBJECT, connectorId, target.settings, hungUp(reply));
    if (result.kind === 'ok') return void this.sendToken(reply, result.tokens);
    if (result.kind === 'unavailable')
      return void sendOAuthError(
        reply,
        503,
        'temporarily_unavailable',
        `the ${connectorId} service could not refresh the token; try again shortly`,
      );
    void reply
      .code(400)
      .header('cache-control', 'no-store')
      .send({ error: 'invalid_grant', reason: result.kind, error_description: `no account is linked for connector ${connectorId}` });
  }

  @Get('internal/t/:tenant/connectors/:connector/admin-account')
  async adminAccount(
    @Param('tenant') tenantId: string,
    @Param('connector') connectorId: string,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    if (!this.internalPath(tenantId, connectorId, req, reply)) return;
    const account = (await this.s.vault.list(tenantId, ADMIN_SUBJECT)).find((a) => a.connector === connectorId);
    void reply.header('cache-control', 'no-store').send(account ? { linked: true, ...account } : { linked: false, connector: connectorId });
  }

  @Delete('internal/t/:tenant/connectors/:connector/admin-account')
  async adminUnlink(
    @Param('tenant') tenantId: string,
    @Param('connector') connectorId: string,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    if (!this.internalPath(tenantId, connectorId, req, reply)) return;
    void reply
      .header('cache-control', 'no-store')
      .send({ connector: connectorId, unlinked: await this.s.vault.delete(tenantId, ADMIN_SUBJECT, connectorId) });
  }

  private sendToken(reply: FastifyReply, tokens: VaultedTokens): void {
    const now = Math.floor(Date.now() / 1000);
    void reply
      .code(200)
      .header('cache-control', 'no-store')
      .send({
        access_token: tokens.accessToken,
        issued_token_type: ACCESS_TOKEN_TYPE,
        token_type: 'Bearer',
        ...(tokens.expiresAt !== undefined ? { expires_in: Math.max(0, tokens.expiresAt - now) } : {}),
      });
  }

  /** Checks an internal admin route: caller, ids, and the connector settings the registry sends (`{ connector: {...} }`). */
  private adminTarget(
    tenantId: string,
    connectorId: string,
    req: FastifyRequest,
    reply: FastifyReply,
  ): { tenant: AuthTenant; settings: ConnectorSettings } | undefined {
    if (!this.internalPath(tenantId, connectorId, req, reply)) return undefined;
    const body = req.body && typeof req.body === 'object' ? (req.body as { connector?: unknown }) : {};
    const parsed = tenantAuthSchema.shape.connectors.safeParse({ [connectorId]: body.connector });
    if (!parsed.success || !parsed.data[connectorId]) {
      const issue = parsed.success ? undefined : parsed.error.issues[0];
      sendOAuthError(
        reply,
        400,
        'invalid_request',
        `connector${issue ? `.${issue.path.slice(1).join('.')}: ${issue.message}` : ': required'}`,
      );
      return undefined;
    }
    const settings = parsed.data[connectorId];
    return { tenant: this.s.tenants.byId(tenantId) ?? bareTenant(this.s, tenantId), settings };
  }

  private internalPath(tenantId: string, connectorId: string, req: FastifyRequest, reply: FastifyReply): boolean {
    if (!internalCaller(this.s, req)) return (void sendOAuthError(reply, 401, 'invalid_client', 'internal token required'), false);
    if (!TENANT_ID.test(tenantId)) return (void sendOAuthError(reply, 400, 'invalid_request', 'tenant: must be a tenant id'), false);
    if (!CONNECTOR_ID.test(connectorId))
      return (void sendOAuthError(reply, 400, 'invalid_request', 'connector: must be a server id'), false);
    return true;
  }
}

/** Aborted when the caller hangs up before its answer is sent (the gateway gives up after a few seconds). */
function hungUp(reply: FastifyReply): AbortSignal {
  const ac = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) ac.abort();
  });
  return ac.signal;
}

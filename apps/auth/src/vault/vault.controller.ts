import { Controller, Delete, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { tenantAuthSchema } from '@switchboard/catalog';
import { AUTH_SERVICES, type AuthServices } from '../auth-services';
import { openidClient } from '../federation/upstream-oidc';
import { internalCaller } from '../http/internal.controller';
import { formBody, readCookie, sendOAuthError, sendPage, tenantOf } from '../http/request-helpers';
import { TENANT_ID } from '../tenants/identifiers';
import { authTenant, type AuthTenant, type ConnectorSettings } from '../tenants/tenant-auth';
import { confirmationPath, isConfirmationReturn, LinkConfirmation, LINK_STATE_TTL_S, startLink, type LinkState } from './link-confirmation';
import { EnterpriseGrants } from './enterprise-grant';
import { GrantTokenCache } from './grant-token-cache';
import type { RefreshOutcome, VaultedTokens } from './vault-store';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const CONNECTOR_ID = /^[a-z0-9][a-z0-9_-]{0,31}$/;
/**
 * The vault subject of the tenant admin's own linked account (used to discover `oauth_user`
 * servers). User subjects are `<tenant>|<user>`; this one has no `|`, so no user can be it.
 */
export const ADMIN_SUBJECT = '_tenant_admin';

/** Why no token can be handed out: never linked / unlinked, the upstream refused the refresh, or a transient failure. */
type TokenResult = { kind: 'ok'; tokens: VaultedTokens } | { kind: 'not_linked' | 'refresh_failed' | 'unavailable' };

/**
 * The upstream-credential vault. The gateway exchanges a user's access token (RFC 8693 shape,
 * over the internal endpoint) for that user's token at a connector's upstream AS; tokens are
 * obtained by a linking flow (openid-client, PKCE, browser-bound state), sealed at rest and
 * refreshed here — single-flight across replicas (a lease on the row, no connection held while
 * the upstream is called), so a refresh race never forces a relink. The registry links the tenant admin's own account (internal routes) to discover
 * `oauth_user` servers; end users list and unlink their accounts with their access token.
 * The client's own token never leaves this service.
 */
@Controller()
export class VaultController {
  private readonly links: LinkConfirmation;
  private readonly grants: EnterpriseGrants;

  constructor(@Inject(AUTH_SERVICES) private readonly s: AuthServices) {
    this.links = new LinkConfirmation(s);
    this.grants = new EnterpriseGrants(s, new GrantTokenCache(s.pool, s.config.AUTH_DB_SCHEMA, s.box));
  }

  @Post('internal/t/:tenant/token-exchange')
  async exchange(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    if (!internalCaller(this.s, req)) return void sendOAuthError(reply, 401, 'invalid_client', 'internal token required');
    const tenant = this.s.tenants.byId(tenantId);
    if (!tenant) return void sendOAuthError(reply, 404, 'invalid_request', `unknown tenant: ${tenantId}`);
    const body = formBody(req);
    if (body.grant_type !== TOKEN_EXCHANGE) return void sendOAuthError(reply, 400, 'unsupported_grant_type', `grant_type must be ${TOKEN_EXCHANGE}`);
    if (!body.subject_token) return void sendOAuthError(reply, 400, 'invalid_request', 'subject_token is required');
    if (body.subject_token_type !== undefined && body.subject_token_type !== ACCESS_TOKEN_TYPE) {
      return void sendOAuthError(reply, 400, 'invalid_request', `subject_token_type must be ${ACCESS_TOKEN_TYPE}`);
    }
    const connectorId = body.audience ?? body.resource ?? '';
    const connector = tenant.settings.connectors[connectorId];
    if (!connector) return void sendOAuthError(reply, 400, 'invalid_target', `audience must name a connector of tenant ${tenant.id}`);
    const subject = await this.verifySubject(tenant, body.subject_token);
    if (!subject) return void sendOAuthError(reply, 400, 'invalid_grant', 'subject_token is not a valid access token of this tenant');
    if (connector.grant) return this.enterpriseExchange(tenant, subject, connectorId, connector, reply);
    const result = await this.tokensFor(tenant.id, subject, connectorId, connector, hungUp(reply));
    if (result.kind === 'ok') return void this.sendToken(reply, result.tokens);
    if (result.kind === 'unavailable') return void sendOAuthError(reply, 503, 'temporarily_unavailable', `the ${connectorId} service could not refresh the token; try again shortly`);
    void reply
      .code(400)
      .header('content-type', 'application/json')
      .header('cache-control', 'no-store')
      .send({
        error: 'invalid_grant',
        reason: result.kind,
        error_description: result.kind === 'refresh_failed' ? `the ${connectorId} account must be linked again (the service refused to renew access)` : `connector ${connectorId} is not linked for this user`,
        link_url: this.links.linkUrl(tenant, subject, connectorId),
      });
  }

  /**
   * A connector with a `grant`: the token from the user's enterprise identity first; when that
   * is refused or unavailable, the user's linked account (the fallback); else a refusal that
   * says who refused and why (`reason: exchange_refused`, with the link URL).
   */
  private async enterpriseExchange(tenant: AuthTenant, subject: string, connectorId: string, connector: ConnectorSettings, reply: FastifyReply): Promise<void> {
    const grant = connector.grant;
    const outcome = grant ? await this.grants.token(tenant, subject, connectorId, connector, grant) : { kind: 'unavailable' as const, reason: 'no grant is configured' };
    if (outcome.kind === 'ok') return this.sendToken(reply, outcome.token);
    const linked = await this.tokensFor(tenant.id, subject, connectorId, connector, hungUp(reply));
    if (linked.kind === 'ok') return this.sendToken(reply, linked.tokens);
    // The gateway names the connector (it asked for it); the reason says who refused and why.
    const description = outcome.reason;
    if (outcome.kind === 'unavailable') return void sendOAuthError(reply, 503, 'temporarily_unavailable', description);
    void reply
      .code(400)
      .header('cache-control', 'no-store')
      .send({ error: 'invalid_grant', reason: 'exchange_refused', error_description: description, link_url: this.links.linkUrl(tenant, subject, connectorId) });
  }

  /** Starts the tenant admin's link (registry, internal): a one-time URL the admin opens in a browser. */
  @Post('internal/t/:tenant/connectors/:connector/admin-link')
  async adminLink(@Param('tenant') tenantId: string, @Param('connector') connectorId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const target = this.adminTarget(tenantId, connectorId, req, reply);
    if (!target) return;
    const nonce = openidClient.randomState();
    await this.s.federation.put(nonce, target.tenant.id, 'admin-link', { connector: connectorId, settings: target.settings }, LINK_STATE_TTL_S);
    void reply
      .header('cache-control', 'no-store')
      .send({ link_url: `${target.tenant.issuer}/connectors/${encodeURIComponent(connectorId)}/link?admin=${nonce}`, expires_in: LINK_STATE_TTL_S });
  }

  /** The tenant admin's upstream token (registry discovery, internal), refreshed single-flight. */
  @Post('internal/t/:tenant/connectors/:connector/admin-token')
  async adminToken(@Param('tenant') tenantId: string, @Param('connector') connectorId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const target = this.adminTarget(tenantId, connectorId, req, reply);
    if (!target) return;
    const result = await this.tokensFor(target.tenant.id, ADMIN_SUBJECT, connectorId, target.settings, hungUp(reply));
    if (result.kind === 'ok') return void this.sendToken(reply, result.tokens);
    if (result.kind === 'unavailable') return void sendOAuthError(reply, 503, 'temporarily_unavailable', `the ${connectorId} service could not refresh the token; try again shortly`);
    void reply.code(400).header('cache-control', 'no-store').send({ error: 'invalid_grant', reason: result.kind, error_description: `no account is linked for connector ${connectorId}` });
  }

  @Get('internal/t/:tenant/connectors/:connector/admin-account')
  async adminAccount(@Param('tenant') tenantId: string, @Param('connector') connectorId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    if (!this.internalPath(tenantId, connectorId, req, reply)) return;
    const account = (await this.s.vault.list(tenantId, ADMIN_SUBJECT)).find((a) => a.connector === connectorId);
    void reply.header('cache-control', 'no-store').send(account ? { linked: true, ...account } : { linked: false, connector: connectorId });
  }

  @Delete('internal/t/:tenant/connectors/:connector/admin-account')
  async adminUnlink(@Param('tenant') tenantId: string, @Param('connector') connectorId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    if (!this.internalPath(tenantId, connectorId, req, reply)) return;
    void reply.header('cache-control', 'no-store').send({ connector: connectorId, unlinked: await this.s.vault.delete(tenantId, ADMIN_SUBJECT, connectorId) });
  }

  /** The signed-in user's connected accounts (Bearer: the user's access token of this tenant), with a link URL per connector. */
  @Get(['t/:tenant/connectors/accounts', 'connectors/accounts'])
  async accounts(@Param('tenant') tenantId: string | undefined, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const who = await this.bearerUser(tenantId, req, reply);
    if (!who) return;
    const linked = new Map((await this.s.vault.list(who.tenant.id, who.subject)).map((a) => [a.connector, a]));
    const accounts = Object.keys(who.tenant.settings.connectors).map((connector) => {
      const a = linked.get(connector);
      return { connector, linked: a !== undefined, ...(a ? { expiresAt: a.expiresAt ?? null, refreshable: a.refreshable, updatedAt: a.updatedAt } : {}), linkUrl: this.links.linkUrl(who.tenant, who.subject, connector) };
    });
    void reply.header('cache-control', 'no-store').send({ tenant: who.tenant.id, subject: who.subject, accounts });
  }

  /** Unlinks one of the signed-in user's accounts: the next call through the gateway asks to link again. */
  @Delete(['t/:tenant/connectors/:connector/account', 'connectors/:connector/account'])
  async unlink(@Param('tenant') tenantId: string | undefined, @Param('connector') connectorId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const who = await this.bearerUser(tenantId, req, reply);
    if (!who) return;
    if (!who.tenant.settings.connectors[connectorId]) return void sendOAuthError(reply, 404, 'invalid_target', `connector: ${connectorId} is not a connector of tenant ${who.tenant.id}`);
    const removed = await this.s.vault.delete(who.tenant.id, who.subject, connectorId);
    if (!removed) return void sendOAuthError(reply, 404, 'invalid_request', `connector: ${connectorId} is not linked for this user`);
    this.s.logger.info({ tenant: who.tenant.id, connector: connectorId }, 'connector account unlinked');
    void reply.header('cache-control', 'no-store').send({ connector: connectorId, unlinked: true });
  }

  /**
   * A link URL. A user's ticket goes on to the confirmation page (signed-in session of the
   * ticket's subject, confirmation, CSRF: LinkConfirmation); the registry's one-time admin link
   * (`admin=`, minted on an internal call for the console's administrator) starts at once.
   */
  @Get(['t/:tenant/connectors/:connector/link', 'connectors/:connector/link'])
  async link(@Param('tenant') tenantId: string | undefined, @Param('connector') connectorId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const query = new URLSearchParams(req.raw.url?.split('?')[1] ?? '');
    const admin = query.get('admin');
    if (!admin) {
      const tenant = tenantOf(this.s.tenants, tenantId, req);
      if (!tenant || tenant.firstParty || !tenant.settings.connectors[connectorId]) return void sendPage(reply, 404, 'Not found', '<h1>Unknown connector</h1>');
      const next = `${confirmationPath(tenant, connectorId)}?ticket=${query.get('ticket') ?? ''}`;
      if (!isConfirmationReturn(tenant, next)) return void sendPage(reply, 400, 'Link expired', '<h1>invalid_request</h1><p>This link is invalid or expired. Ask your assistant for a new one.</p>');
      return void reply.code(303).header('referrer-policy', 'no-referrer').header('location', next).header('cache-control', 'no-store').send();
    }
    const tenant = this.anyTenant(tenantId, req);
    const saved = tenant ? await this.s.federation.take<{ connector: string; settings: ConnectorSettings }>(admin, tenant.id, 'admin-link') : undefined;
    if (!tenant || !saved || saved.connector !== connectorId) return void sendPage(reply, 400, 'Link expired', '<h1>invalid_request</h1><p>This link is invalid, expired or already used. Start linking again from the console.</p>');
    let cfg;
    try {
      cfg = await this.s.upstream.config(this.clientSettings(tenant.id, connectorId, saved.settings));
    } catch (err) {
      this.s.logger.warn({ err: (err as Error).message, tenant: tenant.id, connector: connectorId }, 'connector discovery failed');
      return void sendPage(reply, 502, 'Unavailable', '<h1>temporarily_unavailable</h1><p>The service cannot be reached.</p>');
    }
    const start = await startLink(this.s, tenant, cfg, saved.settings, { subject: ADMIN_SUBJECT, connector: connectorId, adminSettings: saved.settings });
    void reply.code(303).header('set-cookie', start.cookie).header('location', start.url).send();
  }

  /** The confirmation page of a user's link (the ticket's subject must be the signed-in account). */
  @Get(['t/:tenant/account/link/:connector', 'account/link/:connector'])
  async confirmLinkPage(@Param('tenant') tenantId: string | undefined, @Param('connector') connectorId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const tenant = tenantOf(this.s.tenants, tenantId, req);
    if (!tenant || tenant.firstParty) return void sendPage(reply, 404, 'Not found', '<h1>Unknown tenant</h1>');
    await this.links.show(tenant, connectorId, req, reply);
  }

  @Post(['t/:tenant/account/link/:connector', 'account/link/:connector'])
  async confirmLink(@Param('tenant') tenantId: string | undefined, @Param('connector') connectorId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const tenant = tenantOf(this.s.tenants, tenantId, req);
    if (!tenant || tenant.firstParty) return void sendPage(reply, 404, 'Not found', '<h1>Unknown tenant</h1>');
    await this.links.confirm(tenant, connectorId, req, reply);
  }

  @Get(['t/:tenant/connectors/callback', 'connectors/callback'])
  async callback(@Param('tenant') tenantId: string | undefined, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const tenant = this.anyTenant(tenantId, req);
    if (!tenant) return void sendPage(reply, 404, 'Not found', '<h1>Unknown tenant</h1>');
    const query = req.raw.url?.includes('?') ? req.raw.url.slice(req.raw.url.indexOf('?')) : '';
    const state = new URLSearchParams(query).get('state') ?? '';
    const cookie = readCookie(req, `sb_${tenant.id}_link`) ?? '';
    if (!state || cookie.length !== state.length || !timingSafeEqual(Buffer.from(cookie), Buffer.from(state))) {
      return void sendPage(reply, 400, 'Link refused', '<h1>access_denied</h1><p>This link was not started in this browser.</p>');
    }
    const saved = await this.s.federation.take<LinkState>(state, tenant.id, 'link');
    const connector = saved ? (saved.settings ?? this.s.tenants.byId(tenant.id)?.settings.connectors[saved.connector]) : undefined;
    if (!saved || !connector) return void sendPage(reply, 400, 'Link refused', '<h1>invalid_request</h1><p>This link is unknown, expired or already used.</p>');
    try {
      const cfg = await this.s.upstream.config(this.clientSettings(tenant.id, saved.connector, connector));
      const tokens = await openidClient.authorizationCodeGrant(cfg, new URL(`${tenant.issuer}/connectors/callback${query}`), { pkceCodeVerifier: saved.verifier, expectedState: state, idTokenExpected: false });
      await this.s.vault.put(tenant.id, saved.subject, saved.connector, toVaulted(tokens));
    } catch (err) {
      this.s.logger.warn({ err: (err as Error).message, tenant: tenant.id }, 'connector link refused');
      return void sendPage(reply, 400, 'Link refused', '<h1>access_denied</h1><p>The service refused the link.</p>');
    }
    sendPage(reply, 200, 'Connected', `<h1>Connected</h1><p>You can close this window and retry in your assistant.</p>`);
  }

  /**
   * The vaulted tokens of (tenant, subject, connector), refreshed when they expire within
   * VAULT_REFRESH_SKEW_S. Several replicas asking at once refresh once (VaultStore.refreshOnce).
   */
  private async tokensFor(tenantId: string, subject: string, connectorId: string, connector: ConnectorSettings, signal?: AbortSignal): Promise<TokenResult> {
    const skew = this.s.config.VAULT_REFRESH_SKEW_S;
    const stale = (t: VaultedTokens) => t.expiresAt !== undefined && t.expiresAt - skew <= Math.floor(Date.now() / 1000);
    const tokens = await this.s.vault.get(tenantId, subject, connectorId);
    if (!tokens) return { kind: 'not_linked' };
    if (!stale(tokens)) return { kind: 'ok', tokens };
    const r = await this.s.vault.refreshOnce(tenantId, subject, connectorId, stale, (t) => this.refresh(tenantId, connectorId, connector, t), signal);
    if (r.tokens) return { kind: 'ok', tokens: r.tokens };
    if (r.outcome === 'refused') return { kind: 'refresh_failed' };
    if (r.outcome === 'unavailable') return { kind: 'unavailable' };
    return { kind: 'not_linked' };
  }

  private async refresh(tenantId: string, connectorId: string, connector: ConnectorSettings, current: VaultedTokens): Promise<RefreshOutcome> {
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
      this.s.logger.warn({ err: (err as Error).message, tenant: tenantId, connector: connectorId, refused }, refused ? 'connector refresh refused; relink needed' : 'connector refresh failed; will retry');
      return refused ? { kind: 'refused' } : { kind: 'unavailable' };
    }
  }

  private sendToken(reply: FastifyReply, tokens: VaultedTokens): void {
    const now = Math.floor(Date.now() / 1000);
    void reply.code(200).header('cache-control', 'no-store').send({
      access_token: tokens.accessToken,
      issued_token_type: ACCESS_TOKEN_TYPE,
      token_type: 'Bearer',
      ...(tokens.expiresAt !== undefined ? { expires_in: Math.max(0, tokens.expiresAt - now) } : {}),
    });
  }

  /** Checks an internal admin route: caller, ids, and the connector settings the registry sends (`{ connector: {...} }`). */
  private adminTarget(tenantId: string, connectorId: string, req: FastifyRequest, reply: FastifyReply): { tenant: AuthTenant; settings: ConnectorSettings } | undefined {
    if (!this.internalPath(tenantId, connectorId, req, reply)) return undefined;
    const body = req.body && typeof req.body === 'object' ? (req.body as { connector?: unknown }) : {};
    const parsed = tenantAuthSchema.shape.connectors.safeParse({ [connectorId]: body.connector });
    if (!parsed.success || !parsed.data[connectorId]) {
      const issue = parsed.success ? undefined : parsed.error.issues[0];
      sendOAuthError(reply, 400, 'invalid_request', `connector${issue ? `.${issue.path.slice(1).join('.')}: ${issue.message}` : ': required'}`);
      return undefined;
    }
    const settings = parsed.data[connectorId];
    return { tenant: this.s.tenants.byId(tenantId) ?? this.bareTenant(tenantId), settings };
  }

  private internalPath(tenantId: string, connectorId: string, req: FastifyRequest, reply: FastifyReply): boolean {
    if (!internalCaller(this.s, req)) return void sendOAuthError(reply, 401, 'invalid_client', 'internal token required'), false;
    if (!TENANT_ID.test(tenantId)) return void sendOAuthError(reply, 400, 'invalid_request', 'tenant: must be a tenant id'), false;
    if (!CONNECTOR_ID.test(connectorId)) return void sendOAuthError(reply, 400, 'invalid_request', 'connector: must be a server id'), false;
    return true;
  }

  private async bearerUser(tenantId: string | undefined, req: FastifyRequest, reply: FastifyReply): Promise<{ tenant: AuthTenant; subject: string } | undefined> {
    const tenant = tenantOf(this.s.tenants, tenantId, req);
    if (!tenant) return void sendOAuthError(reply, 404, 'invalid_request', 'unknown tenant'), undefined;
    const token = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const subject = token ? await this.verifySubject(tenant, token) : undefined;
    if (!subject) {
      void reply.header('www-authenticate', 'Bearer error="invalid_token"');
      return void sendOAuthError(reply, 401, 'invalid_token', 'authorization: a valid access token of this tenant is required'), undefined;
    }
    return { tenant, subject };
  }

  /** A known tenant, or (admin links before the tenant's first publish) one built from its id alone. */
  private anyTenant(tenantId: string | undefined, req: FastifyRequest): AuthTenant | undefined {
    const known = tenantOf(this.s.tenants, tenantId, req);
    if (known) return known;
    const domain = this.s.config.GATEWAY_DOMAIN;
    if (tenantId !== undefined) return !domain && TENANT_ID.test(tenantId) ? this.bareTenant(tenantId) : undefined;
    const host = (req.headers.host ?? '').toLowerCase().replace(/:\d+$/, '');
    const id = domain && host.endsWith(`.${domain.toLowerCase()}`) ? host.slice(0, -domain.length - 1) : '';
    return TENANT_ID.test(id) ? this.bareTenant(id) : undefined;
  }

  private bareTenant(id: string): AuthTenant {
    const c = this.s.config;
    return authTenant(id, id, tenantAuthSchema.parse({ protected: false }), { authPublicUrl: c.publicUrl, gatewayPublicUrl: c.gatewayPublicUrl, domain: c.GATEWAY_DOMAIN });
  }

  private async verifySubject(tenant: AuthTenant, token: string): Promise<string | undefined> {
    try {
      const keys = await this.s.keys.published(tenant.id);
      const jwks = createLocalJWKSet({ keys: keys.map(({ kty, crv, x, y, kid, alg }) => ({ kty, crv, x, y, kid, alg })) });
      const { payload } = await jwtVerify(token, jwks, { issuer: tenant.issuer, audience: tenant.mcpUrl, algorithms: ['ES256'], typ: 'at+jwt' });
      return payload.tid === tenant.id && typeof payload.sub === 'string' && payload.sub !== ADMIN_SUBJECT ? payload.sub : undefined;
    } catch {
      return undefined;
    }
  }

  private clientSettings(tenantId: string, connectorId: string, c: ConnectorSettings) {
    return { issuer: c.issuer, clientId: c.clientId, clientSecret: this.s.secrets.open(tenantId, `connector:${connectorId}`, c.clientSecret) };
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

function toVaulted(t: { access_token: string; refresh_token?: string; expires_in?: number }): VaultedTokens {
  return {
    accessToken: t.access_token,
    ...(t.refresh_token ? { refreshToken: t.refresh_token } : {}),
    ...(t.expires_in !== undefined ? { expiresAt: Math.floor(Date.now() / 1000) + t.expires_in } : {}),
  };
}


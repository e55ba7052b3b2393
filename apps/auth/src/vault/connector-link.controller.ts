import { Controller, Delete, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { AUTH_SERVICES, type AuthServices } from '../auth-services';
import { openidClient } from '../federation/upstream-oidc';
import { readCookie, sendOAuthError, sendPage, tenantOf } from '../http/request-helpers';
import type { AuthTenant, ConnectorSettings } from '../tenants/tenant-auth';
import { ConnectorTokens, toVaulted } from './connector-tokens';
import { confirmationPath, isConfirmationReturn, LinkConfirmation, startLink, type LinkState } from './link-confirmation';
import { ADMIN_SUBJECT, anyTenant, verifySubject } from './vault-access';

/**
 * An end user's connector accounts (listed and unlinked with the user's access token of the
 * tenant) and the browser flow that links one: link URL, confirmation, upstream callback.
 */
@Controller()
export class ConnectorLinkController {
  private readonly links: LinkConfirmation;
  private readonly tokens: ConnectorTokens;

  constructor(@Inject(AUTH_SERVICES) private readonly s: AuthServices) {
    this.links = new LinkConfirmation(s);
    this.tokens = new ConnectorTokens(s);
  }

  /** The signed-in user's connected accounts (Bearer: the user's access token of this tenant), with a link URL per connector. */
  @Get(['t/:tenant/connectors/accounts', 'connectors/accounts'])
  async accounts(@Param('tenant') tenantId: string | undefined, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const who = await this.bearerUser(tenantId, req, reply);
    if (!who) return;
    const linked = new Map((await this.s.vault.list(who.tenant.id, who.subject)).map((a) => [a.connector, a]));
    const accounts = Object.keys(who.tenant.settings.connectors).map((connector) => {
      const a = linked.get(connector);
      return {
        connector,
        linked: a !== undefined,
        ...(a ? { expiresAt: a.expiresAt ?? null, refreshable: a.refreshable, updatedAt: a.updatedAt } : {}),
        linkUrl: this.links.linkUrl(who.tenant, who.subject, connector),
      };
    });
    void reply.header('cache-control', 'no-store').send({ tenant: who.tenant.id, subject: who.subject, accounts });
  }

  /** Unlinks one of the signed-in user's accounts: the next call through the gateway asks to link again. */
  @Delete(['t/:tenant/connectors/:connector/account', 'connectors/:connector/account'])
  async unlink(
    @Param('tenant') tenantId: string | undefined,
    @Param('connector') connectorId: string,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const who = await this.bearerUser(tenantId, req, reply);
    if (!who) return;
    if (!who.tenant.settings.connectors[connectorId])
      return void sendOAuthError(reply, 404, 'invalid_target', `connector: ${connectorId} is not a connector of tenant ${who.tenant.id}`);
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
  async link(
    @Param('tenant') tenantId: string | undefined,
    @Param('connector') connectorId: string,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const query = new URLSearchParams(req.raw.url?.split('?')[1] ?? '');
    const admin = query.get('admin');
    if (!admin) {
      const tenant = tenantOf(this.s.tenants, tenantId, req);
      if (!tenant || tenant.firstParty || !tenant.settings.connectors[connectorId])
        return void sendPage(reply, 404, 'Not found', '<h1>Unknown connector</h1>');
      const next = `${confirmationPath(tenant, connectorId)}?ticket=${query.get('ticket') ?? ''}`;
      if (!isConfirmationReturn(tenant, next))
        return void sendPage(
          reply,
          400,
          'Link expired',
          '<h1>invalid_request</h1><p>This link is invalid or expired. Ask your assistant for a new one.</p>',
        );
      return void reply
        .code(303)
        .header('referrer-policy', 'no-referrer')
        .header('location', next)
        .header('cache-control', 'no-store')
        .send();
    }
    const tenant = anyTenant(this.s, tenantId, req);
    const saved = tenant
      ? await this.s.federation.take<{ connector: string; settings: ConnectorSettings }>(admin, tenant.id, 'admin-link')
      : undefined;
    if (!tenant || !saved || saved.connector !== connectorId)
      return void sendPage(
        reply,
        400,
        'Link expired',
        '<h1>invalid_request</h1><p>This link is invalid, expired or already used. Start linking again from the console.</p>',
      );
    let cfg;
    try {
      cfg = await this.s.upstream.config(this.tokens.clientSettings(tenant.id, connectorId, saved.settings));
    } catch (err) {
      this.s.logger.warn({ err: (err as Error).message, tenant: tenant.id, connector: connectorId }, 'connector discovery failed');
      return void sendPage(reply, 502, 'Unavailable', '<h1>temporarily_unavailable</h1><p>The service cannot be reached.</p>');
    }
    const start = await startLink(this.s, tenant, cfg, saved.settings, {
      subject: ADMIN_SUBJECT,
      connector: connectorId,
      adminSettings: saved.settings,
    });
    void reply.code(303).header('set-cookie', start.cookie).header('location', start.url).send();
  }

  /** The confirmation page of a user's link (the ticket's subject must be the signed-in account). */
  @Get(['t/:tenant/account/link/:connector', 'account/link/:connector'])
  async confirmLinkPage(
    @Param('tenant') tenantId: string | undefined,
    @Param('connector') connectorId: string,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const tenant = tenantOf(this.s.tenants, tenantId, req);
    if (!tenant || tenant.firstParty) return void sendPage(reply, 404, 'Not found', '<h1>Unknown tenant</h1>');
    await this.links.show(tenant, connectorId, req, reply);
  }

  @Post(['t/:tenant/account/link/:connector', 'account/link/:connector'])
  async confirmLink(
    @Param('tenant') tenantId: string | undefined,
    @Param('connector') connectorId: string,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const tenant = tenantOf(this.s.tenants, tenantId, req);
    if (!tenant || tenant.firstParty) return void sendPage(reply, 404, 'Not found', '<h1>Unknown tenant</h1>');
    await this.links.confirm(tenant, connectorId, req, reply);
  }

  @Get(['t/:tenant/connectors/callback', 'connectors/callback'])
  async callback(@Param('tenant') tenantId: string | undefined, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const tenant = anyTenant(this.s, tenantId, req);
    if (!tenant) return void sendPage(reply, 404, 'Not found', '<h1>Unknown tenant</h1>');
    const query = req.raw.url?.includes('?') ? req.raw.url.slice(req.raw.url.indexOf('?')) : '';
    const state = new URLSearchParams(query).get('state') ?? '';
    const cookie = readCookie(req, `sb_${tenant.id}_link`) ?? '';
    if (!state || cookie.length !== state.length || !timingSafeEqual(Buffer.from(cookie), Buffer.from(state))) {
      return void sendPage(reply, 400, 'Link refused', '<h1>access_denied</h1><p>This link was not started in this browser.</p>');
    }
    const saved = await this.s.federation.take<LinkState>(state, tenant.id, 'link');
    const connector = saved ? (saved.settings ?? this.s.tenants.byId(tenant.id)?.settings.connectors[saved.connector]) : undefined;
    if (!saved || !connector)
      return void sendPage(reply, 400, 'Link refused', '<h1>invalid_request</h1><p>This link is unknown, expired or already used.</p>');
    try {
      const cfg = await this.s.upstream.config(this.tokens.clientSettings(tenant.id, saved.connector, connector));
      const tokens = await openidClient.authorizationCodeGrant(cfg, new URL(`${tenant.issuer}/connectors/callback${query}`), {
        pkceCodeVerifier: saved.verifier,
        expectedState: state,
        idTokenExpected: false,
      });
      await this.s.vault.put(tenant.id, saved.subject, saved.connector, toVaulted(tokens));
    } catch (err) {
      this.s.logger.warn({ err: (err as Error).message, tenant: tenant.id }, 'connector link refused');
      return void sendPage(reply, 400, 'Link refused', '<h1>access_denied</h1><p>The service refused the link.</p>');
    }
    sendPage(reply, 200, 'Connected', `<h1>Connected</h1><p>You can close this window and retry in your assistant.</p>`);
  }

  private async bearerUser(
    tenantId: string | undefined,
    req: FastifyRequest,
    reply: FastifyReply,
  ): Promise<{ tenant: AuthTenant; subject: string } | undefined> {
    const tenant = tenantOf(this.s.tenants, tenantId, req);
    if (!tenant) return (void sendOAuthError(reply, 404, 'invalid_request', 'unknown tenant'), undefined);
    const token = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const subject = token ? await verifySubject(this.s, tenant, token) : undefined;
    if (!subject) {
      void reply.header('www-authenticate', 'Bearer error="invalid_token"');
      return (
        void sendOAuthError(reply, 401, 'invalid_token', 'authorization: a valid access token of this tenant is required'),
        undefined
      );
    }
    return { tenant, subject };
  }
}

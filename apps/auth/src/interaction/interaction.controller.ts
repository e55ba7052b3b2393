import { Controller, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { InteractionResults } from 'oidc-provider';
import { AUTH_SERVICES, type AuthServices } from '../auth-services';
import { startIdpAuthorization } from '../federation/idp-authorization';
import { escapeHtml } from '../http/html';
import { cookieHeader, formBody, sendOAuthError, sendPage, tenantOf } from '../http/request-helpers';
import { DirectorySignIn } from '../users/directory-sign-in';
import { accountIdOf, DEV_IDP_ID } from '../users/subject';
import { finishInteraction, loadInteraction } from './interaction-steps';
import { USERNAME } from '../tenants/identifiers';
import { switchboardMetrics } from '@switchboard/telemetry';
import type { AuthTenant } from '../tenants/tenant-auth';

/** The cookie that binds an upstream login to the browser that started it. */
export function federationCookieName(tenantId: string): string {
  return `sb_${tenantId}_fed`;
}

/**
 * Login and consent pages of the tenant authorization servers (oidc-provider interactions).
 * Login is the tenant's enterprise IdP (federated with openid-client) or the tenant user
 * directory (password or passkey, see DirectorySignIn); the any-name development form exists
 * only under SWITCHBOARD_ENV=development. Consent is asked once per user and client (stored as the grant).
 */
@Controller()
export class InteractionController {
  private readonly directory: DirectorySignIn;

  constructor(@Inject(AUTH_SERVICES) private readonly s: AuthServices) {
    this.directory = new DirectorySignIn(s);
  }

  /** Directory sign-in with user name and password (tenants with idp.kind 'local'). */
  @Post(['t/:tenant/interaction/:uid/password', 'interaction/:uid/password'])
  async password(@Param('tenant') tenantId: string | undefined, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const ctx = await this.load(tenantId, req, reply);
    if (!ctx) return;
    const accountId = await this.directory.password(ctx.tenant, ctx.details, req, reply);
    if (accountId) await this.finish(ctx.tenant, req, reply, { login: { accountId } });
  }

  /** A passkey sign-in's challenge (JSON; the page's script calls it). */
  @Post(['t/:tenant/interaction/:uid/passkey/options', 'interaction/:uid/passkey/options'])
  async passkeyOptions(
    @Param('tenant') tenantId: string | undefined,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const ctx = await this.loadJson(tenantId, req, reply);
    if (ctx) await this.directory.passkeyOptions(ctx.tenant, ctx.details, req, reply);
  }

  /** Verifies a passkey assertion; answers `{location}` to continue the authorization (JSON). */
  @Post(['t/:tenant/interaction/:uid/passkey/verify', 'interaction/:uid/passkey/verify'])
  async passkeyVerify(
    @Param('tenant') tenantId: string | undefined,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const ctx = await this.loadJson(tenantId, req, reply);
    if (!ctx) return;
    const accountId = await this.directory.passkeyVerify(ctx.tenant, ctx.details, req, reply);
    if (!accountId) return;
    const { provider } = await this.s.providers.get(ctx.tenant);
    const location = await provider.interactionResult(req.raw, reply.raw, { login: { accountId } }, { mergeWithLastSubmission: true });
    void reply.code(200).header('cache-control', 'no-store').send({ location });
  }

  /** Like load, but errors are JSON (the passkey script reads them). */
  private async loadJson(tenantId: string | undefined, req: FastifyRequest, reply: FastifyReply) {
    const tenant = tenantOf(this.s.tenants, tenantId, req);
    if (!tenant) return void sendOAuthError(reply, 404, 'invalid_request', 'unknown tenant');
    const { provider } = await this.s.providers.get(tenant);
    try {
      return { tenant, details: await provider.interactionDetails(req.raw, reply.raw) };
    } catch {
      return void sendOAuthError(
        reply,
        400,
        'invalid_request',
        'this sign-in session is unknown or expired; start again from your application',
      );
    }
  }

  @Get(['t/:tenant/interaction/:uid', 'interaction/:uid'])
  async show(@Param('tenant') tenantId: string | undefined, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const ctx = await this.load(tenantId, req, reply);
    if (!ctx) return;
    const { tenant, details } = ctx;
    const base = `${tenant.mountPath}/interaction/${encodeURIComponent(details.uid)}`;
    if (details.prompt.name === 'login') {
      if (tenant.settings.idp.kind === 'oidc') return this.startFederatedLogin(tenant, details.uid, reply);
      return this.directory.page(reply, tenant, details.uid, this.directory.configured ? 200 : 503);
    }
    const { provider } = await this.s.providers.get(tenant);
    const clientId = String(details.params.client_id ?? '');
    const client = await provider.Client.find(clientId);
    const redirect = URL.parse(String(details.params.redirect_uri ?? ''));
    const scopes = Object.values((details.prompt.details.missingResourceScopes ?? {}) as Record<string, string[]>).flat();
    const csrf = this.s.box.mac('consent', details.uid);
    const name = client?.clientName ?? clientId;
    const loopback = redirect && ['localhost', '127.0.0.1', '[::1]'].includes(redirect.hostname);
    sendPage(
      reply,
      200,
      'Authorize access',
      `<h1>Authorize ${escapeHtml(String(name))}</h1>` +
        `<p><strong>${escapeHtml(String(name))}</strong> wants to use <strong>${escapeHtml(tenant.name)}</strong> tools on your behalf.</p>` +
        `<p>Client: <code>${escapeHtml(clientId)}</code><br>It will receive the result at <strong>${escapeHtml(redirect ? (redirect.protocol.startsWith('http') ? redirect.host : redirect.protocol) : '?')}</strong></p>` +
        (loopback
          ? '<p><strong>Warning:</strong> this client runs on your own machine (localhost); approve only if you started it.</p>'
          : '') +
        `<p>Scopes: ${scopes.map((sc) => `<code>${escapeHtml(sc)}</code>`).join(' ') || '(none)'}</p>` +
        `<form method="post" action="${escapeHtml(base)}/confirm"><input type="hidden" name="csrf" value="${escapeHtml(csrf)}"><button type="submit" name="decision" value="approve">Approve</button><button type="submit" name="decision" value="deny">Deny</button></form>`,
    );
  }

  @Post(['t/:tenant/interaction/:uid/login', 'interaction/:uid/login'])
  async login(@Param('tenant') tenantId: string | undefined, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const ctx = await this.load(tenantId, req, reply);
    if (!ctx) return;
    const { tenant, details } = ctx;
    if (details.prompt.name !== 'login' || tenant.settings.idp.kind !== 'local') {
      sendPage(reply, 400, 'Invalid request', '<h1>invalid_request</h1><p>This sign-in step is not expected now.</p>');
      return;
    }
    if (!this.directory.devLogin) {
      // The any-name login is a development convenience: anywhere else it would let anyone be anyone.
      switchboardMetrics().auth.signIns.add(1, { idp: 'local', outcome: 'dev_login_refused' });
      sendPage(
        reply,
        403,
        'Sign-in refused',
        '<h1>access_denied</h1><p>The development login (any user name, no password) is off: this service does not run with SWITCHBOARD_ENV=development. Sign in with your password or passkey.</p>',
      );
      return;
    }
    const username = formBody(req).username ?? '';
    if (!USERNAME.test(username)) {
      switchboardMetrics().auth.signIns.add(1, { idp: 'local', outcome: 'invalid_username' });
      sendPage(reply, 400, 'Invalid request', '<h1>invalid_request</h1><p>username must be 1-64 characters of A-Z a-z 0-9 . _ @ -</p>');
      return;
    }
    switchboardMetrics().auth.signIns.add(1, { idp: 'local', outcome: 'ok' });
    await this.finish(tenant, req, reply, { login: { accountId: accountIdOf(tenant.id, DEV_IDP_ID, username) } });
  }

  @Post(['t/:tenant/interaction/:uid/confirm', 'interaction/:uid/confirm'])
  async confirm(@Param('tenant') tenantId: string | undefined, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const ctx = await this.load(tenantId, req, reply);
    if (!ctx) return;
    const { tenant, details } = ctx;
    const body = formBody(req);
    if (details.prompt.name !== 'consent' || body.csrf !== this.s.box.mac('consent', details.uid)) {
      sendPage(reply, 400, 'Invalid request', '<h1>invalid_request</h1><p>The consent form is invalid or expired.</p>');
      return;
    }
    if (body.decision !== 'approve') {
      await this.finish(tenant, req, reply, { error: 'access_denied', error_description: 'the user denied access' });
      return;
    }
    const { provider } = await this.s.providers.get(tenant);
    const accountId = details.session?.accountId;
    const clientId = String(details.params.client_id ?? '');
    const grant = details.grantId ? await provider.Grant.find(details.grantId) : new provider.Grant({ accountId, clientId });
    if (!grant) {
      sendPage(reply, 400, 'Invalid request', '<h1>invalid_request</h1><p>The grant expired; start again.</p>');
      return;
    }
    const d = details.prompt.details as {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    if (d.missingOIDCScope) grant.addOIDCScope(d.missingOIDCScope.join(' '));
    if (d.missingOIDCClaims) grant.addOIDCClaims(d.missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(d.missingResourceScopes ?? {})) grant.addResourceScope(indicator, scopes.join(' '));
    const grantId = await grant.save();
    await this.finish(tenant, req, reply, { consent: details.grantId ? {} : { grantId } });
  }

  private async load(tenantId: string | undefined, req: FastifyRequest, reply: FastifyReply) {
    const tenant = tenantOf(this.s.tenants, tenantId, req);
    if (!tenant) {
      sendPage(reply, 404, 'Not found', '<h1>Unknown tenant</h1>');
      return undefined;
    }
    const { provider } = await this.s.providers.get(tenant);
    const details = await loadInteraction(provider, req, reply);
    return details ? { tenant, details } : undefined;
  }

  private async finish(tenant: AuthTenant, req: FastifyRequest, reply: FastifyReply, result: InteractionResults): Promise<void> {
    const { provider } = await this.s.providers.get(tenant);
    await finishInteraction(provider, req, reply, result);
  }

  /** Redirects to the tenant's IdP with PKCE, state and nonce; the state is also put in a browser-bound cookie. */
  private async startFederatedLogin(tenant: AuthTenant, uid: string, reply: FastifyReply): Promise<void> {
    const idp = tenant.settings.idp;
    if (idp.kind !== 'oidc') return;
    const secret = this.s.secrets.open(tenant.id, 'idp', idp.clientSecret);
    let cfg;
    try {
      cfg = await this.s.upstream.config({ issuer: idp.issuer, clientId: idp.clientId, clientSecret: secret });
    } catch (err) {
      this.s.logger.warn({ err, tenant: tenant.id }, 'enterprise IdP discovery failed');
      sendPage(
        reply,
        502,
        'Sign-in unavailable',
        '<h1>temporarily_unavailable</h1><p>The sign-in provider cannot be reached. Try again later.</p>',
      );
      return;
    }
    const { url, state } = await startIdpAuthorization(this.s, cfg, tenant, idp.scopes, 'login', ({ verifier, nonce }) => ({
      uid,
      verifier,
      nonce,
    }));
    void reply
      .code(303)
      .header(
        'set-cookie',
        cookieHeader(federationCookieName(tenant.id), state, {
          path: `${tenant.mountPath}/federation`,
          maxAge: 600,
          secure: tenant.issuer.startsWith('https:'),
        }),
      )
      .header('location', url.href)
      .header('cache-control', 'no-store')
      .send();
  }
}

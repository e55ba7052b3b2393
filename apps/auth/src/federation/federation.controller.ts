import { Controller, Get, Inject, Param, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { AUTH_SERVICES, type AuthServices } from '../auth-services';
import { federationCookieName } from '../interaction/interaction.controller';
import { cookieHeader, readCookie, sendPage, tenantOf } from '../http/request-helpers';
import type { AuthTenant } from '../tenants/tenant-auth';
import { accountIdOf, idpIdOf } from '../users/subject';
import { AccountLogin } from '../vault/account-login';
import { IdpTestFlow } from './idp-test.controller';
import { countFederatedSignIn, redeemIdpCallback } from './idp-authorization';

interface LoginState {
  uid: string;
  verifier: string;
  nonce: string;
}

/**
 * The enterprise IdP's redirect back to us. The `state` must match the cookie set in the
 * browser that started the login (login CSRF: an attacker's callback link opened by a victim
 * fails here) and a stored, single-use record; openid-client then checks `iss`, state, nonce,
 * PKCE and the ID token. The account id is namespaced by tenant (`acme|alice`).
 */
@Controller()
export class FederationController {
  private readonly idpTest: IdpTestFlow;
  private readonly accountLogin: AccountLogin;

  constructor(@Inject(AUTH_SERVICES) private readonly s: AuthServices) {
    this.idpTest = new IdpTestFlow(s);
    this.accountLogin = new AccountLogin(s);
  }

  @Get(['t/:tenant/federation/callback', 'federation/callback'])
  async callback(@Param('tenant') tenantId: string | undefined, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const tenant = tenantOf(this.s.tenants, tenantId, req);
    if (!tenant || tenant.settings.idp.kind !== 'oidc') {
      sendPage(reply, 404, 'Not found', '<h1>Unknown tenant</h1>');
      return;
    }
    // A console "test sign-in" comes back here too (the one redirect URI registered at the IdP).
    if (await this.idpTest.finish(tenant, req, reply)) return;
    // So does the connected-accounts page's own sign-in.
    if (await this.accountLogin.finish(tenant, req, reply)) return;
    const idp = tenant.settings.idp;
    const query = req.raw.url?.includes('?') ? req.raw.url.slice(req.raw.url.indexOf('?')) : '';
    const params = new URLSearchParams(query);
    const state = params.get('state') ?? '';
    const cookie = readCookie(req, federationCookieName(tenant.id)) ?? '';
    const clear = cookieHeader(federationCookieName(tenant.id), '', {
      path: `${tenant.mountPath}/federation`,
      maxAge: 0,
      secure: tenant.issuer.startsWith('https:'),
    });
    if (!state || !cookie || cookie.length !== state.length || !timingSafeEqual(Buffer.from(cookie), Buffer.from(state))) {
      countFederatedSignIn('not_started_here');
      sendPage(
        reply.header('set-cookie', clear),
        400,
        'Sign-in refused',
        '<h1>access_denied</h1><p>This sign-in was not started in this browser. Start again from your application.</p>',
      );
      return;
    }
    const saved = await this.s.federation.take<LoginState>(state, tenant.id, 'login');
    if (!saved) {
      countFederatedSignIn('unknown_state');
      sendPage(
        reply.header('set-cookie', clear),
        400,
        'Sign-in refused',
        '<h1>invalid_request</h1><p>This sign-in is unknown, expired or already used.</p>',
      );
      return;
    }
    const sub = await this.redeem(tenant, query, state, saved);
    if (sub === undefined) {
      countFederatedSignIn('idp_refused');
      sendPage(
        reply.header('set-cookie', clear),
        400,
        'Sign-in refused',
        '<h1>access_denied</h1><p>The sign-in provider response was refused.</p>',
      );
      return;
    }
    const { provider } = await this.s.providers.get(tenant);
    // The interaction cookie is scoped to the interaction path, so load the interaction by id.
    const interaction = await provider.Interaction.find(saved.uid);
    if (!interaction) {
      countFederatedSignIn('session_expired');
      sendPage(
        reply.header('set-cookie', clear),
        400,
        'Session expired',
        '<h1>invalid_request</h1><p>The sign-in session expired. Start again from your application.</p>',
      );
      return;
    }
    interaction.result = { login: { accountId: accountIdOf(tenant.id, idpIdOf(idp), sub) } };
    await interaction.save(Math.max(1, interaction.exp - Math.floor(Date.now() / 1000)));
    countFederatedSignIn('ok');
    void reply.code(303).header('set-cookie', clear).header('location', interaction.returnTo).header('cache-control', 'no-store').send();
  }

  /** The IdP's subject from the callback (openid-client checks iss, state, nonce, PKCE and the ID token); undefined when refused. */
  private async redeem(tenant: AuthTenant, query: string, state: string, saved: LoginState): Promise<string | undefined> {
    const idp = tenant.settings.idp;
    if (idp.kind !== 'oidc') return undefined;
    try {
      const cfg = await this.s.upstream.config({
        issuer: idp.issuer,
        clientId: idp.clientId,
        clientSecret: this.s.secrets.open(tenant.id, 'idp', idp.clientSecret),
      });
      const claims = (await redeemIdpCallback(cfg, tenant, query, state, saved)).claims();
      if (!claims?.sub) throw new Error('the ID token has no sub');
      return claims.sub;
    } catch (err) {
      this.s.logger.warn({ err: (err as Error).message, tenant: tenant.id }, 'enterprise IdP callback refused');
      return undefined;
    }
  }
}

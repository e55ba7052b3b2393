import type { FastifyReply, FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { NetGuardError } from '@switchboard/net-guard';
import { hashId } from '@switchboard/secret-box';
import type { AuthServices } from '../auth-services';
import { countFederatedSignIn, redeemIdpCallback, startIdpAuthorization } from '../federation/idp-authorization';
import { escapeHtml } from '../http/html';
import { cookieHeader, readCookie, sendPage } from '../http/request-helpers';
import type { AuthTenant } from '../tenants/tenant-auth';
import { accountIdOf, idpIdOf } from '../users/subject';

/** How long a sign-in to the connected-accounts page lasts (it only lists and unlinks). */
const ACCOUNT_TTL_S = 3600;
const LOGIN_TTL_S = 600;

interface AccountLoginState {
  verifier: string;
  nonce: string;
  /** Where to go once signed in (a link confirmation page, checked when the sign-in started). */
  returnTo?: string;
}

/**
 * Sign-in for the connected-accounts page when the browser has no session at the tenant's
 * authorization server: the tenant's enterprise IdP (code + PKCE + nonce through the registered
 * `/federation/callback`) or, for development tenants, the local form. The result is a sealed,
 * hour-long cookie scoped to `<mount>/account` naming the account (`<tenant>|<sub>`, as tokens do).
 */
export class AccountLogin {
  constructor(private readonly s: AuthServices) {}

  cookieName(tenant: AuthTenant): string {
    return `sb_${tenant.id}_account`;
  }

  /** The account of a valid sign-in cookie, with a stable id for CSRF tokens. */
  account(tenant: AuthTenant, req: FastifyRequest): { id: string; accountId: string } | undefined {
    const raw = readCookie(req, this.cookieName(tenant));
    if (!raw || raw.length > 4096) return undefined;
    try {
      const v = JSON.parse(this.s.box.open(raw, this.aad(tenant))) as { accountId?: unknown; exp?: unknown };
      if (typeof v.accountId !== 'string' || typeof v.exp !== 'number' || v.exp < Date.now() / 1000) return undefined;
      return { id: `account:${hashId(raw)}`, accountId: v.accountId };
    } catch {
      return undefined;
    }
  }

  /** Set-Cookie of a signed-in account. */
  signedIn(tenant: AuthTenant, accountId: string): string {
    const sealed = this.s.box.seal(JSON.stringify({ accountId, exp: Math.floor(Date.now() / 1000) + ACCOUNT_TTL_S }), this.aad(tenant));
    return cookieHeader(this.cookieName(tenant), sealed, {
      path: `${tenant.mountPath}/account`,
      maxAge: ACCOUNT_TTL_S,
      secure: tenant.issuer.startsWith('https:'),
    });
  }

  /** Redirects to the tenant's IdP (an `oidc` tenant); `returnTo` (a same-tenant path the caller checked) is where the sign-in ends. */
  async start(tenant: AuthTenant, reply: FastifyReply, returnTo?: string): Promise<void> {
    const idp = tenant.settings.idp;
    if (idp.kind !== 'oidc') return;
    let cfg;
    try {
      cfg = await this.s.upstream.config({
        issuer: idp.issuer,
        clientId: idp.clientId,
        clientSecret: this.s.secrets.open(tenant.id, 'idp', idp.clientSecret),
      });
    } catch (err) {
      // A refusal by the outbound guard is the tenant's configuration, and its message is safe to show (it names the host and the rule).
      const refused = err instanceof NetGuardError ? ` ${escapeHtml(err.message)}.` : '';
      this.s.logger.warn(
        { err: (err as Error).message, tenant: tenant.id, event: 'idp.discovery_failed' },
        'identity provider discovery failed',
      );
      return void sendPage(
        reply,
        502,
        'Sign-in unavailable',
        `<h1>temporarily_unavailable</h1><p data-testid="idp-unavailable">The sign-in provider cannot be reached.${refused} Try again later.</p>`,
      );
    }
    const { url, state } = await startIdpAuthorization(
      this.s,
      cfg,
      tenant,
      idp.scopes,
      'account-login',
      (secrets) => ({ ...secrets, ...(returnTo ? { returnTo } : {}) }) satisfies AccountLoginState,
      { ttlSeconds: LOGIN_TTL_S },
    );
    void reply
      .code(303)
      .header(
        'set-cookie',
        cookieHeader(this.stateCookie(tenant), state, {
          path: `${tenant.mountPath}/federation`,
          maxAge: LOGIN_TTL_S,
          secure: tenant.issuer.startsWith('https:'),
        }),
      )
      .header('location', url.href)
      .header('cache-control', 'no-store')
      .send();
  }

  /** The IdP's redirect back when this browser started an account sign-in (its cookie matches `state`); false otherwise. */
  async finish(tenant: AuthTenant, req: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    const idp = tenant.settings.idp;
    const query = req.raw.url?.includes('?') ? req.raw.url.slice(req.raw.url.indexOf('?')) : '';
    const state = new URLSearchParams(query).get('state') ?? '';
    const cookie = readCookie(req, this.stateCookie(tenant)) ?? '';
    if (idp.kind !== 'oidc' || !state || cookie.length !== state.length || !timingSafeEqual(Buffer.from(cookie), Buffer.from(state)))
      return false;
    const clear = cookieHeader(this.stateCookie(tenant), '', {
      path: `${tenant.mountPath}/federation`,
      maxAge: 0,
      secure: tenant.issuer.startsWith('https:'),
    });
    const saved = await this.s.federation.take<AccountLoginState>(state, tenant.id, 'account-login');
    if (!saved) {
      countFederatedSignIn('unknown_state');
      sendPage(
        reply.header('set-cookie', clear),
        400,
        'Sign-in refused',
        '<h1>invalid_request</h1><p>This sign-in is unknown, expired or already used.</p>',
      );
      return true;
    }
    try {
      const cfg = await this.s.upstream.config({
        issuer: idp.issuer,
        clientId: idp.clientId,
        clientSecret: this.s.secrets.open(tenant.id, 'idp', idp.clientSecret),
      });
      const tokens = await redeemIdpCallback(cfg, tenant, query, state, saved);
      const sub = tokens.claims()?.sub;
      if (!sub) throw new Error('the ID token has no sub');
      countFederatedSignIn('ok');
      void reply
        .code(303)
        .header('set-cookie', [clear, this.signedIn(tenant, accountIdOf(tenant.id, idpIdOf(idp), sub))])
        .header('location', saved.returnTo ?? `${tenant.mountPath}/account/connections`)
        .header('cache-control', 'no-store')
        .send();
    } catch (err) {
      countFederatedSignIn('idp_refused');
      this.s.logger.warn({ err: (err as Error).message, tenant: tenant.id }, 'connected-accounts sign-in refused');
      sendPage(
        reply.header('set-cookie', clear),
        400,
        'Sign-in refused',
        '<h1>access_denied</h1><p>The sign-in provider response was refused.</p>',
      );
    }
    return true;
  }

  private stateCookie(tenant: AuthTenant): string {
    return `sb_${tenant.id}_acctfed`;
  }

  private aad(tenant: AuthTenant): string {
    return `account-session:${tenant.id}`;
  }
}

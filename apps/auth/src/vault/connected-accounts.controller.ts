import { Controller, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { AUTH_SERVICES, type AuthServices } from '../auth-services';
import { escapeHtml } from '../http/html';
import { formBody, sendPage, tenantOf } from '../http/request-helpers';
import { USERNAME } from '../tenants/identifiers';
import type { AuthTenant } from '../tenants/tenant-auth';
import { DEV_LOGIN_OFF_PAGE, devLoginAllowed } from '../users/dev-login';
import { accountIdOf, DEV_IDP_ID, displayUser } from '../users/subject';
import { AccountLogin } from './account-login';
import { browserSession, type BrowserSession } from './browser-session';
import { isConfirmationReturn } from './link-confirmation';
import { VaultAccounts } from './vault-accounts';

/** Connector ids are server ids (`^[a-z0-9][a-z0-9_-]{0,31}$`): anything else is refused before a query. */
const CONNECTOR_ID = /^[a-z0-9][a-z0-9_-]{0,31}$/;

/**
 * "Connected accounts" for end users (issue 11): someone signed in to a tenant's authorization
 * server (its session cookie, set when they signed in for Claude or ChatGPT — or this page's own
 * sign-in through the tenant's IdP, see AccountLogin) sees the upstream
 * accounts they linked there — server, scopes, linked at, last refreshed — and can unlink one.
 * The unlink POST carries a token bound to the session and the connector (CSRF; the cookie is
 * SameSite=Lax as well); another user's rows are never reachable: every query is keyed by the
 * session's own account.
 */
@Controller()
export class ConnectedAccountsController {
  private readonly accounts: VaultAccounts;
  private readonly login: AccountLogin;

  constructor(@Inject(AUTH_SERVICES) private readonly s: AuthServices) {
    this.accounts = new VaultAccounts(s.pool, s.config.AUTH_DB_SCHEMA);
    this.login = new AccountLogin(s);
  }

  @Get(['t/:tenant/account/connections/login', 'account/connections/login'])
  async startLogin(@Param('tenant') tenantId: string | undefined, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const tenant = this.tenantOf(tenantId, req);
    if (!tenant) return void sendPage(reply, 404, 'Not found', '<h1>Unknown tenant</h1>');
    const returnTo = this.returnTo(tenant, new URLSearchParams(req.raw.url?.split('?')[1] ?? '').get('return'));
    if (tenant.settings.idp.kind === 'oidc') return this.login.start(tenant, reply, returnTo);
    // The any-name form signs in as whoever is typed: it exists for development only (a link is honoured for the signed-in subject).
    if (!devLoginAllowed(this.s)) {
      return void sendPage(
        reply,
        200,
        'Sign in',
        `<h1>Sign in to ${escapeHtml(tenant.name)}</h1><p data-testid="sign-in-elsewhere">Sign in through your assistant first (connect it to ${escapeHtml(tenant.name)} in this browser), then open this page or your link again.</p>`,
      );
    }
    sendPage(
      reply,
      200,
      'Sign in',
      `<h1>Sign in to ${escapeHtml(tenant.name)}</h1><p>Development login: any user name is accepted.</p>` +
        `<form method="post" action="${escapeHtml(`${tenant.mountPath}/account/connections/login`)}">${returnTo ? `<input type="hidden" name="return" value="${escapeHtml(returnTo)}">` : ''}<label>User name <input name="username" autocomplete="username" required></label> <button type="submit">Sign in</button></form>`,
    );
  }

  /** The development (local) login of a tenant without an enterprise IdP. */
  @Post(['t/:tenant/account/connections/login', 'account/connections/login'])
  async localLogin(@Param('tenant') tenantId: string | undefined, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const tenant = this.tenantOf(tenantId, req);
    if (!tenant) return void sendPage(reply, 404, 'Not found', '<h1>Unknown tenant</h1>');
    if (tenant.settings.idp.kind !== 'local')
      return void sendPage(
        reply,
        400,
        'Invalid request',
        '<h1>invalid_request</h1><p>This workspace signs in through its identity provider.</p>',
      );
    if (!devLoginAllowed(this.s)) return void sendPage(reply, 403, 'Sign in', DEV_LOGIN_OFF_PAGE);
    const form = formBody(req);
    const username = form.username ?? '';
    if (!USERNAME.test(username))
      return void sendPage(
        reply,
        400,
        'Invalid request',
        '<h1>invalid_request</h1><p>username must be 1-64 characters of A-Z a-z 0-9 . _ @ -</p>',
      );
    void reply
      .code(303)
      .header('set-cookie', this.login.signedIn(tenant, accountIdOf(tenant.id, DEV_IDP_ID, username)))
      .header('location', this.returnTo(tenant, form.return ?? null) ?? `${tenant.mountPath}/account/connections`)
      .header('cache-control', 'no-store')
      .send();
  }

  @Get(['t/:tenant/account/connections', 'account/connections'])
  async show(@Param('tenant') tenantId: string | undefined, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const tenant = this.tenantOf(tenantId, req);
    if (!tenant) return void sendPage(reply, 404, 'Not found', '<h1>Unknown tenant</h1>');
    const session = await this.session(tenant, req);
    if (!session) return void this.signedOut(tenant, reply);
    const notice = new URLSearchParams(req.raw.url?.split('?')[1] ?? '').get('unlinked');
    const rows = await this.accounts.list(tenant.id, session.accountId);
    const base = `${tenant.mountPath}/account/connections`;
    const user = displayUser(tenant.id, session.accountId);
    const table =
      rows.length === 0
        ? '<p data-testid="no-accounts">You have not linked any accounts yet. When a tool needs one, your assistant gives you a link.</p>'
        : `<table data-testid="accounts"><thead><tr><th scope="col">Server</th><th scope="col">Scopes</th><th scope="col">Linked at</th><th scope="col">Last refreshed</th><th scope="col"></th></tr></thead><tbody>` +
          rows
            .map((r) => {
              const connector = tenant.settings.connectors[r.connector];
              const scopes = connector
                ? connector.scopes.map((sc) => `<code>${escapeHtml(sc)}</code>`).join(' ') || '(none)'
                : '(this server no longer uses a connector)';
              return (
                `<tr data-connector="${escapeHtml(r.connector)}"><td>${escapeHtml(r.connector)}</td><td>${scopes}</td><td><time datetime="${r.linkedAt.toISOString()}">${fmt(r.linkedAt)}</time></td>` +
                `<td><time datetime="${r.refreshedAt.toISOString()}">${fmt(r.refreshedAt)}</time></td>` +
                `<td><form method="post" action="${escapeHtml(`${base}/${encodeURIComponent(r.connector)}/unlink`)}"><input type="hidden" name="csrf" value="${escapeHtml(this.csrf(tenant, session.id, r.connector))}">` +
                `<button type="submit" aria-label="Unlink ${escapeHtml(r.connector)}">Unlink</button></form></td></tr>`
              );
            })
            .join('') +
          '</tbody></table>';
    sendPage(
      reply,
      200,
      'Connected accounts',
      `<h1>Connected accounts</h1><p>Signed in to <strong>${escapeHtml(tenant.name)}</strong> as <strong data-testid="user">${escapeHtml(user)}</strong>.</p>` +
        (notice && CONNECTOR_ID.test(notice)
          ? `<p role="status" data-testid="notice">Unlinked ${escapeHtml(notice)}. The next call that needs it asks you to link it again.</p>`
          : '') +
        table,
    );
  }

  @Post(['t/:tenant/account/connections/:connector/unlink', 'account/connections/:connector/unlink'])
  async unlink(
    @Param('tenant') tenantId: string | undefined,
    @Param('connector') connector: string,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const tenant = this.tenantOf(tenantId, req);
    if (!tenant) return void sendPage(reply, 404, 'Not found', '<h1>Unknown tenant</h1>');
    const session = await this.session(tenant, req);
    if (!session) return void this.signedOut(tenant, reply, 401);
    if (!CONNECTOR_ID.test(connector))
      return void sendPage(reply, 400, 'Invalid request', '<h1>invalid_request</h1><p>connector must be a server id.</p>');
    const csrf = formBody(req).csrf ?? '';
    const expected = this.csrf(tenant, session.id, connector);
    if (csrf.length !== expected.length || !timingSafeEqual(Buffer.from(csrf), Buffer.from(expected))) {
      return void sendPage(
        reply,
        403,
        'Refused',
        '<h1>access_denied</h1><p>The unlink form is invalid or expired (csrf). Reload the page and try again.</p>',
      );
    }
    const removed = await this.accounts.unlink(tenant.id, session.accountId, connector);
    if (!removed)
      return void sendPage(reply, 404, 'Not linked', `<h1>Not linked</h1><p>${escapeHtml(connector)} is not linked to your account.</p>`);
    this.s.logger.info({ tenant: tenant.id, connector, event: 'vault.unlink' }, 'user unlinked an upstream account');
    void reply
      .code(303)
      .header('location', `${tenant.mountPath}/account/connections?unlinked=${encodeURIComponent(connector)}`)
      .header('cache-control', 'no-store')
      .send();
  }

  /** Tenants only: the platform issuer has no vault. */
  private tenantOf(tenantId: string | undefined, req: FastifyRequest): AuthTenant | undefined {
    const t = tenantOf(this.s.tenants, tenantId, req);
    return t && !t.firstParty ? t : undefined;
  }

  /** A sign-in's way back: only a link confirmation page of this tenant (never an open redirect). */
  private returnTo(tenant: AuthTenant, raw: string | null): string | undefined {
    return raw && raw.length <= 2048 && isConfirmationReturn(tenant, raw) ? raw : undefined;
  }

  private session(tenant: AuthTenant, req: FastifyRequest): Promise<BrowserSession | undefined> {
    return browserSession(this.s, this.login, tenant, req);
  }

  private csrf(tenant: AuthTenant, sessionId: string, connector: string): string {
    return this.s.box.mac('unlink', `${tenant.id}|${sessionId}|${connector}`);
  }

  private signedOut(tenant: AuthTenant, reply: FastifyReply, status = 200): void {
    sendPage(
      reply,
      status,
      'Connected accounts',
      `<h1>Connected accounts</h1><p data-testid="signed-out">You are not signed in to <strong>${escapeHtml(tenant.name)}</strong>. <a href="${escapeHtml(`${tenant.mountPath}/account/connections/login`)}">Sign in</a> to see the accounts you linked.</p>`,
    );
  }
}

function fmt(d: Date): string {
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

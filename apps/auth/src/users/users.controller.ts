import { Controller, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import { AUTH_SERVICES, type AuthServices } from '../auth-services';
import { escapeHtml } from '../http/html';
import { cookieHeader, formBody, readCookie, sendOAuthError, tenantOf } from '../http/request-helpers';
import type { AuthTenant } from '../tenants/tenant-auth';
import { PASSKEY_SCRIPT } from './passkey-script';
import { Passkeys } from './passkeys';
import { DIRECTORY_IDP_ID } from './subject';
import { DIRECTORY_UNAVAILABLE, passkeyScripts, sendUserPage } from './user-pages';

/** How long a passkey enrolment (after setting a password, or from the account page) may take. */
const ENROLL_TTL_S = 600;
const PASSWORD_MIN = 12;
const PASSWORD_MAX = 1024;
const MAX_REGISTRATION_CHARS = 32 * 1024;

/**
 * The browser half of SimpleWebAuthn, served from the package's own bundled file (UMD, global
 * `SimpleWebAuthnBrowser`), and our small script that wires buttons to it. Read once at boot.
 */
const ASSETS: Record<string, string> = {
  'simplewebauthn-browser.js': readFileSync(
    path.join(path.dirname(require.resolve('@simplewebauthn/browser')), '../dist/bundle/index.umd.min.js'),
    'utf8',
  ),
  'passkey.js': PASSKEY_SCRIPT,
};

/**
 * The tenant user directory's own pages at the tenant's authorization server: setting a password
 * through a one-time invite or reset link (then, optionally, adding a passkey), and adding a
 * passkey later while signed in. The links come from the registry's admin API (no e-mail).
 */
@Controller()
export class UsersController {
  private readonly passkeys: Passkeys;

  constructor(@Inject(AUTH_SERVICES) private readonly s: AuthServices) {
    this.passkeys = new Passkeys(s);
  }

  @Get(['t/:tenant/users/assets/:file', 'users/assets/:file'])
  asset(@Param('file') file: string, @Res() reply: FastifyReply): void {
    const body = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined;
    if (body === undefined) return void reply.code(404).send({ error: 'not_found' });
    void reply.header('content-type', 'text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(body);
  }

  @Get(['t/:tenant/users/set-password', 'users/set-password'])
  async showSetPassword(
    @Param('tenant') tenantId: string | undefined,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const tenant = this.tenant(tenantId, req, reply);
    if (!tenant) return;
    const token = new URLSearchParams(req.raw.url?.split('?')[1] ?? '').get('token') ?? '';
    const info = await this.s.users.linkInfo(tenant.id, token);
    if (info.outcome === 'unavailable')
      return void sendUserPage(reply, 503, 'Unavailable', `<h1>temporarily_unavailable</h1><p>${DIRECTORY_UNAVAILABLE}</p>`);
    if (info.outcome === 'denied') return void this.deadLink(reply);
    this.setPasswordForm(reply, 200, tenant, token, info.value.username, info.value.purpose);
  }

  @Post(['t/:tenant/users/set-password', 'users/set-password'])
  async setPassword(@Param('tenant') tenantId: string | undefined, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const tenant = this.tenant(tenantId, req, reply);
    if (!tenant) return;
    const body = formBody(req);
    const token = body.token ?? '';
    const password = body.password ?? '';
    const info = await this.s.users.linkInfo(tenant.id, token);
    if (info.outcome === 'unavailable')
      return void sendUserPage(reply, 503, 'Unavailable', `<h1>temporarily_unavailable</h1><p>${DIRECTORY_UNAVAILABLE}</p>`);
    if (info.outcome === 'denied') return void this.deadLink(reply);
    const { username, purpose } = info.value;
    let problem: string | undefined;
    if (password.length < PASSWORD_MIN) problem = `password: must be at least ${PASSWORD_MIN} characters.`;
    else if (password.length > PASSWORD_MAX) problem = `password: must be at most ${PASSWORD_MAX} characters.`;
    else if (password.includes('\u0000')) problem = 'password: cannot contain a NUL character.';
    else if (password !== body.confirm) problem = 'confirm: the two passwords differ.';
    if (problem) return void this.setPasswordForm(reply, 400, tenant, token, username, purpose, problem);
    const done = await this.s.users.redeemLink(tenant.id, token, password);
    if (done.outcome === 'unavailable')
      return void sendUserPage(reply, 503, 'Unavailable', `<h1>temporarily_unavailable</h1><p>${DIRECTORY_UNAVAILABLE}</p>`);
    // Another tab redeemed the link between our two calls.
    if (done.outcome === 'denied') return void this.deadLink(reply);
    reply.header('set-cookie', this.enrollCookie(tenant, done.value.username));
    this.enrollPage(
      reply,
      tenant,
      done.value.username,
      '<p role="status" data-testid="password-set">Your password is set. You can now sign in with it from your application.</p>',
    );
  }

  /** Adding a passkey while signed in at the tenant's authorization server (its session cookie). */
  @Get(['t/:tenant/users/passkeys', 'users/passkeys'])
  async showPasskeys(@Param('tenant') tenantId: string | undefined, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const tenant = this.tenant(tenantId, req, reply);
    if (!tenant) return;
    const username = (await this.sessionUser(tenant, req)) ?? this.enrolling(tenant, req);
    if (!username) {
      return void sendUserPage(
        reply,
        401,
        'Passkeys',
        '<h1>Passkeys</h1><p>Sign in to this workspace from your application first (with your password), then open this page again.</p>',
      );
    }
    reply.header('set-cookie', this.enrollCookie(tenant, username));
    this.enrollPage(reply, tenant, username, '');
  }

  @Post(['t/:tenant/users/passkeys/options', 'users/passkeys/options'])
  async registrationOptions(
    @Param('tenant') tenantId: string | undefined,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const tenant = this.tenantJson(tenantId, req, reply);
    if (!tenant) return;
    const username = this.checkedEnroller(tenant, req, reply);
    if (!username) return;
    const options = await this.passkeys.registrationOptions(tenant, username);
    if (options.outcome === 'unavailable') return this.unavailable(reply, tenant, options.reason);
    if (options.outcome === 'denied')
      return void sendOAuthError(reply, 403, 'access_denied', 'this account cannot add passkeys (disabled or removed)');
    void reply.header('cache-control', 'no-store').send({ options: options.value });
  }

  @Post(['t/:tenant/users/passkeys/register', 'users/passkeys/register'])
  async register(@Param('tenant') tenantId: string | undefined, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const tenant = this.tenantJson(tenantId, req, reply);
    if (!tenant) return;
    const username = this.checkedEnroller(tenant, req, reply);
    if (!username) return;
    const body = (req.body ?? {}) as Record<string, unknown>;
    const response = body.response;
    if (!response || typeof response !== 'object' || JSON.stringify(response).length > MAX_REGISTRATION_CHARS) {
      return void sendOAuthError(reply, 400, 'invalid_request', 'response: must be a WebAuthn registration (startRegistration result)');
    }
    const name =
      typeof body.name === 'string' && /^[\x20-\x7e]{1,64}$/.test(body.name.trim())
        ? body.name.trim()
        : `Passkey added ${new Date().toISOString().slice(0, 10)}`;
    const added = await this.passkeys.register(tenant, username, response as RegistrationResponseJSON, name);
    if (added.outcome === 'unavailable') return this.unavailable(reply, tenant, added.reason);
    if (added.outcome === 'denied')
      return void sendOAuthError(
        reply,
        400,
        'invalid_request',
        'the passkey was refused (expired challenge, already registered, or the limit of passkeys is reached)',
      );
    void reply.header('cache-control', 'no-store').send({ message: 'Passkey added. Next time, choose "Sign in with a passkey".' });
  }

  private unavailable(reply: FastifyReply, tenant: AuthTenant, reason: string): void {
    this.s.logger.warn({ tenant: tenant.id, reason }, 'passkey registration: the user directory is unavailable');
    sendOAuthError(reply, 503, 'temporarily_unavailable', DIRECTORY_UNAVAILABLE);
  }

  private setPasswordForm(
    reply: FastifyReply,
    status: number,
    tenant: AuthTenant,
    token: string,
    username: string,
    purpose: string,
    alert?: string,
  ): void {
    const action = `${tenant.mountPath}/users/set-password`;
    sendUserPage(
      reply,
      status,
      purpose === 'invite' ? 'Welcome' : 'Reset your password',
      `<h1>${purpose === 'invite' ? `Welcome to ${escapeHtml(tenant.name)}` : 'Reset your password'}</h1>` +
        `<p>Account: <strong data-testid="username">${escapeHtml(username)}</strong>. Choose a password (at least ${PASSWORD_MIN} characters). This link works once.</p>` +
        (alert ? `<p role="alert" class="alert" data-testid="alert">${escapeHtml(alert)}</p>` : '') +
        `<form method="post" action="${escapeHtml(action)}"><input type="hidden" name="token" value="${escapeHtml(token)}">` +
        `<input type="text" name="username" value="${escapeHtml(username)}" autocomplete="username" hidden readonly>` +
        `<label>New password <input name="password" type="password" autocomplete="new-password" required minlength="${PASSWORD_MIN}" maxlength="${PASSWORD_MAX}"></label>` +
        `<label>Repeat it <input name="confirm" type="password" autocomplete="new-password" required></label><button type="submit">Set password</button></form>`,
    );
  }

  private enrollPage(reply: FastifyReply, tenant: AuthTenant, username: string, notice: string): void {
    const base = `${tenant.mountPath}/users/passkeys`;
    sendUserPage(
      reply,
      200,
      'Passkeys',
      `<h1>Passkeys</h1>${notice}<p>Add a passkey for <strong data-testid="enroll-user">${escapeHtml(username)}</strong> to sign in without a password (fingerprint, face, device PIN or security key).</p>` +
        `<label>Name of this passkey <input id="passkey-name" maxlength="64" value="My passkey"></label>` +
        `<button type="button" data-passkey="register" data-options="${escapeHtml(base)}/options" data-verify="${escapeHtml(base)}/register" data-csrf="${escapeHtml(this.enrollCsrf(tenant, username))}" data-name="passkey-name" data-status="passkey-status">Add a passkey</button>` +
        `<p role="status" id="passkey-status" data-testid="passkey-status"></p>`,
      passkeyScripts(tenant.mountPath),
    );
  }

  private deadLink(reply: FastifyReply): void {
    sendUserPage(
      reply,
      410,
      'Link expired',
      '<h1>This link is no longer valid</h1><p data-testid="dead-link">It was already used, has expired, or was replaced by a newer one. Ask your workspace administrator for a new link.</p>',
    );
  }

  private enrollCookieName(tenant: AuthTenant): string {
    return `sb_${tenant.id}_enroll`;
  }

  private enrollCookie(tenant: AuthTenant, username: string): string {
    const sealed = this.s.box.seal(
      JSON.stringify({ username, exp: Math.floor(Date.now() / 1000) + ENROLL_TTL_S }),
      `passkey-enroll:${tenant.id}`,
    );
    return cookieHeader(this.enrollCookieName(tenant), sealed, {
      path: `${tenant.mountPath}/users`,
      maxAge: ENROLL_TTL_S,
      secure: tenant.issuer.startsWith('https:'),
    });
  }

  /** The user a valid enrolment cookie names. */
  private enrolling(tenant: AuthTenant, req: FastifyRequest): string | undefined {
    const raw = readCookie(req, this.enrollCookieName(tenant));
    if (!raw || raw.length > 4096) return undefined;
    try {
      const v = JSON.parse(this.s.box.open(raw, `passkey-enroll:${tenant.id}`)) as { username?: unknown; exp?: unknown };
      return typeof v.username === 'string' && typeof v.exp === 'number' && v.exp > Date.now() / 1000 ? v.username : undefined;
    } catch {
      return undefined;
    }
  }

  private enrollCsrf(tenant: AuthTenant, username: string): string {
    return this.s.box.mac('passkey-enroll', `${tenant.id}|${username}`);
  }

  /** The enrolling user when the cookie and the CSRF token agree (else a JSON error was sent). */
  private checkedEnroller(tenant: AuthTenant, req: FastifyRequest, reply: FastifyReply): string | undefined {
    const username = this.enrolling(tenant, req);
    const csrf = (req.body as Record<string, unknown> | undefined)?.csrf;
    const expected = username ? this.enrollCsrf(tenant, username) : '';
    if (
      !username ||
      typeof csrf !== 'string' ||
      csrf.length !== expected.length ||
      !timingSafeEqual(Buffer.from(csrf), Buffer.from(expected))
    ) {
      return void sendOAuthError(reply, 401, 'access_denied', 'csrf: the passkey page is expired; open it again');
    }
    return username;
  }

  /** The directory user of the browser's session at the tenant's provider (same check as the connected-accounts page). */
  private async sessionUser(tenant: AuthTenant, req: FastifyRequest): Promise<string | undefined> {
    const name = `sb_${tenant.id}_session`;
    const id = readCookie(req, name);
    const sig = readCookie(req, `${name}.sig`);
    if (!id || !sig || id.length > 200) return undefined;
    const key = this.s.box.derive(`cookies:${tenant.id}`).toString('base64url');
    const expected = createHmac('sha1', key).update(`${name}=${id}`).digest('base64url');
    if (expected.length !== sig.length || !timingSafeEqual(Buffer.from(expected), Buffer.from(sig))) return undefined;
    const { provider } = await this.s.providers.get(tenant);
    const accountId = (await provider.Session.find(id))?.accountId;
    const prefix = `${tenant.id}|${DIRECTORY_IDP_ID}|`;
    return typeof accountId === 'string' && accountId.startsWith(prefix) ? accountId.slice(prefix.length) : undefined;
  }

  private tenant(tenantId: string | undefined, req: FastifyRequest, reply: FastifyReply): AuthTenant | undefined {
    const t = tenantOf(this.s.tenants, tenantId, req);
    if (!t || t.firstParty || t.settings.idp.kind !== 'local')
      return void sendUserPage(reply, 404, 'Not found', '<h1>Not found</h1><p>This workspace has no user directory.</p>');
    return t;
  }

  private tenantJson(tenantId: string | undefined, req: FastifyRequest, reply: FastifyReply): AuthTenant | undefined {
    const t = tenantOf(this.s.tenants, tenantId, req);
    if (!t || t.firstParty || t.settings.idp.kind !== 'local')
      return void sendOAuthError(reply, 404, 'invalid_request', 'this workspace has no user directory');
    return t;
  }
}

import type { FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { switchboardMetrics } from '@switchboard/telemetry';
import type { AuthServices } from '../auth-services';
import { formBody, sendOAuthError } from '../http/request-helpers';
import type { AuthTenant } from '../tenants/tenant-auth';
import { USERNAME } from '../tenants/identifiers';
import { devLoginAllowed } from './dev-login';
import { Passkeys } from './passkeys';
import { accountIdOf, DIRECTORY_IDP_ID } from './subject';
import { DIRECTORY_LOGIN_ERROR, DIRECTORY_UNAVAILABLE, passkeyScripts, sendUserPage, signInPage } from './user-pages';

type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

const MAX_PASSWORD = 1024;
/** A passkey assertion is a few hundred bytes of base64url; anything far larger is refused unread. */
const MAX_ASSERTION_CHARS = 16 * 1024;

/**
 * Sign-in of tenants without an enterprise IdP (idp.kind 'local'): the tenant user directory,
 * by password or passkey. Before a password is checked, the account's lockout and the
 * per-IP limiter are consulted and a verification slot is taken, as for console sign-in, so a
 * guessing attacker gets 429s, never free scrypt work at the registry. A refusal never says
 * whether the user exists. The any-name login is a development convenience only
 * (SWITCHBOARD_ENV=development), shown on the page in a marked box.
 */
export class DirectorySignIn {
  readonly passkeys: Passkeys;

  constructor(private readonly s: AuthServices) {
    this.passkeys = new Passkeys(s);
  }

  get devLogin(): boolean {
    return devLoginAllowed(this.s);
  }

  get configured(): boolean {
    return this.s.users.configured;
  }

  csrf(uid: string): string {
    return this.s.box.mac('directory-signin', uid);
  }

  page(reply: FastifyReply, tenant: AuthTenant, uid: string, status: number, extra: { username?: string; alert?: string } = {}): void {
    const base = `${tenant.mountPath}/interaction/${encodeURIComponent(uid)}`;
    const directory = this.configured;
    // Without a directory the page still answers 200 in development (the any-name form works); elsewhere it says sign-in is unavailable.
    const code = status === 503 && this.devLogin ? 200 : status;
    sendUserPage(
      reply,
      code,
      'Sign in',
      signInPage({ tenantName: tenant.name, base, csrf: this.csrf(uid), directory, dev: this.devLogin, ...extra }),
      directory ? passkeyScripts(tenant.mountPath) : [],
    );
  }

  /** Checks a password sign-in; the account id on success (else a page was sent). */
  async password(tenant: AuthTenant, details: Details, req: FastifyRequest, reply: FastifyReply): Promise<string | undefined> {
    const body = formBody(req);
    if (details.prompt.name !== 'login' || tenant.settings.idp.kind !== 'local' || body.csrf !== this.csrf(details.uid)) {
      sendUserPage(
        reply,
        400,
        'Invalid request',
        '<h1>invalid_request</h1><p>The sign-in form is invalid or expired. Start again from your application.</p>',
      );
      return undefined;
    }
    const username = (body.user ?? '').trim();
    const password = body.password ?? '';
    const again = (status: number, alert: string) =>
      this.page(reply, tenant, details.uid, status, { username: USERNAME.test(username) ? username : '', alert });
    if (!USERNAME.test(username)) return void again(400, 'user: enter your user name (1-64 characters: letters, digits and . _ @ -).');
    if (!password || password.length > MAX_PASSWORD || password.includes('\u0000'))
      return void again(400, `password: enter your password (at most ${MAX_PASSWORD} characters).`);
    const users = this.s.users;
    const tooMany = (seconds: number, alert: string) => {
      reply.header('retry-after', String(seconds));
      again(429, alert);
    };
    const account = users.lockoutKey(tenant.id, username);
    const locked = await users.lockout.lockedFor(account);
    if (locked > 0) {
      count('locked');
      return void tooMany(locked, `Too many failed sign-in attempts for this account. Try again in ${locked} seconds.`);
    }
    // Counted before verifying: parallel attempts cannot all pass a check made before any was counted.
    const retryAfter = await users.limits.hit('signin', tenant.id, req.ip);
    if (retryAfter > 0) {
      count('rate_limited');
      return void tooMany(retryAfter, `Too many sign-in attempts. Try again in ${retryAfter} seconds.`);
    }
    const release = users.slots.tryAcquire(req.ip);
    if (!release) return void tooMany(1, 'Too many sign-in attempts at once. Try again in a second.');
    let verdict;
    try {
      verdict = await users.verifyPassword(tenant.id, username, password);
    } finally {
      release();
    }
    if (verdict.outcome === 'unavailable') {
      this.s.logger.warn({ tenant: tenant.id, reason: verdict.reason }, 'directory sign-in: the registry could not verify the password');
      count('unavailable');
      return void again(503, DIRECTORY_UNAVAILABLE);
    }
    if (verdict.outcome === 'denied') {
      await users.lockout.failed(account);
      count('denied');
      return void again(401, DIRECTORY_LOGIN_ERROR);
    }
    await users.lockout.succeeded(account);
    count('ok');
    return accountIdOf(tenant.id, DIRECTORY_IDP_ID, verdict.value.username);
  }

  async passkeyOptions(tenant: AuthTenant, details: Details, req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (details.prompt.name !== 'login' || tenant.settings.idp.kind !== 'local' || body.csrf !== this.csrf(details.uid)) {
      return void sendOAuthError(reply, 400, 'invalid_request', 'csrf: the sign-in form is invalid or expired');
    }
    if (!this.configured) return void sendOAuthError(reply, 503, 'temporarily_unavailable', DIRECTORY_UNAVAILABLE);
    const retryAfter = await this.s.users.limits.hit('signin', tenant.id, req.ip);
    if (retryAfter > 0)
      return void sendOAuthError(
        reply.header('retry-after', String(retryAfter)),
        429,
        'slow_down',
        `too many sign-in attempts; try again in ${retryAfter} seconds`,
      );
    void reply.header('cache-control', 'no-store').send({ options: await this.passkeys.signInOptions(tenant, details.uid) });
  }

  /** Verifies a passkey assertion; the account id on success (else a JSON error was sent). */
  async passkeyVerify(tenant: AuthTenant, details: Details, req: FastifyRequest, reply: FastifyReply): Promise<string | undefined> {
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (details.prompt.name !== 'login' || tenant.settings.idp.kind !== 'local' || body.csrf !== this.csrf(details.uid)) {
      return void sendOAuthError(reply, 400, 'invalid_request', 'csrf: the sign-in form is invalid or expired');
    }
    const response = body.response;
    if (!response || typeof response !== 'object' || JSON.stringify(response).length > MAX_ASSERTION_CHARS) {
      return void sendOAuthError(reply, 400, 'invalid_request', 'response: must be a WebAuthn assertion (startAuthentication result)');
    }
    const verdict = await this.passkeys.verifySignIn(tenant, details.uid, response as AuthenticationResponseJSON);
    if (verdict.outcome === 'unavailable') {
      count('unavailable', 'passkey');
      return void sendOAuthError(reply, 503, 'temporarily_unavailable', DIRECTORY_UNAVAILABLE);
    }
    if (verdict.outcome === 'denied') {
      count('denied', 'passkey');
      return void sendOAuthError(reply, 401, 'access_denied', 'this passkey is not registered here, or the sign-in expired; try again');
    }
    count('ok', 'passkey');
    return accountIdOf(tenant.id, DIRECTORY_IDP_ID, verdict.value.username);
  }
}

function count(outcome: string, method: 'password' | 'passkey' = 'password'): void {
  switchboardMetrics().auth.signIns.add(1, { idp: `directory-${method}`, outcome });
}

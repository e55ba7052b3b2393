import { Controller, Get, Inject, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import { AUTH_SERVICES, type AuthServices, type PlatformServices } from '../auth-services';
import { formBody, sendPage } from '../http/request-helpers';
import { finishInteraction, loadInteraction } from '../interaction/interaction-steps';
import { TENANT_ID, USERNAME } from '../tenants/identifiers';
import { consoleLoginPage, type LoginField } from './console-login-page';
import { CONSOLE_SCOPE, PLATFORM_MOUNT } from './platform-issuer';
import { verifyConsoleLogin } from './registry-login';

type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

const MAX_PASSWORD = 1024;
/** The limiter key space of console sign-in (the platform issuer, not a tenant). */
const PLATFORM_LIMIT_TENANT = '_platform';
const PAGE_TITLE = 'Sign in — Switchboard console';
/** The one answer to every refused sign-in: it must not tell which of the three was wrong. */
export const GENERIC_LOGIN_ERROR = 'Unknown workspace, user name or password.';
export const UNAVAILABLE_LOGIN_ERROR = 'Sign-in is temporarily unavailable; try again.';
/** OIDC scopes the console may ask for beside `console`. */
const OIDC_SCOPES = ['openid', 'offline_access'];

/**
 * The platform issuer's sign-in page (tenant administrators signing in to the console).
 * The password is checked by the registry over its internal endpoint; the registry is told
 * nothing but the three fields. There is no consent step: the console is first-party, so a
 * successful sign-in creates the grant (`console` + requested openid/offline_access on the
 * admin API) and finishes the interaction at once. Sign-in attempts are counted per IP before
 * the password is checked, verifications in flight are capped per IP and in total, and an
 * account is locked with exponential backoff after repeated failures.
 */
@Controller()
export class ConsoleLoginController {
  constructor(@Inject(AUTH_SERVICES) private readonly s: AuthServices) {}

  @Get('platform/interaction/:uid')
  async show(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const ctx = await this.load(req, reply);
    if (!ctx) return;
    const { platform, provider, details } = ctx;
    const accountId = details.session?.accountId;
    if (details.prompt.name !== 'login' && accountId) {
      // Only reachable if a grant went missing after sign-in: first-party, so grant again.
      return finishInteraction(provider, req, reply, { consent: { grantId: await this.grant(provider, platform, details, accountId) } });
    }
    const hint = String(details.params.login_hint ?? '');
    // "Use another workspace" (?workspace=change) asks for it again instead of showing the console's.
    const change = (req.query as Record<string, unknown> | undefined)?.workspace === 'change';
    this.form(reply, 200, details, { workspace: !change && TENANT_ID.test(hint) ? hint : '', username: '' });
  }

  @Post('platform/interaction/:uid/login')
  async login(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const ctx = await this.load(req, reply);
    if (!ctx) return;
    const { platform, provider, details } = ctx;
    const body = formBody(req);
    if (details.prompt.name !== 'login' || body.csrf !== this.csrf(details.uid)) {
      sendPage(
        reply,
        400,
        'Invalid request',
        '<h1>invalid_request</h1><p>The sign-in form is invalid or expired. Start again from the console.</p>',
      );
      return;
    }
    const workspace = (body.workspace ?? '').trim();
    const username = (body.username ?? '').trim();
    const password = body.password ?? '';
    const keep = { workspace, username };

    const fieldErrors = validate(workspace, username, password);
    if (Object.keys(fieldErrors).length) {
      this.form(reply, 400, details, { ...keep, fieldErrors });
      return;
    }
    // Every refusal below answers before the registry is asked (no scrypt spent on it).
    const tooMany = (seconds: number, alert: string) => {
      reply.header('retry-after', String(seconds));
      this.form(reply, 429, details, { ...keep, alert });
    };
    const account = `${workspace}|${username}`;
    const locked = await platform.lockout.lockedFor(account);
    if (locked > 0) return tooMany(locked, `Too many failed sign-in attempts for this account. Try again in ${locked} seconds.`);
    // Counted before verifying: parallel attempts cannot all pass a check made before any was counted.
    const retryAfter = await platform.limits.hit('signin', PLATFORM_LIMIT_TENANT, req.ip);
    if (retryAfter > 0) return tooMany(retryAfter, `Too many failed sign-in attempts. Try again in ${retryAfter} seconds.`);
    const release = platform.slots.tryAcquire(req.ip);
    if (!release) return tooMany(1, 'Too many sign-in attempts at once. Try again in a second.');
    let verdict: Awaited<ReturnType<typeof verifyConsoleLogin>>;
    try {
      verdict = await verifyConsoleLogin(platform.settings, { tenant: workspace, username, password });
    } finally {
      release();
    }
    if (verdict.outcome === 'unavailable') {
      this.s.logger.warn({ reason: verdict.reason }, 'console sign-in: the registry could not verify the password');
      this.form(reply, 503, details, { ...keep, alert: UNAVAILABLE_LOGIN_ERROR });
      return;
    }
    if (verdict.outcome === 'denied') {
      await platform.lockout.failed(account);
      this.form(reply, 401, details, { ...keep, alert: GENERIC_LOGIN_ERROR });
      return;
    }
    await platform.lockout.succeeded(account);
    const accountId = await platform.accounts.remember(verdict.tenant, verdict.username, verdict.name);
    const grantId = await this.grant(provider, platform, details, accountId);
    await finishInteraction(provider, req, reply, { login: { accountId }, consent: { grantId } });
  }

  private async load(
    req: FastifyRequest,
    reply: FastifyReply,
  ): Promise<{ platform: PlatformServices; provider: Provider; details: Details } | undefined> {
    const platform = this.s.platform;
    if (!platform) {
      sendPage(reply, 404, 'Not found', '<h1>Not found</h1>');
      return undefined;
    }
    const { provider } = await this.s.providers.get(platform.issuer);
    const details = await loadInteraction(provider, req, reply);
    return details ? { platform, provider, details } : undefined;
  }

  /** The console's grant: `console` on the requested resource (the admin API) plus the OIDC scopes it asked for. */
  private async grant(provider: Provider, platform: PlatformServices, details: Details, accountId: string): Promise<string> {
    const grant = new provider.Grant({ accountId, clientId: String(details.params.client_id) });
    const requested = String(details.params.scope ?? '').split(' ');
    const oidcScopes = OIDC_SCOPES.filter((s) => requested.includes(s));
    if (oidcScopes.length) grant.addOIDCScope(oidcScopes.join(' '));
    const resource = details.params.resource;
    // The authorization endpoint already refused any resource other than the audience.
    const resources =
      resource === undefined ? [platform.settings.audience] : Array.isArray(resource) ? resource.map(String) : [String(resource)];
    for (const r of resources) grant.addResourceScope(r, CONSOLE_SCOPE);
    return grant.save();
  }

  private csrf(uid: string): string {
    return this.s.box.mac('platform-login', uid);
  }

  private form(
    reply: FastifyReply,
    status: number,
    details: Details,
    p: { workspace: string; username: string; fieldErrors?: Partial<Record<LoginField, string>>; alert?: string },
  ): void {
    const page = `${PLATFORM_MOUNT}/interaction/${encodeURIComponent(details.uid)}`;
    sendPage(
      reply,
      status,
      PAGE_TITLE,
      consoleLoginPage({ action: `${page}/login`, changeWorkspace: `${page}?workspace=change`, csrf: this.csrf(details.uid), ...p }),
    );
  }
}

/** Field-level checks done before anything is sent to the registry. */
function validate(workspace: string, username: string, password: string): Partial<Record<LoginField, string>> {
  const errors: Partial<Record<LoginField, string>> = {};
  if (!workspace) errors.workspace = 'Enter your workspace id.';
  else if (!TENANT_ID.test(workspace))
    errors.workspace = 'Workspace must be a workspace id: lower-case letters, digits and hyphens, for example acme.';
  if (!username) errors.username = 'Enter your user name.';
  else if (!USERNAME.test(username)) errors.username = 'User name must be 1 to 64 characters: letters, digits and . _ @ -';
  if (!password) errors.password = 'Enter your password.';
  else if (password.length > MAX_PASSWORD) errors.password = `Password must be at most ${MAX_PASSWORD} characters.`;
  // No account can have one (the registry refuses NUL in every input), so say so here rather than ask.
  else if (password.includes('\u0000')) errors.password = 'Password cannot contain a NUL character.';
  return errors;
}

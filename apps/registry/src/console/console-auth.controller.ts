import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Controller, Get, Inject, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../http/api-error';
import { TENANT_ID } from '../http/schemas';
import { safeReturnTo } from '../http/public-urls';
import { audit } from '../model/audit';
import { activeAdmin } from '../model/admins';
import { recordSession, revokeSession } from '../model/session-store';
import { LOGIN_COOKIE, LOGIN_SECONDS, SESSION_COOKIE, SESSION_SECONDS, ConsoleSessions } from '../http/console-session';
import { parseCookies, serializeCookie } from '../http/cookies';
import { PlatformTokenError, PlatformUnavailableError, type PlatformIssuer } from '../http/platform-issuer';
import { ApiOperation, ApiTag } from '../docs/api-operation';
import { consoleCallbackQuery, consoleLoginQuery } from '../docs/console-auth-queries';
import { authConfigSchema } from '../docs/response-schemas';
import { Database } from '../db/database';
import { REGISTRY_CONFIG, LOGGER, PLATFORM_ISSUER } from '../http/registry-tokens';
import type { RegistryConfig } from '../config';
import type { Logger } from 'pino';

/** Why a sign-in ended back on the console's sign-in page (`/console/?signin_error=<code>`). */
export type SigninError = 'access_denied' | 'state_mismatch' | 'token_rejected' | 'unavailable';

/** OAuth error codes that mean "the person did not (or could not) sign in", as opposed to a broken setup. */
const DENIED = new Set(['access_denied', 'login_required', 'consent_required', 'interaction_required', 'account_selection_required']);

const one = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * Console sign-in through the platform's OAuth issuer, as a backend-for-frontend: the registry is
 * the OAuth client (public, PKCE S256, RFC 8707 `resource`, RFC 9207 `iss` checked), redeems the
 * code itself, verifies the access token, and gives the browser only a sealed HttpOnly session
 * cookie — never a token. Failures land on `/console/?signin_error=<code>`, never a 500.
 */
@Controller('console')
@ApiTag('Console sign-in')
export class ConsoleAuthController {
  constructor(
    @Inject(Database) private readonly db: Database,
    @Inject(REGISTRY_CONFIG) private readonly config: RegistryConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(ConsoleSessions) private readonly sessions: ConsoleSessions,
    @Inject(PLATFORM_ISSUER) private readonly platformIssuer: PlatformIssuer | undefined,
  ) {}

  /** Public: whether OAuth sign-in is configured, and where it starts. */
  @Get('auth.json')
  @ApiOperation({
    operationId: 'getConsoleAuthConfig',
    summary: 'Whether console sign-in through the platform OAuth issuer is configured (CONSOLE_ISSUER), and where it starts',
    auth: 'none',
    response: authConfigSchema,
  })
  authJson(@Res() reply: FastifyReply) {
    void reply.header('cache-control', 'no-store').send({ oauth: this.platformIssuer !== undefined, loginUrl: '/console/login' });
  }

  /** Starts a sign-in: state, PKCE verifier and return path sealed in a 10-minute cookie, then off to the issuer. */
  @Get('login')
  @ApiOperation({
    operationId: 'startConsoleLogin',
    summary:
      "Starts console sign-in (BFF): 302 to the platform issuer's authorization endpoint (code, PKCE S256, scope console, resource = <public URL>/v1, login_hint = workspace) with the state in a sealed HttpOnly cookie sb_console_login (Path=/console, 10 min); 404 when CONSOLE_ISSUER is not set",
    auth: 'none',
    status: 302,
    query: consoleLoginQuery,
  })
  async login(@Query() query: Record<string, unknown>, @Res() reply: FastifyReply) {
    const platform = this.platform();
    const workspace = one(query.workspace);
    const state = randomBytes(32).toString('base64url');
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    let location: string;
    try {
      location = await platform.authorizationUrl({
        redirectUri: this.redirectUri(),
        state,
        codeChallenge: challenge,
        ...(workspace && TENANT_ID.test(workspace) ? { loginHint: workspace } : {}),
      });
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'console sign-in: platform issuer unavailable');
      return this.signinError(reply, 'unavailable');
    }
    const cookie = this.sessions.sealLogin({ state, verifier, returnTo: safeReturnTo(query.returnTo) });
    void reply
      .code(302)
      .header('cache-control', 'no-store')
      .header(
        'set-cookie',
        serializeCookie(LOGIN_COOKIE, cookie, { maxAgeSeconds: LOGIN_SECONDS, path: '/console', sameSite: 'Lax', secure: this.secure() }),
      )
      .header('location', location)
      .send();
  }

  /** The issuer's redirect: check state and `iss`, redeem the code, verify the token, check the admin, open a session. */
  @Get('callback')
  @ApiOperation({
    operationId: 'consoleCallback',
    summary:
      'OAuth redirect URI: checks state and iss, redeems the code, verifies the access token and the admin, sets the sealed session cookie sb_console (HttpOnly, SameSite=Strict, 8 h) and 302s to /console/<returnTo>. Any failure: 302 to /console/?signin_error=access_denied|state_mismatch|token_rejected|unavailable',
    auth: 'none',
    status: 302,
    query: consoleCallbackQuery,
  })
  async callback(@Req() req: FastifyRequest, @Query() query: Record<string, unknown>, @Res() reply: FastifyReply) {
    const platform = this.platform();
    const login = this.sessions.openLogin(parseCookies(req.headers.cookie).get(LOGIN_COOKIE));
    const state = one(query.state);
    if (!login || !state || !equal(state, login.state)) return this.signinError(reply, 'state_mismatch');
    const error = one(query.error);
    if (error !== undefined)
      return this.signinError(reply, DENIED.has(error) ? 'access_denied' : 'unavailable', `the issuer answered error=${error}`);
    try {
      const metadata = await platform.metadata();
      const iss = one(query.iss);
      // RFC 9207: when present (or promised by the metadata) `iss` must be our issuer — a mix-up defence.
      if (iss !== undefined ? iss !== platform.issuer : metadata.authorization_response_iss_parameter_supported === true) {
        return this.signinError(reply, 'token_rejected', `iss ${String(iss)} is not ${platform.issuer}`);
      }
      const code = one(query.code);
      if (!code) return this.signinError(reply, 'token_rejected', 'no code in the redirect');
      const token = await platform.exchangeCode({ code, verifier: login.verifier, redirectUri: this.redirectUri() });
      const identity = await platform.verifyAccessToken(token);
      const admin = await activeAdmin(this.db, identity.tenantId, identity.username);
      if (!admin)
        return this.signinError(reply, 'access_denied', `admin ${identity.username} of ${identity.tenantId} is unknown or disabled`);
      const { value, session } = this.sessions.sealSession({
        tid: identity.tenantId,
        username: admin.username,
        name: admin.name ?? identity.name,
      });
      await recordSession(this.db, session);
      await audit(this.db, identity.tenantId, `user:${admin.username}`, 'console.sign_in', admin.username, { via: 'platform' });
      void reply
        .code(302)
        .header('cache-control', 'no-store')
        .header('set-cookie', [
          serializeCookie(SESSION_COOKIE, value, { maxAgeSeconds: SESSION_SECONDS, path: '/', sameSite: 'Strict', secure: this.secure() }),
          this.clearLogin(),
        ])
        .header('location', `/console/${login.returnTo}`)
        .send();
    } catch (err) {
      if (err instanceof PlatformTokenError) return this.signinError(reply, 'token_rejected', err.message);
      // Issuer unreachable, Postgres down, anything else: the person can retry; the log has the reason.
      if (!(err instanceof PlatformUnavailableError)) this.logger.error({ err: (err as Error).message }, 'console sign-in failed');
      return this.signinError(reply, 'unavailable', (err as Error).message);
    }
  }

  /** Ends the console session: revoked server-side and the cookie cleared. */
  @Post('logout')
  @ApiOperation({
    operationId: 'consoleLogout',
    summary: 'Ends the console session: revoked server-side and the cookie cleared',
    auth: 'none',
    status: 204,
  })
  async logout(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    const session = this.sessions.openSession(parseCookies(req.headers.cookie).get(SESSION_COOKIE));
    if (session) {
      // Server-side too: a copy of this cookie (another tab, a stolen one) stops working now.
      await revokeSession(this.db, session).catch((err: Error) =>
        this.logger.warn({ err: err.message }, 'could not revoke the console session'),
      );
      await audit(this.db, session.tid, `user:${session.username}`, 'console.sign_out', session.username).catch((err: Error) =>
        this.logger.warn({ err: err.message }, 'could not audit console sign-out'),
      );
    }
    void reply
      .code(204)
      .header('cache-control', 'no-store')
      .header('set-cookie', serializeCookie(SESSION_COOKIE, '', { maxAgeSeconds: 0, path: '/', sameSite: 'Strict', secure: this.secure() }))
      .send();
  }

  private platform(): PlatformIssuer {
    if (!this.platformIssuer)
      throw new ApiError(404, 'NOT_FOUND', 'console sign-in through the platform is not configured (CONSOLE_ISSUER)');
    return this.platformIssuer;
  }

  private redirectUri(): string {
    return `${this.config.REGISTRY_PUBLIC_URL}/console/callback`;
  }

  private secure(): boolean {
    return this.config.REGISTRY_PUBLIC_URL.startsWith('https://');
  }

  private clearLogin(): string {
    return serializeCookie(LOGIN_COOKIE, '', { maxAgeSeconds: 0, path: '/console', sameSite: 'Lax', secure: this.secure() });
  }

  private signinError(reply: FastifyReply, code: SigninError, detail?: string): void {
    if (detail) this.logger.info({ code, detail }, 'console sign-in refused');
    void reply
      .code(302)
      .header('cache-control', 'no-store')
      .header('set-cookie', this.clearLogin())
      .header('location', `/console/?signin_error=${code}`)
      .send();
  }
}

function equal(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}

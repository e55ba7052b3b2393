import { createHash, timingSafeEqual } from 'node:crypto';
import { Controller, Get, Inject, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { safeReturnTo } from '../http/public-urls';
import { SESSION_COOKIE, SESSION_SECONDS, ConsoleSessions } from '../http/console-session';
import { parseCookies, serializeCookie } from '../http/cookies';
import { recordSession } from '../model/session-store';
import { TENANT_ID } from '../http/schemas';
import { audit } from '../model/audit';
import { ApiOperation, ApiTag } from '../docs/api-operation';
import { admitSsoAdmin } from './admit-sso-admin';
import { openidClient as client } from './sso-client';
import { readSso, type SsoSettings } from './sso-settings';
import { Database } from '../db/database';
import { REGISTRY_CONFIG, LOGGER } from '../http/registry-tokens';
import type { RegistryConfig } from '../config';
import { SecretBox } from '@switchboard/secret-box';
import type { Logger } from 'pino';
import { SsoClients } from '../console-sso/sso-client';

/** The SSO sign-in in progress (sealed: state, PKCE verifier, nonce, tenant, return path), only sent to /console/sso. */
export const SSO_LOGIN_COOKIE = 'sb_console_sso';
const SSO_PATH = '/console/sso';
const LOGIN_SECONDS = 10 * 60;

/** Why an SSO sign-in ended back on the sign-in page (`/console/?signin_error=<code>`). */
type SsoSigninError = 'access_denied' | 'state_mismatch' | 'token_rejected' | 'unavailable' | 'sso_not_configured';

const one = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * Console sign-in through the tenant's own OIDC IdP (issue 44): authorization code + PKCE S256
 * with openid-client, state and nonce checked, every IdP call through the net guard. The registry
 * redeems the code and reads the ID token; the browser gets the same sealed session cookie as a
 * platform sign-in. Failures land on `/console/?signin_error=<code>`, never a 500.
 */
@Controller('console/sso')
@ApiTag('Console sign-in')
export class ConsoleSsoController {
  constructor(
    @Inject(Database) private readonly db: Database,
    @Inject(REGISTRY_CONFIG) private readonly config: RegistryConfig,
    @Inject(SecretBox) private readonly box: SecretBox,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(ConsoleSessions) private readonly sessions: ConsoleSessions,
    @Inject(SsoClients) private readonly sso: SsoClients,
  ) {}

  @Get('login')
  @ApiOperation({
    operationId: 'startConsoleSsoLogin',
    summary:
      "Starts console sign-in through the workspace's own IdP (?workspace=<tenant>&returnTo=#/…): 302 to the IdP (code, PKCE S256, state, nonce); back to /console/?signin_error=sso_not_configured when the workspace has no SSO",
    auth: 'none',
    status: 302,
  })
  async login(@Query() query: Record<string, unknown>, @Res() reply: FastifyReply) {
    const tid = one(query.workspace)?.toLowerCase() ?? '';
    const settings = TENANT_ID.test(tid) ? await readSso(this.db, this.box, tid) : undefined;
    if (!settings?.enabled) return this.fail(reply, 'sso_not_configured', `workspace ${tid} has no console SSO`);
    let location: URL;
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    try {
      const config = await this.sso.config(settings);
      const supported = config.serverMetadata().scopes_supported ?? [];
      location = client.buildAuthorizationUrl(config, {
        redirect_uri: this.redirectUri(),
        scope: ['openid', 'email', 'profile', ...(supported.includes('groups') ? ['groups'] : [])].join(' '),
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      });
    } catch (err) {
      return this.fail(reply, 'unavailable', `the IdP of ${tid} is unavailable: ${(err as Error).message}`);
    }
    const cookie = this.sessions.sealSsoLogin({ state, verifier, nonce, tid, returnTo: safeReturnTo(query.returnTo) });
    void reply
      .code(302)
      .header('cache-control', 'no-store')
      .header(
        'set-cookie',
        serializeCookie(SSO_LOGIN_COOKIE, cookie, { maxAgeSeconds: LOGIN_SECONDS, path: SSO_PATH, sameSite: 'Lax', secure: this.secure() }),
      )
      .header('location', location.href)
      .send();
  }

  @Get('callback')
  @ApiOperation({
    operationId: 'consoleSsoCallback',
    summary:
      "Redirect URI to register at the workspace's IdP: checks state, redeems the code (PKCE), validates the ID token and nonce, maps the group claim to a console role (JIT when on), sets the session cookie sb_console and 302s to /console/<returnTo>; failures 302 to /console/?signin_error=…",
    auth: 'none',
    status: 302,
  })
  async callback(@Req() req: FastifyRequest, @Query() query: Record<string, unknown>, @Res() reply: FastifyReply) {
    const login = this.sessions.openSsoLogin(parseCookies(req.headers.cookie).get(SSO_LOGIN_COOKIE));
    const state = one(query.state);
    if (!login || !state || !equal(state, login.state)) return this.fail(reply, 'state_mismatch');
    const settings = await readSso(this.db, this.box, login.tid);
    if (!settings?.enabled) return this.fail(reply, 'sso_not_configured', `workspace ${login.tid} has no console SSO any more`);
    const error = one(query.error);
    if (error !== undefined)
      return this.fail(
        reply,
        error === 'access_denied' || error === 'login_required' ? 'access_denied' : 'unavailable',
        `the IdP answered error=${error}`,
      );
    const claims = await this.redeem(req, settings, login).catch((err: unknown) => err as Error);
    if (claims instanceof Error)
      return this.fail(
        reply,
        claims.name === 'NetGuardError' || claims.name === 'TimeoutError' ? 'unavailable' : 'token_rejected',
        claims.message,
      );
    const admission = await this.db.tx((q) => admitSsoAdmin(q, login.tid, settings, claims));
    if (!admission.ok) {
      await audit(
        this.db,
        login.tid,
        'sso',
        'console.sign_in_refused',
        typeof claims[settings.usernameClaim] === 'string' ? String(claims[settings.usernameClaim]).slice(0, 64) : null,
        { reason: admission.reason },
      );
      return this.fail(reply, 'access_denied', admission.reason);
    }
    const admin = admission.admin;
    const { value, session } = this.sessions.sealSession({ tid: login.tid, username: admin.username, name: admin.name });
    await recordSession(this.db, session);
    await audit(this.db, login.tid, `user:${admin.username}`, 'console.sign_in', admin.username, {
      via: 'sso',
      issuer: settings.issuer,
      role: admin.role,
    });
    void reply
      .code(302)
      .header('cache-control', 'no-store')
      .header('set-cookie', [
        serializeCookie(SESSION_COOKIE, value, { maxAgeSeconds: SESSION_SECONDS, path: '/', sameSite: 'Strict', secure: this.secure() }),
        this.clearLogin(),
      ])
      .header('location', `/console/${login.returnTo}`)
      .send();
  }

  /** Redeems the code at the IdP (PKCE verifier, expected state and nonce) and answers the validated ID token's claims. */
  private async redeem(
    req: FastifyRequest,
    settings: SsoSettings,
    login: { state: string; verifier: string; nonce: string },
  ): Promise<Record<string, unknown>> {
    const config = await this.sso.config(settings);
    const search = req.url.includes('?') ? req.url.slice(req.url.indexOf('?')) : '';
    const tokens = await client.authorizationCodeGrant(config, new URL(`${this.redirectUri()}${search}`), {
      pkceCodeVerifier: login.verifier,
      expectedState: login.state,
      expectedNonce: login.nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims();
    if (!claims) throw new Error('the IdP sent no ID token');
    // Many IdPs put e-mail and groups only in UserInfo (OIDC Core §5.4 lets them): merged under the ID token's own claims.
    const userinfoEndpoint = config.serverMetadata().userinfo_endpoint;
    const userinfo = userinfoEndpoint ? await client.fetchUserInfo(config, tokens.access_token, claims.sub) : {};
    return { ...userinfo, ...claims } as Record<string, unknown>;
  }

  private redirectUri(): string {
    return `${this.config.REGISTRY_PUBLIC_URL}/console/sso/callback`;
  }

  private secure(): boolean {
    return this.config.REGISTRY_PUBLIC_URL.startsWith('https://');
  }

  private clearLogin(): string {
    return serializeCookie(SSO_LOGIN_COOKIE, '', { maxAgeSeconds: 0, path: SSO_PATH, sameSite: 'Lax', secure: this.secure() });
  }

  private fail(reply: FastifyReply, code: SsoSigninError, detail?: string): void {
    if (detail) this.logger.info({ code, detail }, 'console SSO sign-in refused');
    void reply
      .code(302)
      .header('cache-control', 'no-store')
      .header('set-cookie', this.clearLogin())
      .header('location', `/console/?signin_error=${code}`)
      .send();
  }
}

function equal(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

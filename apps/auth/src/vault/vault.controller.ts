import { Controller, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { AUTH_SERVICES, type AuthServices } from '../auth-services';
import { openidClient } from '../federation/upstream-oidc';
import { internalCaller } from '../http/internal.controller';
import { cookieHeader, formBody, readCookie, sendOAuthError, sendPage, tenantOf } from '../http/request-helpers';
import type { AuthTenant, ConnectorSettings } from '../tenants/tenant-auth';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const LINK_TTL_S = 600;

interface LinkState {
  subject: string;
  connector: string;
  verifier: string;
}

/**
 * The upstream-credential vault. The gateway exchanges a user's access token (RFC 8693 shape,
 * over the internal endpoint) for that user's token at a connector's upstream AS; tokens are
 * obtained by a linking flow (openid-client, PKCE, browser-bound state), sealed at rest and
 * refreshed here. The client's own token never leaves this exchange.
 */
@Controller()
export class VaultController {
  constructor(@Inject(AUTH_SERVICES) private readonly s: AuthServices) {}

  @Post('internal/t/:tenant/token-exchange')
  async exchange(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    if (!internalCaller(this.s, req)) return void sendOAuthError(reply, 401, 'invalid_client', 'internal token required');
    const tenant = this.s.tenants.byId(tenantId);
    if (!tenant) return void sendOAuthError(reply, 404, 'invalid_request', `unknown tenant: ${tenantId}`);
    const body = bodyOf(req);
    if (body.grant_type !== TOKEN_EXCHANGE) return void sendOAuthError(reply, 400, 'unsupported_grant_type', `grant_type must be ${TOKEN_EXCHANGE}`);
    if (!body.subject_token) return void sendOAuthError(reply, 400, 'invalid_request', 'subject_token is required');
    if (body.subject_token_type !== undefined && body.subject_token_type !== ACCESS_TOKEN_TYPE) {
      return void sendOAuthError(reply, 400, 'invalid_request', `subject_token_type must be ${ACCESS_TOKEN_TYPE}`);
    }
    const connectorId = body.audience ?? body.resource ?? '';
    const connector = tenant.settings.connectors[connectorId];
    if (!connector) return void sendOAuthError(reply, 400, 'invalid_target', `audience must name a connector of tenant ${tenant.id}`);
    const subject = await this.verifySubject(tenant, body.subject_token);
    if (!subject) return void sendOAuthError(reply, 400, 'invalid_grant', 'subject_token is not a valid access token of this tenant');

    let tokens = await this.s.vault.get(tenant.id, subject, connectorId);
    const now = Math.floor(Date.now() / 1000);
    if (tokens?.expiresAt !== undefined && tokens.expiresAt - 30 <= now) {
      tokens = tokens.refreshToken ? await this.refresh(tenant, subject, connectorId, connector, tokens.refreshToken) : undefined;
    }
    if (!tokens) {
      void reply
        .code(400)
        .header('content-type', 'application/json')
        .header('cache-control', 'no-store')
        .send({ error: 'invalid_grant', error_description: `connector ${connectorId} is not linked for this user`, link_url: this.linkUrl(tenant, subject, connectorId) });
      return;
    }
    void reply.code(200).header('cache-control', 'no-store').send({
      access_token: tokens.accessToken,
      issued_token_type: ACCESS_TOKEN_TYPE,
      token_type: 'Bearer',
      ...(tokens.expiresAt !== undefined ? { expires_in: Math.max(0, tokens.expiresAt - now) } : {}),
    });
  }

  @Get(['t/:tenant/connectors/:connector/link', 'connectors/:connector/link'])
  async link(@Param('tenant') tenantId: string | undefined, @Param('connector') connectorId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const tenant = tenantOf(this.s.tenants, tenantId, req);
    const connector = tenant?.settings.connectors[connectorId];
    if (!tenant || !connector) return void sendPage(reply, 404, 'Not found', '<h1>Unknown connector</h1>');
    const ticket = new URLSearchParams(req.raw.url?.split('?')[1] ?? '').get('ticket') ?? '';
    const subject = this.openTicket(tenant, connectorId, ticket);
    if (!subject) return void sendPage(reply, 400, 'Link expired', '<h1>invalid_request</h1><p>This link is invalid or expired. Ask your assistant for a new one.</p>');
    let cfg;
    try {
      cfg = await this.s.upstream.config(this.clientSettings(tenant, connectorId, connector));
    } catch {
      return void sendPage(reply, 502, 'Unavailable', '<h1>temporarily_unavailable</h1><p>The service cannot be reached.</p>');
    }
    const verifier = openidClient.randomPKCECodeVerifier();
    const state = openidClient.randomState();
    await this.s.federation.put(state, tenant.id, 'link', { subject, connector: connectorId, verifier } satisfies LinkState);
    const url = openidClient.buildAuthorizationUrl(cfg, {
      redirect_uri: `${tenant.issuer}/connectors/callback`,
      scope: connector.scopes.join(' '),
      code_challenge: await openidClient.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });
    void reply
      .code(303)
      .header('set-cookie', cookieHeader(`sb_${tenant.id}_link`, state, { path: `${tenant.mountPath}/connectors`, maxAge: LINK_TTL_S, secure: tenant.issuer.startsWith('https:') }))
      .header('location', url.href)
      .send();
  }

  @Get(['t/:tenant/connectors/callback', 'connectors/callback'])
  async callback(@Param('tenant') tenantId: string | undefined, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const tenant = tenantOf(this.s.tenants, tenantId, req);
    if (!tenant) return void sendPage(reply, 404, 'Not found', '<h1>Unknown tenant</h1>');
    const query = req.raw.url?.includes('?') ? req.raw.url.slice(req.raw.url.indexOf('?')) : '';
    const state = new URLSearchParams(query).get('state') ?? '';
    const cookie = readCookie(req, `sb_${tenant.id}_link`) ?? '';
    if (!state || cookie.length !== state.length || !timingSafeEqual(Buffer.from(cookie), Buffer.from(state))) {
      return void sendPage(reply, 400, 'Link refused', '<h1>access_denied</h1><p>This link was not started in this browser.</p>');
    }
    const saved = await this.s.federation.take<LinkState>(state, tenant.id, 'link');
    const connector = saved ? tenant.settings.connectors[saved.connector] : undefined;
    if (!saved || !connector) return void sendPage(reply, 400, 'Link refused', '<h1>invalid_request</h1><p>This link is unknown, expired or already used.</p>');
    try {
      const cfg = await this.s.upstream.config(this.clientSettings(tenant, saved.connector, connector));
      const tokens = await openidClient.authorizationCodeGrant(cfg, new URL(`${tenant.issuer}/connectors/callback${query}`), { pkceCodeVerifier: saved.verifier, expectedState: state, idTokenExpected: false });
      await this.s.vault.put(tenant.id, saved.subject, saved.connector, {
        accessToken: tokens.access_token,
        refreshToken: tokens.refresh_token,
        expiresAt: tokens.expires_in !== undefined ? Math.floor(Date.now() / 1000) + tokens.expires_in : undefined,
      });
    } catch (err) {
      this.s.logger.warn({ err: (err as Error).message, tenant: tenant.id }, 'connector link refused');
      return void sendPage(reply, 400, 'Link refused', '<h1>access_denied</h1><p>The service refused the link.</p>');
    }
    sendPage(reply, 200, 'Connected', `<h1>Connected</h1><p>You can close this window and retry in your assistant.</p>`);
  }

  /** A link ticket: `<subject b64url>.<expiry>.<mac>` bound to tenant and connector. */
  linkUrl(tenant: AuthTenant, subject: string, connectorId: string): string {
    const payload = `${Buffer.from(subject).toString('base64url')}.${Math.floor(Date.now() / 1000) + LINK_TTL_S}`;
    const mac = this.s.box.mac('link', `${tenant.id}|${connectorId}|${payload}`);
    return `${tenant.issuer}/connectors/${encodeURIComponent(connectorId)}/link?ticket=${payload}.${mac}`;
  }

  private openTicket(tenant: AuthTenant, connectorId: string, ticket: string): string | undefined {
    const [sub, exp, mac] = ticket.split('.');
    if (!sub || !exp || !mac) return undefined;
    const expected = this.s.box.mac('link', `${tenant.id}|${connectorId}|${sub}.${exp}`);
    if (expected.length !== mac.length || !timingSafeEqual(Buffer.from(expected), Buffer.from(mac))) return undefined;
    if (Number(exp) < Date.now() / 1000) return undefined;
    return Buffer.from(sub, 'base64url').toString();
  }

  private async verifySubject(tenant: AuthTenant, token: string): Promise<string | undefined> {
    try {
      const keys = await this.s.keys.published(tenant.id);
      const jwks = createLocalJWKSet({ keys: keys.map(({ kty, crv, x, y, kid, alg }) => ({ kty, crv, x, y, kid, alg })) });
      const { payload } = await jwtVerify(token, jwks, { issuer: tenant.issuer, audience: tenant.mcpUrl, algorithms: ['ES256'], typ: 'at+jwt' });
      return payload.tid === tenant.id && typeof payload.sub === 'string' ? payload.sub : undefined;
    } catch {
      return undefined;
    }
  }

  private async refresh(tenant: AuthTenant, subject: string, connectorId: string, connector: ConnectorSettings, refreshToken: string) {
    try {
      const cfg = await this.s.upstream.config(this.clientSettings(tenant, connectorId, connector));
      const t = await openidClient.refreshTokenGrant(cfg, refreshToken);
      const tokens = {
        accessToken: t.access_token,
        refreshToken: t.refresh_token ?? refreshToken,
        expiresAt: t.expires_in !== undefined ? Math.floor(Date.now() / 1000) + t.expires_in : undefined,
      };
      await this.s.vault.put(tenant.id, subject, connectorId, tokens);
      return tokens;
    } catch (err) {
      this.s.logger.warn({ err: (err as Error).message, tenant: tenant.id, connector: connectorId }, 'connector refresh failed; relink needed');
      await this.s.vault.delete(tenant.id, subject, connectorId);
      return undefined;
    }
  }

  private clientSettings(tenant: AuthTenant, connectorId: string, c: ConnectorSettings) {
    return { issuer: c.issuer, clientId: c.clientId, clientSecret: this.s.secrets.open(tenant.id, `connector:${connectorId}`, c.clientSecret) };
  }
}

function bodyOf(req: FastifyRequest): Record<string, string> {
  return formBody(req);
}

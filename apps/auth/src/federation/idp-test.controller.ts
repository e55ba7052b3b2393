import { Controller, Get, Inject, Param, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { idpTestAad, type IdpTestResult, type IdpTestTicket } from '@switchboard/catalog';
import { SecretBox } from '@switchboard/secret-box';
import { AUTH_SERVICES, type AuthServices } from '../auth-services';
import { cookieHeader, readCookie, sendPage, tenantOf } from '../http/request-helpers';
import type { AuthTenant } from '../tenants/tenant-auth';
import { redeemIdpCallback, startIdpAuthorization } from './idp-authorization';

/** A test is short-lived: the ticket and the state both expire after this. */
const TEST_TTL_S = 300;
/** Bounds of what goes back in the result (a hostile IdP controls the claims). */
const MAX_CLAIMS = 50;
const MAX_CLAIM_CHARS = 500;
const MAX_ERROR_CHARS = 300;
/** Test ids are what the registry mints: 22 base64url characters. */
const TEST_ID = /^[A-Za-z0-9_-]{16,64}$/;

interface TestState {
  id: string;
  verifier: string;
  nonce: string;
  returnTo: string;
  issuer: string;
}

export function idpTestCookieName(tenantId: string): string {
  return `sb_${tenantId}_fedtest`;
}

/**
 * "Test sign-in" of a tenant's enterprise IdP from the console (issue 11): the registry seals a
 * short-lived ticket (which IdP, where to return) with its SECRETS_KEY; here it is opened, an
 * authorization-code + PKCE + nonce flow against the IdP starts with the tenant's registered
 * redirect URI (`/federation/callback`, which hands the answer to `finishIdpTest`), and the
 * ID-token claims — or the IdP's error — go back to the console sealed in the URL fragment.
 * No session, no login, no token is kept.
 */
@Controller()
export class IdpTestController {
  private readonly flow: IdpTestFlow;

  constructor(@Inject(AUTH_SERVICES) s: AuthServices) {
    this.flow = new IdpTestFlow(s);
  }

  @Get(['t/:tenant/federation/test', 'federation/test'])
  async start(@Param('tenant') tenantId: string | undefined, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.flow.start(tenantId, req, reply);
  }
}

/** The test sign-in's two steps: `start` (the ticket's redirect to the IdP) and `finish` (the IdP's answer, from the federation callback). */
export class IdpTestFlow {
  private readonly box: SecretBox;

  constructor(private readonly s: AuthServices) {
    this.box = new SecretBox(s.config.catalogSecretsKey);
  }

  async start(tenantId: string | undefined, req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const tenant = tenantOf(this.s.tenants, tenantId, req);
    if (!tenant || tenant.firstParty) return void sendPage(reply, 404, 'Not found', '<h1>Unknown tenant</h1>');
    const raw = new URLSearchParams(req.raw.url?.split('?')[1] ?? '').get('ticket') ?? '';
    const ticket = this.openTicket(tenant, raw);
    if (!ticket)
      return void sendPage(
        reply,
        400,
        'Test expired',
        '<h1>invalid_request</h1><p>This test sign-in link is invalid or expired. Start it again from the console.</p>',
      );
    const idp = tenant.settings.idp;
    if (idp.kind !== 'oidc' || idp.issuer !== ticket.issuer || idp.clientId !== ticket.clientId) {
      return void this.back(reply, ticket.id, ticket.returnTo, tenant, {
        ok: false,
        issuer: ticket.issuer,
        error: 'settings_not_live',
        errorDescription:
          'the authorization server does not have the saved identity provider yet (publish the workspace, or try again in a moment)',
        exp: now() + TEST_TTL_S,
      });
    }
    let cfg;
    try {
      cfg = await this.s.upstream.config({
        issuer: idp.issuer,
        clientId: idp.clientId,
        clientSecret: this.s.secrets.open(tenant.id, 'idp', idp.clientSecret),
      });
    } catch (err) {
      return void this.back(reply, ticket.id, ticket.returnTo, tenant, {
        ok: false,
        issuer: idp.issuer,
        error: 'discovery_failed',
        errorDescription: bound((err as Error).message, MAX_ERROR_CHARS),
        exp: now() + TEST_TTL_S,
      });
    }
    // A real authorization: ask the IdP to sign in again, not to reuse a session silently.
    const { url, state } = await startIdpAuthorization(
      this.s,
      cfg,
      tenant,
      idp.scopes,
      'idp-test',
      ({ verifier, nonce }) => ({ id: ticket.id, verifier, nonce, returnTo: ticket.returnTo, issuer: idp.issuer }) satisfies TestState,
      { ttlSeconds: TEST_TTL_S, extra: { prompt: 'login' } },
    );
    this.s.logger.info({ tenant: tenant.id, issuer: idp.issuer, test: ticket.id, event: 'idp.test.start' }, 'test sign-in started');
    void reply
      .code(303)
      .header(
        'set-cookie',
        cookieHeader(idpTestCookieName(tenant.id), state, {
          path: `${tenant.mountPath}/federation`,
          maxAge: TEST_TTL_S,
          secure: tenant.issuer.startsWith('https:'),
        }),
      )
      .header('location', url.href)
      .header('cache-control', 'no-store')
      .send();
  }

  /**
   * The IdP's redirect back, when it belongs to a test sign-in (the test cookie matches `state`):
   * answers it and returns true; false leaves the callback to the ordinary login.
   */
  async finish(tenant: AuthTenant, req: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    const query = req.raw.url?.includes('?') ? req.raw.url.slice(req.raw.url.indexOf('?')) : '';
    const params = new URLSearchParams(query);
    const state = params.get('state') ?? '';
    const cookie = readCookie(req, idpTestCookieName(tenant.id)) ?? '';
    if (!state || cookie.length !== state.length || !timingSafeEqual(Buffer.from(cookie), Buffer.from(state))) return false;
    reply.header(
      'set-cookie',
      cookieHeader(idpTestCookieName(tenant.id), '', {
        path: `${tenant.mountPath}/federation`,
        maxAge: 0,
        secure: tenant.issuer.startsWith('https:'),
      }),
    );
    const saved = await this.s.federation.take<TestState>(state, tenant.id, 'idp-test');
    if (!saved) {
      sendPage(
        reply,
        400,
        'Test expired',
        '<h1>invalid_request</h1><p>This test sign-in is unknown, expired or already used. Start it again from the console.</p>',
      );
      return true;
    }
    const exp = now() + TEST_TTL_S;
    const idp = tenant.settings.idp;
    let result: IdpTestResult;
    if (params.get('error')) {
      result = {
        ok: false,
        issuer: saved.issuer,
        error: bound(params.get('error') ?? '', 100),
        errorDescription: bound(params.get('error_description') ?? '', MAX_ERROR_CHARS),
        exp,
      };
    } else if (idp.kind !== 'oidc' || idp.issuer !== saved.issuer) {
      result = {
        ok: false,
        issuer: saved.issuer,
        error: 'settings_changed',
        errorDescription: 'the identity provider changed during the test',
        exp,
      };
    } else {
      try {
        const cfg = await this.s.upstream.config({
          issuer: idp.issuer,
          clientId: idp.clientId,
          clientSecret: this.s.secrets.open(tenant.id, 'idp', idp.clientSecret),
        });
        const tokens = await redeemIdpCallback(cfg, tenant, query, state, saved);
        result = { ok: true, issuer: saved.issuer, claims: boundClaims(tokens.claims() ?? {}), exp };
      } catch (err) {
        const e = err as Error & { error?: unknown; error_description?: unknown };
        const code = typeof e.error === 'string' ? e.error : 'token_exchange_failed';
        const description = typeof e.error_description === 'string' ? e.error_description : e.message;
        result = { ok: false, issuer: saved.issuer, error: bound(code, 100), errorDescription: bound(description, MAX_ERROR_CHARS), exp };
      }
    }
    this.s.logger.info({ tenant: tenant.id, test: saved.id, ok: result.ok, event: 'idp.test.finish' }, 'test sign-in finished');
    this.back(reply, saved.id, saved.returnTo, tenant, result);
    return true;
  }

  private back(reply: FastifyReply, id: string, returnTo: string, tenant: AuthTenant, result: IdpTestResult): void {
    const sealed = this.box.seal(JSON.stringify(result), idpTestAad(tenant.id, 'result', id));
    // The fragment never reaches a server log; the console hands it to the registry to open.
    void reply.code(303).header('location', `${returnTo}#idp-test=${id}.${sealed}`).header('cache-control', 'no-store').send();
  }

  private openTicket(tenant: AuthTenant, raw: string): (IdpTestTicket & { id: string }) | undefined {
    const dot = raw.indexOf('.');
    const id = dot > 0 ? raw.slice(0, dot) : '';
    if (!TEST_ID.test(id) || raw.length > 4096) return undefined;
    try {
      const t = JSON.parse(this.box.open(raw.slice(dot + 1), idpTestAad(tenant.id, 'ticket', id))) as IdpTestTicket;
      if (
        t.tenant !== tenant.id ||
        typeof t.exp !== 'number' ||
        t.exp < now() ||
        typeof t.returnTo !== 'string' ||
        !/^https?:\/\//.test(t.returnTo)
      )
        return undefined;
      return { ...t, id };
    } catch {
      return undefined;
    }
  }
}

function now(): number {
  return Math.floor(Date.now() / 1000);
}

function bound(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

/** At most MAX_CLAIMS claims; a value longer than MAX_CLAIM_CHARS (as JSON) is cut to a string. */
function boundClaims(claims: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(claims).slice(0, MAX_CLAIMS)) {
    const json = JSON.stringify(v) ?? '';
    out[bound(k, 100)] = json.length > MAX_CLAIM_CHARS ? bound(json, MAX_CLAIM_CHARS) : v;
  }
  return out;
}

import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { AuthServices } from '../auth-services';
import { openidClient } from '../federation/upstream-oidc';
import { escapeHtml } from '../http/html';
import { cookieHeader, formBody, sendPage } from '../http/request-helpers';
import type { AuthTenant, ConnectorSettings } from '../tenants/tenant-auth';
import { AccountLogin } from './account-login';
import { browserSession, type BrowserSession } from './browser-session';
import { displayUser } from '../users/subject';

/** A link ticket is accepted this long after it was minted (it travels in a tool's error text, read soon after). */
export const LINK_TICKET_TTL_S = 300;
/** The browser-bound state of a started upstream authorization lives this long. */
export const LINK_STATE_TTL_S = 600;
const CONNECTOR_ID = /^[a-z0-9][a-z0-9_-]{0,31}$/;
/** `<id>.<subject b64url>.<exp>.<mac>`, all base64url or digits; bounded before any work. */
const TICKET = /^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{1,700}\.\d{1,12}\.[A-Za-z0-9_-]{43}$/;
const TICKET_PURPOSE = 'link-ticket';

/** What the upstream callback needs: who the link is for (checked against the session before it was stored), which connector, PKCE. */
export interface LinkState {
  subject: string;
  connector: string;
  verifier: string;
  /** Admin links carry the registry's connector settings (the tenant may not be published yet). */
  settings?: ConnectorSettings;
}

interface Ticket {
  id: string;
  subject: string;
  exp: number;
}

/** The confirmation page's path for a connector (under `<mount>/account`, where the connected-accounts sign-in cookie is sent). */
export function confirmationPath(tenant: AuthTenant, connectorId: string): string {
  return `${tenant.mountPath}/account/link/${encodeURIComponent(connectorId)}`;
}

/** True when `path` is a confirmation page of this tenant (the only place a sign-in for a link may return to). */
export function isConfirmationReturn(tenant: AuthTenant, path: string): boolean {
  const prefix = `${tenant.mountPath}/account/link/`;
  if (!path.startsWith(prefix)) return false;
  const [connector, query] = path.slice(prefix.length).split('?');
  return (
    CONNECTOR_ID.test(connector ?? '') && query !== undefined && query.startsWith('ticket=') && TICKET.test(query.slice('ticket='.length))
  );
}

/**
 * Account linking bound to the person (issue 41): a link URL's ticket names the subject it was
 * minted for, expires after LINK_TICKET_TTL_S and is used at most once (its id is consumed
 * atomically in Postgres, beside the rest of the flow's one-time state and swept with it). It
 * is honoured only for a browser signed in to the tenant's authorization server as that very
 * subject — not signed in: sign in first and come back; signed in as someone else: refused —
 * and only after a confirmation page naming the account and the connector, whose form carries a
 * CSRF token bound to the session and the ticket. The ticket travels in the URL only up to that
 * page (sent with `Referrer-Policy: no-referrer`); nothing here logs a URL.
 */
export class LinkConfirmation {
  private readonly login: AccountLogin;

  constructor(private readonly s: AuthServices) {
    this.login = new AccountLogin(s);
  }

  /** A fresh ticket (a new id each time) for (tenant, connector, subject). */
  linkUrl(tenant: AuthTenant, subject: string, connectorId: string): string {
    const payload = `${randomBytes(16).toString('base64url')}.${Buffer.from(subject).toString('base64url')}.${Math.floor(Date.now() / 1000) + LINK_TICKET_TTL_S}`;
    const mac = this.s.box.mac('link', `${tenant.id}|${connectorId}|${payload}`);
    return `${tenant.issuer}/connectors/${encodeURIComponent(connectorId)}/link?ticket=${payload}.${mac}`;
  }

  /** GET: checks the ticket and the session, then asks the user to confirm. */
  async show(tenant: AuthTenant, connectorId: string, req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const raw = new URLSearchParams(req.raw.url?.split('?')[1] ?? '').get('ticket') ?? '';
    const checked = await this.check(tenant, connectorId, raw, req, reply);
    if (!checked) return;
    const { ticket, session, settings } = checked;
    const csrf = this.csrf(tenant, session, connectorId, ticket.id);
    const upstream = URL.parse(settings.issuer)?.host ?? settings.issuer;
    sendPage(
      reply.header('referrer-policy', 'no-referrer'),
      200,
      'Link an account',
      `<h1>Link your ${escapeHtml(connectorId)} account</h1>` +
        `<p>You are signed in to <strong>${escapeHtml(tenant.name)}</strong> as <strong data-testid="account">${escapeHtml(displayName(tenant, session.accountId))}</strong>.</p>` +
        `<p>Continuing takes you to <strong data-testid="upstream">${escapeHtml(upstream)}</strong> to sign in; the account you approve there is stored for <strong>${escapeHtml(displayName(tenant, session.accountId))}</strong> and used when your assistant calls <strong data-testid="connector">${escapeHtml(connectorId)}</strong>.</p>` +
        `<p>If you did not ask your assistant for this link, do not continue.</p>` +
        `<form method="post" action="${escapeHtml(confirmationPath(tenant, connectorId))}"><input type="hidden" name="ticket" value="${escapeHtml(raw)}"><input type="hidden" name="csrf" value="${escapeHtml(csrf)}">` +
        `<button type="submit">Continue to ${escapeHtml(upstream)}</button></form>`,
    );
  }

  /** POST: the same checks plus CSRF, then the ticket is consumed and the upstream authorization starts. */
  async confirm(tenant: AuthTenant, connectorId: string, req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const form = formBody(req);
    const raw = form.ticket ?? '';
    const checked = await this.check(tenant, connectorId, raw, req, reply);
    if (!checked) return;
    const { ticket, session, settings } = checked;
    const expected = this.csrf(tenant, session, connectorId, ticket.id);
    const csrf = form.csrf ?? '';
    if (csrf.length !== expected.length || !timingSafeEqual(Buffer.from(csrf), Buffer.from(expected))) {
      return void sendPage(
        reply,
        403,
        'Link refused',
        '<h1>access_denied</h1><p>The confirmation form is invalid (csrf). Open the link again.</p>',
      );
    }
    let cfg;
    try {
      cfg = await this.s.upstream.config({
        issuer: settings.issuer,
        clientId: settings.clientId,
        clientSecret: this.s.secrets.open(tenant.id, `connector:${connectorId}`, settings.clientSecret),
      });
    } catch (err) {
      this.s.logger.warn({ err: (err as Error).message, tenant: tenant.id, connector: connectorId }, 'connector discovery failed');
      return void sendPage(
        reply,
        502,
        'Unavailable',
        '<h1>temporarily_unavailable</h1><p>The service cannot be reached. Try the link again later.</p>',
      );
    }
    // Consumed only now, once everything else holds: a refused attempt leaves the link usable by its owner.
    if (!(await this.s.federation.consumeOnce(ticket.id, tenant.id, TICKET_PURPOSE, ticket.exp - Math.floor(Date.now() / 1000) + 60))) {
      return void sendPage(
        reply,
        400,
        'Link used',
        '<h1>invalid_request</h1><p>This link was already used. Ask your assistant for a new one.</p>',
      );
    }
    const start = await startLink(this.s, tenant, cfg, settings, { subject: session.accountId, connector: connectorId });
    this.s.logger.info({ tenant: tenant.id, connector: connectorId, event: 'vault.link.confirmed' }, 'connector link confirmed');
    void reply
      .code(303)
      .header('set-cookie', start.cookie)
      .header('referrer-policy', 'no-referrer')
      .header('location', start.url)
      .header('cache-control', 'no-store')
      .send();
  }

  /** Ticket (MAC, expiry, unused), connector and session (signed in, same subject); answers the page itself when one fails. */
  private async check(
    tenant: AuthTenant,
    connectorId: string,
    raw: string,
    req: FastifyRequest,
    reply: FastifyReply,
  ): Promise<{ ticket: Ticket; session: BrowserSession; settings: ConnectorSettings } | undefined> {
    const settings = CONNECTOR_ID.test(connectorId) ? tenant.settings.connectors[connectorId] : undefined;
    if (!settings) return (void sendPage(reply, 404, 'Not found', '<h1>Unknown connector</h1>'), undefined);
    const ticket = this.openTicket(tenant, connectorId, raw);
    if (!ticket)
      return (
        void sendPage(
          reply,
          400,
          'Link expired',
          '<h1>invalid_request</h1><p>This link is invalid or expired. Ask your assistant for a new one.</p>',
        ),
        undefined
      );
    if (await this.s.federation.consumed(ticket.id, TICKET_PURPOSE)) {
      return (
        void sendPage(
          reply,
          400,
          'Link used',
          '<h1>invalid_request</h1><p>This link was already used. Ask your assistant for a new one.</p>',
        ),
        undefined
      );
    }
    const session = await browserSession(this.s, this.login, tenant, req);
    if (!session) return (void this.signInFirst(tenant, connectorId, raw, reply), undefined);
    if (session.accountId !== ticket.subject) {
      this.s.logger.warn(
        { tenant: tenant.id, connector: connectorId, event: 'vault.link.wrong_account' },
        'link opened by another account; refused',
      );
      sendPage(
        reply,
        403,
        'Not your link',
        `<h1>access_denied</h1><p data-testid="wrong-account">This link was made for another account of <strong>${escapeHtml(tenant.name)}</strong>; you are signed in as <strong>${escapeHtml(displayName(tenant, session.accountId))}</strong>. ` +
          `Nothing was linked. Ask your own assistant for a link, and never open a link someone else sent you.</p>`,
      );
      return undefined;
    }
    return { ticket, session, settings };
  }

  private signInFirst(tenant: AuthTenant, connectorId: string, raw: string, reply: FastifyReply): void {
    const back = `${confirmationPath(tenant, connectorId)}?ticket=${raw}`;
    const signIn = `${tenant.mountPath}/account/connections/login?return=${encodeURIComponent(back)}`;
    sendPage(
      reply.header('referrer-policy', 'no-referrer'),
      401,
      'Sign in first',
      `<h1>Sign in first</h1><p data-testid="sign-in-first">To link an account you must be signed in to <strong>${escapeHtml(tenant.name)}</strong> as the user your assistant acts for. ` +
        `<a href="${escapeHtml(signIn)}">Sign in</a>, then you come back here.</p>`,
    );
  }

  private openTicket(tenant: AuthTenant, connectorId: string, raw: string): Ticket | undefined {
    if (!TICKET.test(raw)) return undefined;
    const [id = '', sub = '', exp = '', mac = ''] = raw.split('.');
    const expected = this.s.box.mac('link', `${tenant.id}|${connectorId}|${id}.${sub}.${exp}`);
    if (expected.length !== mac.length || !timingSafeEqual(Buffer.from(expected), Buffer.from(mac))) return undefined;
    if (Number(exp) < Date.now() / 1000) return undefined;
    return { id, subject: Buffer.from(sub, 'base64url').toString(), exp: Number(exp) };
  }

  private csrf(tenant: AuthTenant, session: BrowserSession, connectorId: string, ticketId: string): string {
    return this.s.box.mac('link-confirm', `${tenant.id}|${session.id}|${connectorId}|${ticketId}`);
  }
}

/**
 * Starts the upstream authorization (PKCE) of a link whose subject is settled: the state is
 * stored server-side and bound to this browser by a cookie the callback checks.
 */
export async function startLink(
  s: AuthServices,
  tenant: AuthTenant,
  cfg: Awaited<ReturnType<AuthServices['upstream']['config']>>,
  settings: ConnectorSettings,
  who: { subject: string; connector: string; adminSettings?: ConnectorSettings },
): Promise<{ url: string; cookie: string }> {
  const verifier = openidClient.randomPKCECodeVerifier();
  const state = openidClient.randomState();
  const saved: LinkState = {
    subject: who.subject,
    connector: who.connector,
    verifier,
    ...(who.adminSettings ? { settings: who.adminSettings } : {}),
  };
  await s.federation.put(state, tenant.id, 'link', saved, LINK_STATE_TTL_S);
  const url = openidClient.buildAuthorizationUrl(cfg, {
    redirect_uri: `${tenant.issuer}/connectors/callback`,
    scope: settings.scopes.join(' '),
    code_challenge: await openidClient.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
  });
  return {
    url: url.href,
    cookie: cookieHeader(`sb_${tenant.id}_link`, state, {
      path: `${tenant.mountPath}/connectors`,
      maxAge: LINK_STATE_TTL_S,
      secure: tenant.issuer.startsWith('https:'),
    }),
  };
}

/** The account as the user knows it: the subject without tenant and identity source (`acme|dir|alice` → `alice`). */
function displayName(tenant: AuthTenant, accountId: string): string {
  return displayUser(tenant.id, accountId);
}

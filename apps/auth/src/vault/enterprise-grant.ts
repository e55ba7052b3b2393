import type { ConnectorGrantSettings } from '@switchboard/catalog';
import { hashId } from '@switchboard/secret-box';
import { switchboardMetrics } from '@switchboard/telemetry';
import type { AuthServices } from '../auth-services';
import { openidClient } from '../federation/upstream-oidc';
import type { AuthTenant, ConnectorSettings } from '../tenants/tenant-auth';
import { GRANT_CACHE_LIMITS, type GrantToken, type GrantTokenCache } from './grant-token-cache';
import { ID_TOKEN_TYPE, identityAssertion } from './identity-assertion';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const ID_JAG_TYPE = 'urn:ietf:params:oauth:token-type:id-jag';
/** Token requests of one tenant in flight at once on this replica (a hanging token endpoint ties up at most this many). */
const MAX_IN_FLIGHT_PER_TENANT = 8;
/** Characters of an upstream's error text passed on to the user (it controls that text). */
const MAX_REASON_CHARS = 200;

/** What obtaining a token produced: a token, a refusal (the reason says by whom and why), or a transient failure. */
export type GrantOutcome =
  { kind: 'ok'; token: GrantToken } | { kind: 'refused'; reason: string } | { kind: 'unavailable'; reason: string };

type Stage = 'the enterprise IdP' | 'the connector\u2019s authorization server';

/** A failure tagged with the server that caused it. */
class StageError extends Error {
  constructor(
    readonly stage: Stage,
    options: { cause: unknown },
  ) {
    super(`${stage} failed`, options);
  }
}

/** What EnterpriseGrants uses of the auth services. */
export interface EnterpriseGrantDeps extends Pick<AuthServices, 'upstream' | 'secrets' | 'keys'> {
  logger: Pick<AuthServices['logger'], 'info' | 'warn'>;
  /** Tokens are renewed this many seconds before they expire (the vault's skew). */
  config: Pick<AuthServices['config'], 'VAULT_REFRESH_SKEW_S'>;
}

/** The enterprise IdP answered with something other than an ID-JAG. */
class WrongTokenTypeError extends Error {}

/**
 * Upstream tokens from the calling user's enterprise identity (issue 44 item 3), for connectors
 * with a `grant`: RFC 8693 token exchange at the connector's AS, or cross-app access (an ID-JAG
 * from the enterprise IdP by token exchange, then the RFC 7523 JWT-bearer grant at the
 * connector's AS). The subject token is the tenant AS's own short-lived assertion for the user
 * (identity-assertion.ts), never the client's token. Every request goes through UpstreamOidc
 * (net-guard, deadline, byte cap); tokens are cached sealed per (tenant, subject, connector).
 */
export class EnterpriseGrants {
  private readonly inFlight = new Map<string, number>();

  constructor(
    private readonly s: EnterpriseGrantDeps,
    private readonly cache: GrantTokenCache,
  ) {}

  async token(
    tenant: AuthTenant,
    subject: string,
    connectorId: string,
    connector: ConnectorSettings,
    grant: ConnectorGrantSettings,
  ): Promise<GrantOutcome> {
    const grantKey = hashId(JSON.stringify([connector.issuer, connector.clientId, connector.clientSecret ?? '', connector.scopes, grant]));
    const cached = await this.cache.get(tenant.id, subject, connectorId, grantKey, this.s.config.VAULT_REFRESH_SKEW_S);
    const count = (outcome: 'ok' | 'cached' | 'refused' | 'unavailable') =>
      switchboardMetrics().auth.connectorGrants.add(1, { grant: grant.kind, outcome });
    if (cached) {
      count('cached');
      return { kind: 'ok', token: cached };
    }
    const busy = this.inFlight.get(tenant.id) ?? 0;
    if (busy >= MAX_IN_FLIGHT_PER_TENANT) {
      count('unavailable');
      return { kind: 'unavailable', reason: 'too many token requests in flight for this tenant' };
    }
    this.inFlight.set(tenant.id, busy + 1);
    let answer: { access_token: string; expires_in?: number };
    try {
      answer = await this.obtain(tenant, subject, connectorId, connector, grant);
    } catch (err) {
      const outcome = classify(err);
      this.s.logger.warn(
        { tenant: tenant.id, connector: connectorId, grant: grant.kind, outcome: outcome.kind, reason: outcome.reason },
        'enterprise grant failed',
      );
      count(outcome.kind);
      return outcome;
    } finally {
      const left = (this.inFlight.get(tenant.id) ?? 1) - 1;
      if (left > 0) this.inFlight.set(tenant.id, left);
      else this.inFlight.delete(tenant.id);
    }
    if (answer.access_token.length > GRANT_CACHE_LIMITS.tokenChars) {
      count('refused');
      return {
        kind: 'refused',
        reason: `the connector\u2019s authorization server issued a token over ${GRANT_CACHE_LIMITS.tokenChars} characters`,
      };
    }
    const ttl = Math.min(GRANT_CACHE_LIMITS.maxTtlS, Math.max(0, Math.floor(answer.expires_in ?? GRANT_CACHE_LIMITS.defaultTtlS)));
    const token: GrantToken = { accessToken: answer.access_token, expiresAt: Math.floor(Date.now() / 1000) + ttl };
    if (ttl > this.s.config.VAULT_REFRESH_SKEW_S) await this.cache.put(tenant.id, subject, connectorId, grantKey, token);
    this.s.logger.info(
      { tenant: tenant.id, connector: connectorId, grant: grant.kind },
      'upstream token obtained from enterprise identity',
    );
    count('ok');
    return { kind: 'ok', token };
  }

  private async obtain(
    tenant: AuthTenant,
    subject: string,
    connectorId: string,
    connector: ConnectorSettings,
    grant: ConnectorGrantSettings,
  ): Promise<{ access_token: string; expires_in?: number }> {
    const asStage: Stage = 'the connector\u2019s authorization server';
    const upstream = await staged(asStage, () =>
      this.s.upstream.config({
        issuer: connector.issuer,
        clientId: connector.clientId,
        clientSecret: this.s.secrets.open(tenant.id, `connector:${connectorId}`, connector.clientSecret),
      }),
    );
    const scope: Record<string, string> = connector.scopes.length > 0 ? { scope: connector.scopes.join(' ') } : {};
    const resource: Record<string, string> = grant.resource ? { resource: grant.resource } : {};
    if (grant.kind === 'token_exchange') {
      const subjectToken = await identityAssertion(this.s.keys, tenant, subject, connector.issuer);
      const params = {
        subject_token: subjectToken,
        subject_token_type: ID_TOKEN_TYPE,
        requested_token_type: ACCESS_TOKEN_TYPE,
        ...(grant.audience ? { audience: grant.audience } : {}),
        ...resource,
        ...scope,
      };
      return staged(asStage, () => openidClient.genericGrantRequest(upstream, TOKEN_EXCHANGE, params));
    }
    const idpStage: Stage = 'the enterprise IdP';
    const idp = await staged(idpStage, () =>
      this.s.upstream.config({
        issuer: grant.idpIssuer,
        clientId: grant.idpClientId,
        clientSecret: this.s.secrets.open(tenant.id, `connector:${connectorId}:idp`, grant.idpClientSecret),
      }),
    );
    const subjectToken = await identityAssertion(this.s.keys, tenant, subject, grant.idpIssuer);
    const jagParams = {
      subject_token: subjectToken,
      subject_token_type: ID_TOKEN_TYPE,
      requested_token_type: ID_JAG_TYPE,
      audience: grant.audience ?? connector.issuer,
      ...resource,
      ...scope,
    };
    const jag = await staged(idpStage, () => openidClient.genericGrantRequest(idp, TOKEN_EXCHANGE, jagParams));
    if (jag.issued_token_type !== ID_JAG_TYPE)
      throw new StageError(idpStage, { cause: new WrongTokenTypeError(`issued ${String(jag.issued_token_type)} instead of an ID-JAG`) });
    return staged(asStage, () => openidClient.genericGrantRequest(upstream, JWT_BEARER, { assertion: jag.access_token, ...scope }));
  }
}

async function staged<T>(stage: Stage, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    throw new StageError(stage, { cause: err });
  }
}

/** An OAuth error answer (4xx), an SSRF refusal or a wrong token type is a refusal; timeouts, 5xx and network errors are transient. */
function classify(err: unknown): Exclude<GrantOutcome, { kind: 'ok' }> {
  const stage = err instanceof StageError ? err.stage : 'the connector\u2019s authorization server';
  const cause = err instanceof StageError ? err.cause : err;
  if (cause instanceof openidClient.ResponseBodyError && cause.status >= 400 && cause.status < 500) {
    const text = clip(`${cause.error}${cause.error_description ? `: ${cause.error_description}` : ''}`);
    return { kind: 'refused', reason: `${stage} refused the request (${text})` };
  }
  const guard = causeNamed(cause, 'NetGuardError');
  if (guard) return { kind: 'refused', reason: `${stage} cannot be reached from the platform (${clip(guard.message)})` };
  if (cause instanceof WrongTokenTypeError) return { kind: 'refused', reason: `${stage} ${clip(cause.message)}` };
  const what = causeNamed(cause, 'TimeoutError') ? 'did not answer in time' : 'could not be reached';
  return { kind: 'unavailable', reason: `${stage} ${what}` };
}

/**
 * The error named `name` in the cause chain. By name, not `instanceof`: fetch's DOMException and
 * openid-client's wrappers may come from another realm (jest's vm contexts), where instanceof fails.
 */
function causeNamed(err: unknown, name: string): { message: string } | undefined {
  let e: unknown = err;
  for (let i = 0; i < 6 && typeof e === 'object' && e !== null; i++) {
    const { name: n, message, cause } = e as { name?: unknown; message?: unknown; cause?: unknown };
    if (n === name) return { message: typeof message === 'string' ? message : name };
    e = cause;
  }
  return undefined;
}

/** Printable, bounded text of something an upstream said. */
function clip(text: string): string {
  const printable = text.replace(/[^\x20-\x7e]/g, ' ');
  return printable.length > MAX_REASON_CHARS ? `${printable.slice(0, MAX_REASON_CHARS)}…` : printable;
}

import { tenantSecretAad, type ConnectorGrantSettings } from '@switchboard/catalog';
import type { GuardedFetch } from '@switchboard/net-guard';
import type { SecretBox } from '@switchboard/secret-box';
import type { z } from 'zod';
import { ApiError } from '../http/api-error';
import { checkIssuer } from '../http/check-issuer';
import type { connectorGrantBody } from './tenant-auth-body';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

export interface ConnectorGrantInput {
  tenantId: string;
  serverId: string;
  /** What the PUT body said: left out keeps `current`, null removes it. */
  input: z.infer<typeof connectorGrantBody> | null | undefined;
  current: ConnectorGrantSettings | undefined;
  /** The connector issuer's discovery document (checked already). */
  issuerMetadata: Record<string, unknown>;
  fetch: GuardedFetch;
  box: SecretBox;
}

/**
 * The grant to store for a connector: the IdP secret sealed at once (kept when the same IdP
 * client is sent without one), the enterprise IdP's issuer discovery-checked through the SSRF
 * guard, and the grant types checked against what the servers advertise, so a grant that can
 * never work is refused here (400 naming the field) rather than on every user's call.
 */
export async function resolveConnectorGrant(p: ConnectorGrantInput): Promise<ConnectorGrantSettings | undefined> {
  if (p.input === null) return undefined;
  if (p.input === undefined) return p.current;
  const g = p.input;
  if (g.kind === 'token_exchange') {
    requireGrantType(p.issuerMetadata, TOKEN_EXCHANGE, 'body.grant.kind', 'the connector issuer');
    return { kind: 'token_exchange', ...(g.audience ? { audience: g.audience } : {}), ...(g.resource ? { resource: g.resource } : {}) };
  }
  requireGrantType(p.issuerMetadata, JWT_BEARER, 'body.grant.kind', 'the connector issuer');
  const idpMetadata = await checkIssuer(p.fetch, g.idpIssuer, 'body.grant.idpIssuer', [
    'oauth-authorization-server',
    'openid-configuration',
  ]);
  requireGrantType(idpMetadata, TOKEN_EXCHANGE, 'body.grant.idpIssuer', 'the enterprise IdP');
  const sameClient = p.current?.kind === 'cross_app' && p.current.idpIssuer === g.idpIssuer && p.current.idpClientId === g.idpClientId;
  const keep = sameClient && p.current?.kind === 'cross_app' ? p.current.idpClientSecret : undefined;
  const secret =
    g.idpClientSecret === undefined
      ? keep
      : g.idpClientSecret === null
        ? undefined
        : p.box.seal(g.idpClientSecret, tenantSecretAad(p.tenantId, `connector:${p.serverId}:idp`));
  return {
    kind: 'cross_app',
    idpIssuer: g.idpIssuer,
    idpClientId: g.idpClientId,
    ...(secret ? { idpClientSecret: secret } : {}),
    ...(g.audience ? { audience: g.audience } : {}),
    ...(g.resource ? { resource: g.resource } : {}),
  };
}

/** A server that lists `grant_types_supported` without `grantType` would refuse every request. */
function requireGrantType(metadata: Record<string, unknown>, grantType: string, field: string, who: string): void {
  const supported = metadata.grant_types_supported;
  if (!Array.isArray(supported) || supported.includes(grantType)) return;
  const message = `${who} does not support the ${grantType} grant (its grant_types_supported omits it)`;
  throw new ApiError(400, 'VALIDATION', `${field}: ${message}`, field, { issues: [{ field, message }] });
}

import { tenantAuthSchema, type ConnectorGrantSettings, type TenantAuthSettings } from '@switchboard/catalog';
import type { Queryable } from '../db/database';

export interface TenantAuthRow {
  tenant_id: string;
  protected: boolean;
  scopes: string[];
  default_scopes: string[] | null;
  tool_scopes: Record<string, string[]>;
  allow_private_use_redirects: boolean;
  idp_kind: 'local' | 'oidc';
  idp_issuer: string | null;
  idp_client_id: string | null;
  idp_scopes: string[] | null;
  idp_secret: string | null;
  enterprise_idps: unknown[];
}

export interface ConnectorRow {
  server_id: string;
  issuer: string;
  client_id: string;
  scopes: string[];
  secret: string | null;
  grant_settings: ConnectorGrantSettings | null;
}

/**
 * The `auth` of a tenant's document, as the gateway and the auth service receive it: settings
 * from `registry.tenant_auth` + `registry.tenant_connectors`, secrets still sealed (the AAD is
 * the document's `tenantSecretAad`). Undefined when the tenant never set auth up.
 */
export async function loadTenantAuth(q: Queryable, tenantId: string): Promise<TenantAuthSettings | undefined> {
  const rows = await q.query<TenantAuthRow>('SELECT * FROM registry.tenant_auth WHERE tenant_id = $1', [tenantId]);
  const row = rows[0];
  if (!row) return undefined;
  const connectors = await q.query<ConnectorRow>(
    'SELECT server_id, issuer, client_id, scopes, secret, grant_settings FROM registry.tenant_connectors WHERE tenant_id = $1 ORDER BY server_id',
    [tenantId],
  );
  return tenantAuthSchema.parse({
    protected: row.protected,
    scopes: row.scopes,
    ...(row.default_scopes ? { defaultScopes: row.default_scopes } : {}),
    toolScopes: row.tool_scopes,
    allowPrivateUseRedirects: row.allow_private_use_redirects,
    idp:
      row.idp_kind === 'oidc'
        ? {
            kind: 'oidc',
            issuer: row.idp_issuer,
            clientId: row.idp_client_id,
            ...(row.idp_scopes ? { scopes: row.idp_scopes } : {}),
            ...(row.idp_secret ? { clientSecret: row.idp_secret } : {}),
          }
        : { kind: 'local' },
    enterpriseIdps: row.enterprise_idps,
    connectors: Object.fromEntries(
      connectors.map((c) => [
        c.server_id,
        {
          issuer: c.issuer,
          clientId: c.client_id,
          scopes: c.scopes,
          ...(c.secret ? { clientSecret: c.secret } : {}),
          ...(c.grant_settings ? { grant: c.grant_settings } : {}),
        },
      ]),
    ),
  });
}

/** The admin API's view of tenant auth: everything but secrets (`clientSecretSet` instead). */
export function tenantAuthView(auth: TenantAuthSettings | undefined): Record<string, unknown> {
  const a = auth ?? tenantAuthSchema.parse({ protected: false });
  const idp =
    a.idp.kind === 'oidc'
      ? {
          kind: 'oidc',
          issuer: a.idp.issuer,
          clientId: a.idp.clientId,
          scopes: a.idp.scopes,
          clientSecretSet: a.idp.clientSecret !== undefined,
        }
      : { kind: 'local' };
  return {
    configured: auth !== undefined,
    protected: a.protected,
    scopes: a.scopes,
    defaultScopes: a.defaultScopes ?? null,
    toolScopes: a.toolScopes,
    allowPrivateUseRedirects: a.allowPrivateUseRedirects,
    idp,
    enterpriseIdps: a.enterpriseIdps,
    connectors: Object.fromEntries(
      Object.entries(a.connectors).map(([id, c]) => [
        id,
        {
          issuer: c.issuer,
          clientId: c.clientId,
          scopes: c.scopes,
          clientSecretSet: c.clientSecret !== undefined,
          ...(c.grant ? { grant: grantView(c.grant) } : {}),
        },
      ]),
    ),
  };
}

/** A connector's enterprise-identity grant without its sealed IdP secret (`idpClientSecretSet` instead); left out when unset. */
function grantView(g: ConnectorGrantSettings): Record<string, unknown> {
  if (g.kind === 'token_exchange') return { ...g };
  const { idpClientSecret, ...rest } = g;
  return { ...rest, idpClientSecretSet: idpClientSecret !== undefined };
}

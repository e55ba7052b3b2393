/** `GET /v1/tenant/auth` (never a secret: `clientSecretSet` instead). */
export interface TenantAuthView {
  configured: boolean;
  protected: boolean;
  scopes: string[];
  defaultScopes: string[] | null;
  toolScopes: Record<string, string[]>;
  idp: { kind: 'local' } | { kind: 'oidc'; issuer: string; clientId: string; scopes: string[]; clientSecretSet: boolean };
  connectors: Record<string, { issuer: string; clientId: string; scopes: string[]; clientSecretSet: boolean }>;
  pushed?: 'ok' | 'unavailable' | null;
}

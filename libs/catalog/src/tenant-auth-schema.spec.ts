import { canonicalMcpUrl } from './canonical-mcp-url';
import { tenantAuthSchema, TENANT_AUTH_LIMITS } from './tenant-auth-schema';
import { ENTERPRISE_IDP_LIMITS } from './enterprise-idp-schema';

describe('canonicalMcpUrl', () => {
  it('is path-based under the gateway URL, without a doubled slash', () => {
    expect(canonicalMcpUrl('acme', { gatewayPublicUrl: 'http://127.0.0.1:3000/' })).toBe('http://127.0.0.1:3000/t/acme/mcp');
  });

  it('is host-based when a domain is set', () => {
    expect(canonicalMcpUrl('acme', { gatewayPublicUrl: 'http://ignored', domain: 'mcp.example.com' })).toBe(
      'https://acme.mcp.example.com/mcp',
    );
  });
});

describe('tenantAuthSchema', () => {
  it('fills the defaults of a minimal block', () => {
    expect(tenantAuthSchema.parse({})).toEqual({
      protected: true,
      scopes: ['mcp:tools'],
      idp: { kind: 'local' },
      toolScopes: {},
      connectors: {},
      allowPrivateUseRedirects: true,
      enterpriseIdps: [],
    });
  });

  it('names the field of a bad value', () => {
    const r = tenantAuthSchema.safeParse({ scopes: ['has space'], idp: { kind: 'oidc', issuer: 'not a url', clientId: 'x' } });
    expect(r.success).toBe(false);
    const paths = r.error?.issues.map((i) => i.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['scopes.0', 'idp.issuer']));
  });

  it('refuses unknown keys, and an environment variable name in place of a secret', () => {
    expect(tenantAuthSchema.safeParse({ protectd: true }).success).toBe(false);
    const r = tenantAuthSchema.safeParse({
      idp: { kind: 'oidc', issuer: 'https://idp.example', clientId: 'x', clientSecretEnv: 'IDP_SECRET' },
    });
    expect(r.error?.issues[0]?.message).toMatch(/clientSecretEnv/);
    expect(
      tenantAuthSchema.safeParse({ idp: { kind: 'oidc', issuer: 'https://idp.example', clientId: 'x', clientSecret: 'plain-text' } }).error
        ?.issues[0]?.path,
    ).toEqual(['idp', 'clientSecret']);
  });

  it('accepts exactly the bound of scopes and refuses one more', () => {
    const scopes = Array.from({ length: TENANT_AUTH_LIMITS.scopes }, (_, i) => `s${i}`);
    expect(tenantAuthSchema.safeParse({ scopes }).success).toBe(true);
    expect(tenantAuthSchema.safeParse({ scopes: [...scopes, 'one-more'] }).error?.issues[0]?.path).toEqual(['scopes']);
  });

  it('accepts exactly the bound of trusted enterprise IdPs, clients and groups, refuses one more, and refuses a repeated issuer', () => {
    const idp = (i: number, extra: Record<string, unknown> = {}) => ({
      issuer: `https://idp${i}.example`,
      jwksUri: `https://idp${i}.example/jwks`,
      allowedClients: ['c'],
      ...extra,
    });
    const idps = Array.from({ length: ENTERPRISE_IDP_LIMITS.idps }, (_, i) => idp(i));
    expect(tenantAuthSchema.parse({ enterpriseIdps: idps }).enterpriseIdps[0]).toEqual({
      ...idp(0),
      subjectClaim: 'sub',
      groupsClaim: 'groups',
      groupScopes: {},
    });
    expect(tenantAuthSchema.safeParse({ enterpriseIdps: [...idps, idp(99)] }).error?.issues[0]?.path).toEqual(['enterpriseIdps']);
    const clients = Array.from({ length: ENTERPRISE_IDP_LIMITS.allowedClients }, (_, i) => `c${i}`);
    expect(tenantAuthSchema.safeParse({ enterpriseIdps: [idp(0, { allowedClients: clients })] }).success).toBe(true);
    expect(
      tenantAuthSchema.safeParse({ enterpriseIdps: [idp(0, { allowedClients: [...clients, 'one-more'] })] }).error?.issues[0]?.path,
    ).toEqual(['enterpriseIdps', 0, 'allowedClients']);
    const groups = Object.fromEntries(Array.from({ length: ENTERPRISE_IDP_LIMITS.groups }, (_, i) => [`g${i}`, ['mcp:tools']]));
    expect(tenantAuthSchema.safeParse({ enterpriseIdps: [idp(0, { groupScopes: groups })] }).success).toBe(true);
    expect(
      tenantAuthSchema.safeParse({ enterpriseIdps: [idp(0, { groupScopes: { ...groups, extra: ['mcp:tools'] } })] }).error?.issues[0]?.path,
    ).toEqual(['enterpriseIdps', 0, 'groupScopes']);
    expect(
      tenantAuthSchema.safeParse({ enterpriseIdps: [idp(0), { ...idp(1), issuer: 'https://idp0.example/' }] }).error?.issues[0]?.message,
    ).toBe('issuers must be unique');
  });
});

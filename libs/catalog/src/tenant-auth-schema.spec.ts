import { canonicalMcpUrl } from './canonical-mcp-url';
import { tenantAuthSchema, TENANT_AUTH_LIMITS } from './tenant-auth-schema';

describe('canonicalMcpUrl', () => {
  it('is path-based under the gateway URL, without a doubled slash', () => {
    expect(canonicalMcpUrl('acme', { gatewayPublicUrl: 'http://127.0.0.1:3000/' })).toBe('http://127.0.0.1:3000/t/acme/mcp');
  });

  it('is host-based when a domain is set', () => {
    expect(canonicalMcpUrl('acme', { gatewayPublicUrl: 'http://ignored', domain: 'mcp.example.com' })).toBe('https://acme.mcp.example.com/mcp');
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
    const r = tenantAuthSchema.safeParse({ idp: { kind: 'oidc', issuer: 'https://idp.example', clientId: 'x', clientSecretEnv: 'IDP_SECRET' } });
    expect(r.error?.issues[0]?.message).toMatch(/clientSecretEnv/);
    expect(tenantAuthSchema.safeParse({ idp: { kind: 'oidc', issuer: 'https://idp.example', clientId: 'x', clientSecret: 'plain-text' } }).error?.issues[0]?.path).toEqual(['idp', 'clientSecret']);
  });

  it('accepts exactly the bound of scopes and refuses one more', () => {
    const scopes = Array.from({ length: TENANT_AUTH_LIMITS.scopes }, (_, i) => `s${i}`);
    expect(tenantAuthSchema.safeParse({ scopes }).success).toBe(true);
    expect(tenantAuthSchema.safeParse({ scopes: [...scopes, 'one-more'] }).error?.issues[0]?.path).toEqual(['scopes']);
  });
});

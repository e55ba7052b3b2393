import { canonicalMcpUrl } from './canonical-mcp-url';
import { tenantAuthSchema } from './tenant-auth-schema';

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

  it('refuses unknown keys', () => {
    expect(tenantAuthSchema.safeParse({ protectd: true }).success).toBe(false);
  });
});

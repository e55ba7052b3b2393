import { tenantAuthSchema } from '@switchboard/catalog';
import { startAuth, type TestAuth } from './support/auth-harness';
import { decodeJwt, obtainTokens, registerPublicClient } from '@switchboard/testing';

/** The auth service swaps a tenant's settings when its tenant document changes: no restart, the next request sees them. */
describe('tenant documents applied mid-flight', () => {
  let auth: TestAuth;
  beforeAll(async () => {
    auth = await startAuth({ tenants: [{ id: 'acme', auth: { scopes: ['mcp:tools'] } }] });
  });
  afterAll(async () => auth?.close());

  const metadata = async (tenant: string) => {
    const res = await fetch(`${auth.baseUrl}/.well-known/oauth-authorization-server/t/${tenant}`);
    return { status: res.status, body: res.status === 200 ? ((await res.json()) as { scopes_supported: string[] }) : undefined };
  };

  it('rebuilds the provider from a new version: new scopes are advertised and granted on the next request', async () => {
    // Warm the provider on version 1.
    expect((await metadata('acme')).body?.scopes_supported).toContain('mcp:tools');
    expect((await metadata('acme')).body?.scopes_supported).not.toContain('mcp:crm');
    auth.services.tenants.apply({
      id: 'acme',
      name: 'Acme',
      version: 'v2',
      auth: tenantAuthSchema.parse({ scopes: ['mcp:tools', 'mcp:crm'], defaultScopes: ['mcp:crm'] }),
    });
    expect((await metadata('acme')).body?.scopes_supported).toEqual(expect.arrayContaining(['mcp:tools', 'mcp:crm']));
    const t = await obtainTokens(auth.issuer('acme'));
    expect(decodeJwt(String(t.body.access_token)).payload.scope).toBe('mcp:crm');
  });

  it('serves a tenant that turns auth on at once (metadata, DCR), and stops when its document drops auth', async () => {
    expect((await metadata('beta')).status).toBe(404);
    auth.services.tenants.apply({ id: 'beta', name: 'Beta', version: 'b1', auth: tenantAuthSchema.parse({}) });
    expect((await metadata('beta')).status).toBe(200);
    expect(await registerPublicClient(`${auth.baseUrl}/t/beta`)).toEqual(expect.any(String));
    auth.services.tenants.apply({ id: 'beta', name: 'Beta', version: 'b2' });
    expect((await metadata('beta')).status).toBe(404);
  });

  it('ignores a document whose version it already has', () => {
    const before = auth.services.tenants.byId('acme');
    expect(auth.services.tenants.apply({ id: 'acme', name: 'Renamed', version: 'v2', auth: tenantAuthSchema.parse({}) })).toBe(false);
    expect(auth.services.tenants.byId('acme')).toBe(before);
  });
});

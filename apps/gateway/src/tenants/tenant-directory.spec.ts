import { snapshotFromBundle } from '@switchboard/catalog';
import { demoBundle } from '../builtin/demo/demo-bundle';
import type { TenantCatalog } from '../catalog-source/catalog-source';
import { TenantDirectory } from './tenant-directory';

function tenant(id: string, extra: Partial<TenantCatalog> = {}): TenantCatalog {
  return { id, name: id, origins: [], hosts: [], surfaceRules: {}, snapshot: snapshotFromBundle(id, demoBundle), ...extra };
}

describe('TenantDirectory.resolve', () => {
  test('path-based: the :tenant param picks the tenant, unknown ones resolve to nothing', () => {
    const dir = new TenantDirectory({ publicUrl: 'http://127.0.0.1:3000' });
    dir.apply(tenant('acme'));
    expect(dir.resolve({ tenant: 'acme' }, '127.0.0.1:3000')?.tenantId).toBe('acme');
    expect(dir.resolve({ tenant: 'nobody' }, '127.0.0.1:3000')).toBeUndefined();
  });

  test('host-based: {tenant}.{GATEWAY_DOMAIN} picks the tenant (port and case ignored)', () => {
    const dir = new TenantDirectory({ publicUrl: 'https://mcp.example.com', domain: 'mcp.example.com' });
    dir.apply(tenant('acme'));
    dir.apply(tenant('beta'));
    expect(dir.resolve({}, 'acme.mcp.example.com')?.tenantId).toBe('acme');
    expect(dir.resolve({}, 'Beta.MCP.Example.com:443')?.tenantId).toBe('beta');
  });

  test('host-based: other domains, look-alike suffixes, bare domain, unknown tenants and no Host resolve to nothing', () => {
    const dir = new TenantDirectory({ publicUrl: 'https://mcp.example.com', domain: 'mcp.example.com' });
    dir.apply(tenant('acme'));
    expect(dir.resolve({}, 'acme.evil.com')).toBeUndefined();
    expect(dir.resolve({}, 'acme.notmcp.example.com')).toBeUndefined();
    expect(dir.resolve({}, 'acmemcp.example.com')).toBeUndefined();
    expect(dir.resolve({}, 'mcp.example.com')).toBeUndefined();
    expect(dir.resolve({}, 'nobody.mcp.example.com')).toBeUndefined();
    expect(dir.resolve({}, undefined)).toBeUndefined();
  });

  test('without a domain, a Host never selects a tenant', () => {
    const dir = new TenantDirectory({ publicUrl: 'http://127.0.0.1:3000' });
    dir.apply(tenant('acme'));
    expect(dir.resolve({}, 'acme.mcp.example.com')).toBeUndefined();
  });

  test('the tenant host is on its Host allow-list beside loopback, the public host and extra hosts', () => {
    const dir = new TenantDirectory({ publicUrl: 'https://gw.example.net', domain: 'mcp.example.com' });
    const target = dir.apply(tenant('acme', { hosts: ['Tools.Acme.io'] }));
    expect(target.allowedHosts).toEqual(expect.arrayContaining(['localhost', '127.0.0.1', '[::1]', 'gw.example.net', 'acme.mcp.example.com', 'tools.acme.io']));
    expect(target.allowedHosts).not.toContain('beta.mcp.example.com');
  });

  test('apply swaps the catalog: a second apply for the same tenant replaces the first', () => {
    const dir = new TenantDirectory({ publicUrl: 'http://127.0.0.1:3000' });
    const first = dir.apply(tenant('acme'));
    const second = dir.apply(tenant('acme', { origins: ['https://app.acme.io'] }));
    expect(dir.resolve({ tenant: 'acme' }, undefined)).toBe(second);
    expect(dir.resolve({ tenant: 'acme' }, undefined)).not.toBe(first);
    expect(second.allowedOrigins).toContain('https://app.acme.io');
    expect(dir.size).toBe(1);
  });

  test('mcpUrl is host-based when a domain is configured, path-based otherwise', () => {
    expect(new TenantDirectory({ publicUrl: 'https://gw.example.net', domain: 'mcp.example.com' }).mcpUrl('acme')).toBe('https://acme.mcp.example.com/mcp');
    expect(new TenantDirectory({ publicUrl: 'http://127.0.0.1:3000' }).mcpUrl('acme')).toBe('http://127.0.0.1:3000/t/acme/mcp');
  });
});

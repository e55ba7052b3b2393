import { snapshotFromBundle } from '@switchboard/catalog';
import { demoBundle } from '@switchboard/fixtures';
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

describe('TenantDirectory catalog swaps and the shared page cache', () => {
  const listOf = (dir: TenantDirectory, id: string) => dir.target(id)?.catalog.list('tools/list', 'claude', '2026-07-28') as Buffer;

  test('pages are compiled on first use, and a swap drops only that tenant’s pages', () => {
    const dir = new TenantDirectory({ publicUrl: 'http://127.0.0.1:3000', pageCacheBytes: 16 * 1024 * 1024 });
    dir.apply(tenant('acme'));
    dir.apply(tenant('globex'));
    expect(dir.pages.stats.keys).toBe(0);
    const acmeBefore = listOf(dir, 'acme');
    const globex = listOf(dir, 'globex');
    expect(dir.pages.stats.keys).toBe(2);

    const renamed = snapshotFromBundle('acme', { ...demoBundle, server: { ...demoBundle.server, name: 'acme-renamed' } });
    dir.apply(tenant('acme', { snapshot: renamed }));
    expect(dir.pages.stats.keys).toBe(1);
    // The other tenant still gets its cached Buffer (no recompile), the swapped one its new bytes.
    const misses = dir.pages.stats.misses;
    expect(listOf(dir, 'globex')).toBe(globex);
    expect(dir.pages.stats.misses).toBe(misses);
    const acmeAfter = listOf(dir, 'acme');
    expect(acmeAfter.toString('utf8')).toContain('acme-renamed');
    expect(acmeAfter.equals(acmeBefore)).toBe(false);
  });

  test('the page cache stays within its byte bound across many tenants', () => {
    const dir = new TenantDirectory({ publicUrl: 'http://127.0.0.1:3000', pageCacheBytes: 50_000 });
    for (let i = 0; i < 50; i++) dir.apply(tenant(`t${i}`));
    for (let i = 0; i < 50; i++) expect(JSON.parse(listOf(dir, `t${i}`).toString('utf8'))._meta).toBeDefined();
    expect(dir.pages.stats.bytes).toBeLessThanOrEqual(50_000);
  });
});

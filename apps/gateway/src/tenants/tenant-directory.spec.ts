import { CatalogCaches, snapshotFromBundle } from '@switchboard/catalog';
import { demoBundle } from '@switchboard/fixtures';
import type { TenantCatalog } from '../catalog-source/catalog-source';
import type { McpTarget } from '@switchboard/mcp-http';
import { TenantDirectory } from './tenant-directory';

function tenant(id: string, extra: Partial<TenantCatalog> = {}): TenantCatalog {
  return { id, name: id, origins: [], hosts: [], surfaceRules: {}, snapshot: snapshotFromBundle(id, demoBundle), ...extra };
}

/** A held tenant resolves synchronously: no promise on the warm path. */
function held(resolved: ReturnType<TenantDirectory['resolve']>): McpTarget | undefined {
  if (resolved instanceof Promise) throw new Error('a held tenant resolved through a promise');
  return resolved;
}

describe('TenantDirectory.resolve', () => {
  test('path-based: the :tenant param picks the tenant, unknown ones resolve to nothing', () => {
    const dir = new TenantDirectory({ publicUrl: 'http://127.0.0.1:3000' });
    dir.apply(tenant('acme'));
    expect(held(dir.resolve('acme', '127.0.0.1:3000'))?.tenantId).toBe('acme');
    expect(dir.resolve('nobody', '127.0.0.1:3000')).toBeUndefined();
  });

  test('host-based: {tenant}.{GATEWAY_DOMAIN} picks the tenant (port and case ignored)', () => {
    const dir = new TenantDirectory({ publicUrl: 'https://mcp.example.com', domain: 'mcp.example.com' });
    dir.apply(tenant('acme'));
    dir.apply(tenant('beta'));
    expect(held(dir.resolve(undefined, 'acme.mcp.example.com'))?.tenantId).toBe('acme');
    expect(held(dir.resolve(undefined, 'Beta.MCP.Example.com:443'))?.tenantId).toBe('beta');
  });

  test('host-based: other domains, look-alike suffixes, bare domain, unknown tenants and no Host resolve to nothing', () => {
    const dir = new TenantDirectory({ publicUrl: 'https://mcp.example.com', domain: 'mcp.example.com' });
    dir.apply(tenant('acme'));
    expect(dir.resolve(undefined, 'acme.evil.com')).toBeUndefined();
    expect(dir.resolve(undefined, 'acme.notmcp.example.com')).toBeUndefined();
    expect(dir.resolve(undefined, 'acmemcp.example.com')).toBeUndefined();
    expect(dir.resolve(undefined, 'mcp.example.com')).toBeUndefined();
    expect(dir.resolve(undefined, 'nobody.mcp.example.com')).toBeUndefined();
    expect(dir.resolve(undefined, undefined)).toBeUndefined();
  });

  test('without a domain, a Host never selects a tenant', () => {
    const dir = new TenantDirectory({ publicUrl: 'http://127.0.0.1:3000' });
    dir.apply(tenant('acme'));
    expect(dir.resolve(undefined, 'acme.mcp.example.com')).toBeUndefined();
  });

  test('the tenant host is on its Host allow-list beside loopback, the public host and extra hosts', () => {
    const dir = new TenantDirectory({ publicUrl: 'https://gw.example.net', domain: 'mcp.example.com' });
    const target = dir.apply(tenant('acme', { hosts: ['Tools.Acme.io'] }));
    expect(target.allowedHosts).toEqual(
      expect.arrayContaining(['localhost', '127.0.0.1', '[::1]', 'gw.example.net', 'acme.mcp.example.com', 'tools.acme.io']),
    );
    expect(target.allowedHosts).not.toContain('beta.mcp.example.com');
  });

  test('apply swaps the catalog: a second apply for the same tenant replaces the first', () => {
    const dir = new TenantDirectory({ publicUrl: 'http://127.0.0.1:3000' });
    const first = dir.apply(tenant('acme'));
    const second = dir.apply(tenant('acme', { origins: ['https://app.acme.io'] }));
    expect(dir.resolve('acme', undefined)).toBe(second);
    expect(dir.resolve('acme', undefined)).not.toBe(first);
    expect(second.allowedOrigins).toContain('https://app.acme.io');
    expect(dir.size).toBe(1);
  });

  test('mcpUrl is host-based when a domain is configured, path-based otherwise', () => {
    expect(new TenantDirectory({ publicUrl: 'https://gw.example.net', domain: 'mcp.example.com' }).mcpUrl('acme')).toBe(
      'https://acme.mcp.example.com/mcp',
    );
    expect(new TenantDirectory({ publicUrl: 'http://127.0.0.1:3000' }).mcpUrl('acme')).toBe('http://127.0.0.1:3000/t/acme/mcp');
  });
});

describe('TenantDirectory catalog swaps and the shared page cache', () => {
  const listOf = (dir: TenantDirectory, id: string) => dir.target(id)?.catalog.list('tools/list', 'claude', '2026-07-28') as Buffer;

  test('pages are compiled on first use, and a swap drops only that tenant’s pages', () => {
    const dir = new TenantDirectory({
      publicUrl: 'http://127.0.0.1:3000',
      caches: new CatalogCaches({ pageCacheBytes: 16 * 1024 * 1024 }),
    });
    // Unshared entries (a copy each, as registry tenants have): every page is the tenant's own.
    const own = (id: string, snap = snapshotFromBundle(id, demoBundle)) => tenant(id, { snapshot: structuredClone(snap) });
    dir.apply(own('acme'));
    dir.apply(own('globex'));
    expect(dir.pages.stats.keys).toBe(0);
    const acmeBefore = listOf(dir, 'acme');
    const globex = listOf(dir, 'globex');
    expect(dir.pages.stats.keys).toBe(2);

    const renamed = snapshotFromBundle('acme', { ...demoBundle, server: { ...demoBundle.server, name: 'acme-renamed' } });
    dir.apply(own('acme', renamed));
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
    const dir = new TenantDirectory({ publicUrl: 'http://127.0.0.1:3000', caches: new CatalogCaches({ pageCacheBytes: 50_000 }) });
    for (let i = 0; i < 50; i++) dir.apply(tenant(`t${i}`));
    for (let i = 0; i < 50; i++) expect(JSON.parse(listOf(dir, `t${i}`).toString('utf8'))._meta).toBeDefined();
    expect(dir.pages.stats.bytes).toBeLessThanOrEqual(50_000);
  });
});

describe('TenantDirectory per-tenant state shared across tenants', () => {
  const claudeRules = { surfaces: { claude: { maxTools: 3 } } } as TenantCatalog['surfaceRules'];

  test('tenants with equal surface rules share resolved profiles; other rules get their own', () => {
    const dir = new TenantDirectory({ publicUrl: 'http://127.0.0.1:3000' });
    const a = dir.apply(tenant('a'));
    const b = dir.apply(tenant('b'));
    const c = dir.apply(tenant('c', { surfaceRules: claudeRules }));
    const d = dir.apply(tenant('d', { surfaceRules: structuredClone(claudeRules) }));
    expect(b.surfaces).toBe(a.surfaces);
    expect(d.surfaces).toBe(c.surfaces);
    expect(c.surfaces).not.toBe(a.surfaces);
    expect(c.surfaces.claude?.maxTools).toBe(3);
    expect(a.surfaces.claude?.maxTools).not.toBe(3);
    const names = (t: typeof a) => JSON.parse(t.catalog.list('tools/list', 'claude', '2025-06-18').toString('utf8')).tools.length;
    expect(names(c)).toBeLessThanOrEqual(3);
  });

  test('a tenant’s own origins and hosts are added to the defaults; tenants without any share the default lists', () => {
    const dir = new TenantDirectory({ publicUrl: 'https://gw.example.net' });
    const plain = dir.apply(tenant('plain'));
    const other = dir.apply(tenant('other'));
    const own = dir.apply(tenant('own', { origins: ['https://app.acme.example'], hosts: ['MCP.Acme.example'] }));
    expect(other.allowedOrigins).toBe(plain.allowedOrigins);
    expect(other.allowedHosts).toBe(plain.allowedHosts);
    expect(plain.allowedHosts).toEqual(['localhost', '127.0.0.1', '[::1]', 'gw.example.net']);
    expect(own.allowedOrigins).toEqual([...plain.allowedOrigins, 'https://app.acme.example']);
    expect(own.allowedHosts).toEqual([...plain.allowedHosts, 'mcp.acme.example']);
    expect(plain.allowedOrigins).not.toContain('https://app.acme.example');
  });

  test('with a domain, each tenant allows its own {tenant}.{domain} host', () => {
    const dir = new TenantDirectory({ publicUrl: 'https://mcp.example.com', domain: 'mcp.example.com' });
    expect(dir.apply(tenant('acme')).allowedHosts).toContain('acme.mcp.example.com');
    expect(dir.apply(tenant('beta')).allowedHosts).not.toContain('acme.mcp.example.com');
  });
});

describe('TenantDirectory tenants of one bundle', () => {
  test('share one cached tools page body; each tenant still lists its own serverInfo', () => {
    const dir = new TenantDirectory({
      publicUrl: 'http://127.0.0.1:3000',
      caches: new CatalogCaches({ pageCacheBytes: 16 * 1024 * 1024 }),
    });
    for (let i = 0; i < 20; i++)
      dir.apply(
        tenant(`b${i}`, { snapshot: { ...snapshotFromBundle(`b${i}`, demoBundle), server: { name: `server-b${i}`, version: '1.0.0' } } }),
      );
    const listed = (id: string) =>
      JSON.parse(dir.target(id)?.catalog.list('tools/list', 'claude', '2026-07-28').toString('utf8') as string);
    expect(listed('b3').tools).toEqual(listed('b0').tools);
    expect(JSON.stringify(listed('b3')._meta)).toContain('server-b3');
    for (let i = 0; i < 20; i++) listed(`b${i}`);
    expect(dir.pages.stats.keys).toBe(1);
  });
});

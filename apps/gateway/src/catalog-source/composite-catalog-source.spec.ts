import pino from 'pino';
import type { CatalogSource, TenantCatalog } from './catalog-source';
import { CompositeCatalogSource } from './composite-catalog-source';

function tenant(id: string, name: string): TenantCatalog {
  return {
    id,
    name,
    origins: [],
    hosts: [],
    surfaceRules: {},
    snapshot: { tenantId: id, version: name, server: { name, version: '1' }, tools: [], resources: [], resourceTemplates: [], prompts: [] },
  };
}

class ListSource implements CatalogSource {
  readonly bundles = [];
  private listener: ((t: TenantCatalog) => void) | undefined;
  constructor(private readonly tenants: TenantCatalog[]) {}
  async load() {
    return this.tenants;
  }
  subscribe(listener: (t: TenantCatalog) => void) {
    this.listener = listener;
    return () => (this.listener = undefined);
  }
  emit(t: TenantCatalog) {
    this.listener?.(t);
  }
  async close() {}
}

describe('CompositeCatalogSource', () => {
  const logger = pino({ level: 'silent' });

  it('serves the tenants of every source, the first source winning a shared id', async () => {
    const a = new ListSource([tenant('demo', 'file demo'), tenant('conformance', 'file conf')]);
    const b = new ListSource([tenant('acme', 'registry acme'), tenant('demo', 'registry demo')]);
    const loaded = await new CompositeCatalogSource([a, b], logger).load();
    expect(loaded.map((t) => `${t.id}:${t.name}`)).toEqual(['demo:file demo', 'conformance:file conf', 'acme:registry acme']);
  });

  it('forwards updates only from the source that owns the tenant', async () => {
    const a = new ListSource([tenant('demo', 'file demo')]);
    const b = new ListSource([tenant('acme', 'v1')]);
    const composite = new CompositeCatalogSource([a, b], logger);
    await composite.load();
    const seen: string[] = [];
    composite.subscribe((t) => seen.push(`${t.id}:${t.name}`));
    b.emit(tenant('acme', 'v2'));
    b.emit(tenant('demo', 'hijack'));
    b.emit(tenant('newco', 'v1'));
    expect(seen).toEqual(['acme:v2', 'newco:v1']);
  });
});

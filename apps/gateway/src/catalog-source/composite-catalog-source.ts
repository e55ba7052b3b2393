import type { LocalBundle } from '@switchboard/catalog';
import type { Logger } from 'pino';
import type { CatalogSource, OnDemandTenants, TenantCatalog } from './catalog-source';

/**
 * Serves tenants from several sources at once (e.g. the file source's demo and conformance
 * tenants beside the registry's). A tenant id belongs to the first source that offered it;
 * another source's tenant with the same id is ignored with a warning, so one source can
 * never take over another's tenant.
 */
export class CompositeCatalogSource implements CatalogSource {
  private readonly owner = new Map<string, number>();

  constructor(
    private readonly sources: readonly CatalogSource[],
    private readonly logger: Logger,
  ) {}

  get bundles(): readonly LocalBundle[] {
    return this.sources.flatMap((s) => s.bundles);
  }

  /** The first source that fetches on use (the registry's); the others' tenants are loaded at boot and held, so never fetched. */
  get onDemand(): OnDemandTenants | undefined {
    return this.sources.find((s) => s.onDemand)?.onDemand;
  }

  async load(): Promise<TenantCatalog[]> {
    const loaded = await Promise.all(this.sources.map((s) => s.load()));
    const out: TenantCatalog[] = [];
    loaded.forEach((tenants, index) => {
      for (const tenant of tenants) if (this.claim(tenant.id, index)) out.push(tenant);
    });
    return out;
  }

  subscribe(listener: (tenant: TenantCatalog) => void): () => void {
    const unsubscribers = this.sources.map((source, index) =>
      source.subscribe((tenant) => {
        if (this.claim(tenant.id, index)) listener(tenant);
      }),
    );
    return () => unsubscribers.forEach((u) => u());
  }

  async close(): Promise<void> {
    await Promise.all(this.sources.map((s) => s.close()));
  }

  private claim(tenantId: string, index: number): boolean {
    const current = this.owner.get(tenantId);
    if (current === undefined) {
      this.owner.set(tenantId, index);
      return true;
    }
    if (current !== index) {
      this.logger.warn({ tenant: tenantId }, 'tenant id is served by another catalog source; ignoring this one');
      return false;
    }
    return true;
  }
}

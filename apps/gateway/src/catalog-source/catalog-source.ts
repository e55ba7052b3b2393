import type { LocalBundle, TenantCatalog } from '@switchboard/catalog';

export type { TenantCatalog };

/**
 * Where catalogs come from. The file source serves `config/tenants.yaml`; the registry
 * source (Redis snapshots + `catalog:changed`) replaces it when a registry is configured.
 */
export interface CatalogSource {
  /** In-process implementations the source's `local` routes point at (fixed for the process lifetime). */
  readonly bundles: readonly LocalBundle[];
  /** Every tenant's current catalog. */
  load(): Promise<TenantCatalog[]>;
  /** Registers a listener for a tenant whose catalog changed; returns an unsubscribe function. */
  subscribe(listener: (tenant: TenantCatalog) => void): () => void;
  close(): Promise<void>;
}

export const CATALOG_SOURCE = Symbol('CATALOG_SOURCE');

import type { LocalBundle, TenantCatalog } from '@switchboard/catalog';

export type { TenantCatalog };

/**
 * Where catalogs come from. The file source serves `config/tenants.yaml`; the registry
 * source (Redis snapshots + `catalog:changed`) replaces it when a registry is configured.
 */
export interface CatalogSource {
  /** In-process implementations the source's `local` routes point at (fixed for the process lifetime). */
  readonly bundles: readonly LocalBundle[];
  /** The tenants loaded at boot (a source that fetches on use loads none). */
  load(): Promise<TenantCatalog[]>;
  /** Registers a listener for a tenant whose catalog changed; returns an unsubscribe function. */
  subscribe(listener: (tenant: TenantCatalog) => void): () => void;
  /** Present when the source fetches tenants on first use instead of loading them all at boot. */
  readonly onDemand?: OnDemandTenants;
  close(): Promise<void>;
}

/**
 * A source's tenants fetched one by one on first use (the registry's, in lazy mode): the
 * gateway keeps the ones in use (its working set) and tells the source which ones it dropped,
 * so the source's change checks cover only resident tenants.
 */
export interface OnDemandTenants {
  /** The tenant's current catalog; `unknown` when it is not published, `unavailable` when no store answered. */
  fetch(tenantId: string): Promise<TenantCatalog | 'unknown' | 'unavailable'>;
  /** The byte length of the document a resident tenant was read from (the working set's size estimate). */
  sizeOf(tenantId: string): number | undefined;
  /** Hears every `catalog:changed` id, resident or not (a negative cache entry or an in-flight fetch may be stale). */
  onInvalidate(listener: (tenantId: string) => void): () => void;
  /** The gateway dropped this tenant from its working set: stop watching it. */
  forget(tenantId: string): void;
}

export const CATALOG_SOURCE = Symbol('CATALOG_SOURCE');

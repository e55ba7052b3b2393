import type { CompiledCatalog, TenantLimits, ToolDiscovery } from '@switchboard/catalog';
import type { SurfaceProfile, TenantSurfaceRules } from '@switchboard/protocol';

/** Everything the transport needs to serve one tenant's endpoint. Swapped atomically when a catalog changes. */
export interface McpTarget {
  tenantId: string;
  catalog: CompiledCatalog;
  surfaceRules?: TenantSurfaceRules;
  surfaces: Record<string, SurfaceProfile>;
  /** Browser origins allowed to call (exact `scheme://host[:port]`); a request with another Origin gets 403. */
  allowedOrigins: readonly string[];
  /** Host header allow-list (DNS-rebinding protection); empty = any host. */
  allowedHosts: readonly string[];
  /** This tenant's overrides of the transport's bounds (absent ⇒ the McpHttpOptions defaults). */
  limits?: TenantLimits;
  /** Extensions the tenant's settings declare in `server/discover` capabilities (e.g. enterprise-managed authorization), by identifier. */
  extensions?: Readonly<Record<string, object>>;
  /** Progressive discovery (absent ⇒ every surface serves its full tools/list): built with `catalog`, from it alone. */
  discovery?: ToolDiscovery;
}

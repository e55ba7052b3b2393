import {
  CatalogCaches,
  CompiledCatalog,
  ENTERPRISE_MANAGED_AUTHORIZATION,
  ToolDiscovery,
  canonicalJson,
  canonicalMcpUrl,
  type PageCache,
} from '@switchboard/catalog';
import { surfaceProfiles, type SurfaceProfile, type TenantSurfaceRules } from '@switchboard/protocol';
import { hostnameOf, type McpTarget } from '@switchboard/mcp-http';
import type { TenantCatalog } from '../catalog-source/catalog-source';

/** Origins of the MCP clients we serve; a tenant adds its own (e.g. its web app). */
const KNOWN_CLIENT_ORIGINS = ['https://claude.ai', 'https://claude.com', 'https://chatgpt.com', 'https://chat.openai.com'];
/** Local tools (MCP Inspector, dev portals) run on loopback; DNS rebinding needs a foreign Origin, which stays refused. */
const LOOPBACK_ORIGINS = ['http://localhost:*', 'http://127.0.0.1:*', 'http://[::1]:*'];
const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];
/** What a tenant without its own origins allows: one frozen list for all of them. */
const DEFAULT_ORIGINS: readonly string[] = Object.freeze([...KNOWN_CLIENT_ORIGINS, ...LOOPBACK_ORIGINS]);
/** Distinct surface rule sets whose resolved profiles are kept for sharing (most tenants use none, or a few common ones). */
const MAX_SHARED_SURFACE_SETS = 256;

/**
 * A fetched-on-use tenant's estimated resident size: its document's bytes times this. The
 * compiled catalog keeps the parsed document with its tool schemas deflated (compactToolEntries),
 * its lookup maps and slots; validators and list pages are shared and bounded elsewhere (page
 * cache). bench/scale/tenant-bytes.mjs measures what a tenant holds against this estimate and
 * fails when it holds more (the budget would then hold more than it says).
 */
export const TENANT_BYTES_PER_DOCUMENT_BYTE = 1;
/** Fixed part of a fetched tenant's estimate (entry, target, maps of an empty catalog). */
const TENANT_BASE_BYTES = 4096;

export interface TenantDirectoryOptions {
  publicUrl: string;
  domain?: string;
  /** What every tenant's catalog shares (list pages, validators, tool maps); the app creates it once. */
  caches?: CatalogCaches;
  /** Estimated bytes fetched-on-use tenants may hold together (least recently used evicted past it); default unbounded. */
  budgetBytes?: number;
  /** A fetched-on-use tenant left the working set (eviction): what else holds it forgets it. */
  onEvict?: (tenantId: string) => void;
}

/** A tenant's compiled target; `bytes` > 0 marks one fetched on use (evictable), 0 one loaded at boot (kept). */
interface Entry {
  readonly target: McpTarget;
  readonly tenant: TenantCatalog;
  readonly bytes: number;
  /** Set by every hit (no allocation), cleared by the eviction hand: a second chance (CLOCK). */
  referenced: boolean;
}

/** The working set's counters, read by the metrics callbacks (plain fields: a hit allocates nothing). */
export interface DirectoryStats {
  hits: number;
  misses: number;
  evictions: number;
  /** Estimated bytes of the fetched-on-use tenants held. */
  bytes: number;
  /** Fetched-on-use tenants held. */
  resident: number;
}

/**
 * The tenants this gateway serves, each compiled for serving. `apply` compiles a new
 * catalog off the request path and swaps it in with one map assignment, so a request sees
 * either the old or the new catalog, never a mix.
 */
export class TenantDirectory {
  /**
   * One map for both lookups of a request (its target, then its tenant for auth and limits): with
   * ten thousand tenants every lookup is a cache miss on the table, and the second one then hits
   * the entry the first brought in.
   */
  private readonly entries = new Map<string, Entry>();
  readonly stats: DirectoryStats = { hits: 0, misses: 0, evictions: 0, bytes: 0, resident: 0 };
  /** Fetches a tenant this directory does not hold (the working set's cold path); none ⇒ unknown. */
  private cold: ((tenantId: string) => Promise<McpTarget | undefined> | undefined) | undefined;
  private readonly publicHost: string;
  private readonly caches: CatalogCaches;
  /** One cache of list pages for every tenant: compiled on first use, bounded in bytes, content-addressed (CLOCK eviction). */
  readonly pages: PageCache;
  /** Resolved surface profiles by their rules' canonical JSON: tenants with equal rules share them (and their compiled catalogs the merged surface record). */
  private readonly surfaceSets = new Map<string, Record<string, SurfaceProfile>>();
  /** Hosts a tenant without its own hosts allows (no domain configured): one frozen list for all of them. */
  private readonly defaultHosts: readonly string[];

  constructor(private readonly options: TenantDirectoryOptions) {
    this.publicHost = hostnameOf(new URL(options.publicUrl).host);
    this.caches = options.caches ?? new CatalogCaches();
    this.pages = this.caches.pages;
    this.defaultHosts = Object.freeze([...new Set([...LOOPBACK_HOSTS, this.publicHost])]);
  }

  /**
   * Compiles a tenant's catalog (validators and lookup maps; list pages on first use) and swaps
   * it in; the replaced catalog's cached pages are dropped — no other tenant's are touched.
   */
  apply(tenant: TenantCatalog, documentBytes?: number): McpTarget {
    const surfaces = this.surfacesOf(tenant.surfaceRules);
    const catalog = CompiledCatalog.build(tenant.snapshot, { surfaces, caches: this.caches });
    const discovery = ToolDiscovery.build(catalog, tenant.discovery, surfaces);
    const target: McpTarget = {
      tenantId: tenant.id,
      catalog,
      surfaceRules: tenant.surfaceRules,
      surfaces,
      allowedOrigins: tenant.origins.length === 0 ? DEFAULT_ORIGINS : [...DEFAULT_ORIGINS, ...tenant.origins],
      allowedHosts: this.hostsOf(tenant),
      ...(tenant.limits ? { limits: tenant.limits } : {}),
      ...(discovery ? { discovery } : {}),
      // The MCP ext-auth identifier: clients learn the tenant's AS accepts ID-JAGs before any 401.
      ...(tenant.auth?.protected && tenant.auth.enterpriseIdps.length > 0
        ? { extensions: { [ENTERPRISE_MANAGED_AUTHORIZATION]: {} } }
        : {}),
    };
    const bytes = documentBytes === undefined ? 0 : TENANT_BASE_BYTES + documentBytes * TENANT_BYTES_PER_DOCUMENT_BYTE;
    const previous = this.entries.get(tenant.id);
    if (previous) this.account(previous, -1);
    const entry: Entry = { target, tenant, bytes, referenced: previous?.referenced ?? false };
    this.entries.set(tenant.id, entry);
    this.account(entry, 1);
    previous?.target.catalog.release();
    if (bytes > 0) this.evictOver(tenant.id);
    return target;
  }

  /** Installs the cold path: a lookup that misses asks it (it dedupes, negatively caches and applies). */
  fetchOnMiss(cold: (tenantId: string) => Promise<McpTarget | undefined> | undefined): void {
    this.cold = cold;
  }

  private account(entry: Entry, sign: 1 | -1): void {
    if (entry.bytes === 0) return;
    this.stats.bytes += sign * entry.bytes;
    this.stats.resident += sign;
  }

  /**
   * Evicts fetched-on-use tenants until their estimate fits the budget: CLOCK over the map's
   * insertion order (a referenced entry is cleared and moved to the back, an unreferenced one
   * leaves). `keep` (the tenant just applied) stays even when it alone exceeds the budget.
   */
  private evictOver(keep: string): void {
    const budget = this.options.budgetBytes;
    if (budget === undefined) return;
    let steps = 2 * this.entries.size;
    for (const [id, entry] of this.entries) {
      if (this.stats.bytes <= budget || steps-- <= 0) return;
      if (entry.bytes === 0 || id === keep) continue;
      this.entries.delete(id);
      if (entry.referenced) {
        entry.referenced = false;
        this.entries.set(id, entry);
        continue;
      }
      this.account(entry, -1);
      this.stats.evictions++;
      entry.target.catalog.release();
      this.options.onEvict?.(id);
    }
  }

  private hostsOf(tenant: TenantCatalog): readonly string[] {
    if (tenant.hosts.length === 0 && !this.options.domain) return this.defaultHosts;
    const hosts = new Set([...this.defaultHosts, ...tenant.hosts.map((h) => h.toLowerCase())]);
    if (this.options.domain) hosts.add(`${tenant.id}.${this.options.domain}`.toLowerCase());
    return [...hosts];
  }

  /** surfaceProfiles of the rules, shared with earlier tenants whose rules are equal (throws as surfaceProfiles does). */
  private surfacesOf(rules: TenantSurfaceRules | undefined): Record<string, SurfaceProfile> {
    const key = canonicalJson(rules ?? {});
    let profiles = this.surfaceSets.get(key);
    if (!profiles) {
      profiles = Object.freeze(surfaceProfiles(rules));
      if (this.surfaceSets.size >= MAX_SHARED_SURFACE_SETS) this.surfaceSets.delete(this.surfaceSets.keys().next().value as string);
      this.surfaceSets.set(key, profiles);
    }
    return profiles;
  }

  /**
   * Path-based (`/t/:tenant/mcp`) or host-based (`{tenant}.{domain}`) lookup. A tenant held
   * answers synchronously (one map read and a flag write); only a miss may return a promise,
   * the working set's fetch of that tenant.
   */
  resolve(tenant: string | undefined, host: string | undefined): McpTarget | undefined | Promise<McpTarget | undefined> {
    const id = tenant ?? this.tenantOfHost(host);
    if (id === undefined) return undefined;
    const entry = this.entries.get(id);
    if (entry !== undefined) {
      entry.referenced = true;
      this.stats.hits++;
      return entry.target;
    }
    this.stats.misses++;
    return this.cold?.(id);
  }

  /** `resolve` by id, awaited: for routes beside the MCP endpoint (server card, llms.txt, PRM). */
  async ensure(tenantId: string): Promise<McpTarget | undefined> {
    return this.resolve(tenantId, undefined);
  }

  private tenantOfHost(host: string | undefined): string | undefined {
    if (!host || !this.options.domain) return undefined;
    const name = hostnameOf(host);
    const suffix = `.${this.options.domain.toLowerCase()}`;
    if (!name.endsWith(suffix)) return undefined;
    return name.slice(0, -suffix.length);
  }

  tenant(id: string): TenantCatalog | undefined {
    return this.entries.get(id)?.tenant;
  }

  target(id: string): McpTarget | undefined {
    return this.entries.get(id)?.target;
  }

  /** The canonical MCP URL of a tenant (host-based when a domain is configured). */
  mcpUrl(id: string): string {
    return canonicalMcpUrl(id, { gatewayPublicUrl: this.options.publicUrl, domain: this.options.domain });
  }

  get size(): number {
    return this.entries.size;
  }
}

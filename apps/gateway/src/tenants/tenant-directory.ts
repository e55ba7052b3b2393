import { CompiledCatalog, canonicalMcpUrl } from '@switchboard/catalog';
import { surfaceProfiles } from '@switchboard/protocol';
import { hostnameOf, type McpTarget } from '@switchboard/mcp-http';
import type { TenantCatalog } from '../catalog-source/catalog-source';


/** Origins of the MCP clients we serve; a tenant adds its own (e.g. its web app). */
const KNOWN_CLIENT_ORIGINS = ['https://claude.ai', 'https://claude.com', 'https://chatgpt.com', 'https://chat.openai.com'];
/** Local tools (MCP Inspector, dev portals) run on loopback; DNS rebinding needs a foreign Origin, which stays refused. */
const LOOPBACK_ORIGINS = ['http://localhost:*', 'http://127.0.0.1:*', 'http://[::1]:*'];
const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

export interface TenantDirectoryOptions {
  publicUrl: string;
  domain?: string;
}

/**
 * The tenants this gateway serves, each compiled for serving. `apply` compiles a new
 * catalog off the request path and swaps it in with one map assignment, so a request sees
 * either the old or the new catalog, never a mix.
 */
export class TenantDirectory {
  private readonly targets = new Map<string, McpTarget>();
  private readonly tenants = new Map<string, TenantCatalog>();
  private readonly publicHost: string;

  constructor(private readonly options: TenantDirectoryOptions) {
    this.publicHost = hostnameOf(new URL(options.publicUrl).host);
  }

  apply(tenant: TenantCatalog): McpTarget {
    const surfaces = surfaceProfiles(tenant.surfaceRules);
    const catalog = CompiledCatalog.build(tenant.snapshot, { surfaces });
    const hosts = new Set([...LOOPBACK_HOSTS, this.publicHost, ...tenant.hosts.map((h) => h.toLowerCase())]);
    if (this.options.domain) hosts.add(`${tenant.id}.${this.options.domain}`.toLowerCase());
    const target: McpTarget = {
      tenantId: tenant.id,
      catalog,
      surfaceRules: tenant.surfaceRules,
      surfaces,
      allowedOrigins: [...KNOWN_CLIENT_ORIGINS, ...LOOPBACK_ORIGINS, ...tenant.origins],
      allowedHosts: [...hosts],
      ...(tenant.limits ? { limits: tenant.limits } : {}),
    };
    this.targets.set(tenant.id, target);
    this.tenants.set(tenant.id, tenant);
    return target;
  }

  /** Path-based (`/t/:tenant/mcp`) or host-based (`{tenant}.{domain}`) lookup. */
  resolve(params: Record<string, string | undefined>, host: string | undefined): McpTarget | undefined {
    if (params.tenant !== undefined) return this.targets.get(params.tenant);
    if (!host || !this.options.domain) return undefined;
    const name = hostnameOf(host);
    const suffix = `.${this.options.domain.toLowerCase()}`;
    if (!name.endsWith(suffix)) return undefined;
    return this.targets.get(name.slice(0, -suffix.length));
  }

  tenant(id: string): TenantCatalog | undefined {
    return this.tenants.get(id);
  }

  target(id: string): McpTarget | undefined {
    return this.targets.get(id);
  }

  /** The canonical MCP URL of a tenant (host-based when a domain is configured). */
  mcpUrl(id: string): string {
    return canonicalMcpUrl(id, { gatewayPublicUrl: this.options.publicUrl, domain: this.options.domain });
  }

  get size(): number {
    return this.targets.size;
  }
}

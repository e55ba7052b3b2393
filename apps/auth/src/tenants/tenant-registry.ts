import type { AuthTenant } from './tenant-auth';

/**
 * The tenants that have an authorization server, looked up by id or by Host (host-based
 * layout `{tenant}.{domain}`).
 */
export class TenantRegistry {
  constructor(
    private readonly tenants: Map<string, AuthTenant>,
    private readonly domain: string | undefined,
  ) {}

  byId(id: string): AuthTenant | undefined {
    return this.tenants.get(id);
  }

  /** Host-based lookup; undefined unless a domain is configured and the host is `{tenant}.{domain}`. */
  byHost(host: string | undefined): AuthTenant | undefined {
    if (!host || !this.domain) return undefined;
    const name = host.toLowerCase().replace(/:\d+$/, '');
    const suffix = `.${this.domain.toLowerCase()}`;
    if (!name.endsWith(suffix)) return undefined;
    return this.tenants.get(name.slice(0, -suffix.length));
  }

  all(): AuthTenant[] {
    return [...this.tenants.values()];
  }
}

import { authTenant, type AuthTenant, type AuthTenantDocument, type TenantUrlOptions } from './tenant-auth';

/**
 * The tenants that have an authorization server, looked up by id or by Host (host-based
 * layout `{tenant}.{domain}`). Fed with tenant documents (the registry's feed, the seed file):
 * a document with `auth` (re)places the tenant, one without removes it; `onChange` listeners
 * hear every tenant whose version changed, so its provider is rebuilt on the next request.
 */
export class TenantRegistry {
  private readonly tenants = new Map<string, AuthTenant>();
  private readonly listeners = new Set<(tenantId: string) => void>();
  /** The seed's tenants: served from boot, never forgotten (the feed's lazy working set does not own them). */
  private readonly pinned = new Set<string>();

  constructor(
    private readonly urls: TenantUrlOptions,
    initial: Iterable<AuthTenantDocument> = [],
  ) {
    for (const doc of initial) {
      this.apply(doc);
      this.pinned.add(doc.id);
    }
  }

  /** Whether `id` is a seed tenant (not read from the registry on use). */
  isPinned(id: string): boolean {
    return this.pinned.has(id);
  }

  /**
   * Stops holding a tenant the lazy feed dropped (budget, or no store has it any more); a seed
   * tenant stays. No listener hears it: the next read of the tenant applies it as new, which
   * rebuilds its provider and reconciles its identity sources.
   */
  forget(id: string): void {
    if (!this.pinned.has(id)) this.tenants.delete(id);
  }

  /** Applies one tenant document; returns whether anything changed. */
  apply(doc: AuthTenantDocument): boolean {
    const current = this.tenants.get(doc.id);
    if (!doc.auth) {
      if (!current) return false;
      this.tenants.delete(doc.id);
    } else {
      const next = authTenant(doc.id, doc.name, doc.auth, this.urls, doc.version ?? `${Date.now()}`);
      if (current && current.version === next.version && doc.version !== undefined) return false;
      this.tenants.set(doc.id, next);
    }
    for (const listener of this.listeners) listener(doc.id);
    return true;
  }

  onChange(listener: (tenantId: string) => void): void {
    this.listeners.add(listener);
  }

  byId(id: string): AuthTenant | undefined {
    return this.tenants.get(id);
  }

  /** Host-based lookup; undefined unless a domain is configured and the host is `{tenant}.{domain}`. */
  byHost(host: string | undefined): AuthTenant | undefined {
    const id = this.idOfHost(host);
    return id === undefined ? undefined : this.tenants.get(id);
  }

  /** The tenant id a host names in the host-based layout (`{tenant}.{domain}`), if any. */
  idOfHost(host: string | undefined): string | undefined {
    if (!host || !this.urls.domain) return undefined;
    const name = host.toLowerCase().replace(/:\d+$/, '');
    const suffix = `.${this.urls.domain.toLowerCase()}`;
    if (!name.endsWith(suffix)) return undefined;
    return name.slice(0, -suffix.length);
  }

  all(): AuthTenant[] {
    return [...this.tenants.values()];
  }
}

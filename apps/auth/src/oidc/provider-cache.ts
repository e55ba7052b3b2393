import type Provider from 'oidc-provider';
import type { SigningKeys } from '../keys/signing-keys';
import type { AuthTenant } from '../tenants/tenant-auth';
import { createTenantProvider, type TenantProviderOptions } from './tenant-provider';

interface Entry {
  provider: Provider;
  /** The tenant document version the provider was built from. */
  version: string | undefined;
  callback: ReturnType<Provider['callback']>;
  builtAt: number;
}

/**
 * One oidc-provider per tenant, built on first use and kept in an LRU. An entry older than
 * `maxAgeMs` is rebuilt so keys rotated by another replica are picked up; a rotation on this
 * replica evicts the entry at once, and so does a new tenant document version (settings
 * changed in the registry): the next request builds from the new settings. Concurrent first
 * requests share one build.
 */
export class ProviderCache {
  private readonly entries = new Map<string, Entry>();
  private readonly building = new Map<string, Promise<Entry>>();

  constructor(
    private readonly keys: SigningKeys,
    private readonly options: TenantProviderOptions,
    private readonly maxEntries: number,
    private readonly maxAgeMs: number,
  ) {}

  async get(tenant: AuthTenant): Promise<Entry> {
    const hit = this.entries.get(tenant.id);
    if (hit && hit.version === tenant.version && Date.now() - hit.builtAt < this.maxAgeMs) {
      this.entries.delete(tenant.id);
      this.entries.set(tenant.id, hit);
      return hit;
    }
    const key = `${tenant.id}\u0000${tenant.version ?? ''}`;
    let pending = this.building.get(key);
    if (!pending) {
      pending = this.build(tenant).finally(() => this.building.delete(key));
      this.building.set(key, pending);
    }
    return pending;
  }

  evict(tenantId: string): void {
    this.entries.delete(tenantId);
  }

  private async build(tenant: AuthTenant): Promise<Entry> {
    const keys = await this.keys.published(tenant.id);
    const provider = createTenantProvider(tenant, keys, this.options);
    const entry = { provider, version: tenant.version, callback: provider.callback(), builtAt: Date.now() };
    this.entries.set(tenant.id, entry);
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
    return entry;
  }
}

import { tenantSettingsSchema, type TenantSettings } from '@switchboard/catalog';
import type { Queryable } from '../db/database';
import type { TenantRow } from './tenant-row';
import { loadTenantAuth } from './tenant-auth-store';
import { tenantLimits } from './tenant-limits';

/**
 * The settings half of a tenant's document, from its rows: profile, origins, hosts, surface
 * rules, `auth` (sealed secrets) and the `limits` slot (filled by the limits work; absent
 * here). Validated with the contract's own schema, so the registry never publishes a document
 * a consumer would refuse.
 */
export async function tenantDocumentSettings(q: Queryable, tenant: TenantRow): Promise<TenantSettings> {
  const auth = await loadTenantAuth(q, tenant.id);
  return tenantSettingsSchema.parse({
    id: tenant.id,
    name: tenant.name,
    ...(tenant.description ? { description: tenant.description } : {}),
    origins: tenant.origins,
    hosts: tenant.hosts,
    surfaceRules: tenant.surface_rules,
    ...(auth ? { auth } : {}),
    ...tenantLimits(tenant),
    ...(tenant.guardrails ? { guardrails: tenant.guardrails } : {}),
    ...(tenant.discovery ? { discovery: tenant.discovery } : {}),
  });
}

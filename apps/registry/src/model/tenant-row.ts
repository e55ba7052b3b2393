import { canonicalJson, type DiscoverySettings, type TenantCallLogPolicy, type TenantRatePlan } from '@switchboard/catalog';
import type { TenantSurfaceRules } from '@switchboard/protocol';
import { createHash } from 'node:crypto';
import type { Queryable } from '../db/database';
import { ApiError } from '../http/api-error';

export interface TenantRow {
  id: string;
  name: string;
  description: string | null;
  instructions: string | null;
  origins: string[];
  hosts: string[];
  surface_rules: TenantSurfaceRules;
  current_version: string | null;
  /** `limits.rate` of the tenant document (issue 13); null = operator defaults. */
  rate_plan: TenantRatePlan | null;
  /** `limits.callLog` of the tenant document; {} = metadata only. */
  call_log: TenantCallLogPolicy;
  /** The interceptor chain (issue 46, PUT /v1/guardrails), webhook secrets sealed; null = none. */
  guardrails?: { interceptors: Array<Record<string, unknown>> } | null;
  /** The tenant document's `discovery` (issue 45); null = every surface serves its full list. */
  discovery: DiscoverySettings | null;
}

/** sha256 of a definition's canonical JSON (the discovered-item content hash). */
export function contentHash(definition: unknown): string {
  return createHash('sha256').update(canonicalJson(definition)).digest('hex');
}

/** Loads a tenant row (filtered on its id); throws 404 when missing. */
export async function loadTenant(q: Queryable, tenantId: string): Promise<TenantRow> {
  const rows = await q.query<TenantRow>('SELECT * FROM registry.tenants WHERE id = $1', [tenantId]);
  if (!rows[0]) throw ApiError.notFound('tenant', tenantId);
  return rows[0];
}

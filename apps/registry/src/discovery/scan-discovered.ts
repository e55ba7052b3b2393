import type { Queryable } from '../db/database';
import type { DiscoveredItem } from './discover-server';
import { confusableSkeleton } from '../guardrails/confusable-skeleton';
import { scanDefinition, type OtherTool, type PoisonFinding } from '../guardrails/scan-definition';

/** Other servers' names read for the homoglyph check; a tenant's catalog is bounded well below it. */
const MAX_OTHER_NAMES = 20_000;

/**
 * Scans one discovery run's items (see scanDefinition) with the tenant's other servers' tool and
 * prompt names — discovered and exposed — as the names a look-alike could shadow. Returns the
 * findings per item, keyed `kind\0key` as storeDiscovery keys items.
 */
export async function scanDiscovered(
  q: Queryable,
  tenantId: string,
  serverId: string,
  items: readonly DiscoveredItem[],
): Promise<Map<string, PoisonFinding[]>> {
  const rows = await q.query<{ server_id: string; name: string }>(
    `SELECT server_id, key AS name FROM registry.discovered_items WHERE tenant_id = $1 AND server_id <> $2 AND kind IN ('tool', 'prompt') AND removed_at IS NULL
     UNION SELECT server_id, exposed_name AS name FROM registry.publications WHERE tenant_id = $1 AND server_id <> $2 AND kind IN ('tool', 'prompt')
     LIMIT $3`,
    [tenantId, serverId, MAX_OTHER_NAMES],
  );
  const others = new Map<string, OtherTool>();
  for (const r of rows) others.set(confusableSkeleton(r.name), { serverId: r.server_id, name: r.name });
  const out = new Map<string, PoisonFinding[]>();
  for (const item of items)
    out.set(`${item.kind}\u0000${item.key}`, scanDefinition({ kind: item.kind, name: item.key, definition: item.definition, others }));
  return out;
}

import type { Queryable } from '../db/database';
import { contentHash } from '../model/tenant-row';
import { audit } from '../model/audit';
import type { DiscoveredItem } from './discover-server';
import { emitWebhookEvent } from '../model/webhook-events';
import { scanDiscovered } from './scan-discovered';

export interface DiscoveryDiff {
  added: number;
  changed: number;
  removed: number;
  /** Published items whose discovered definition no longer matches the approved one (held for review). */
  pendingReview: number;
}

/** How the server was reached: the transport, the protocol era and the revision it spoke. */
export interface ProtocolSpoken {
  transport: string;
  era: 'modern' | 'legacy';
  protocolVersion: string | undefined;
}

/**
 * Stores one discovery run: upserts every item with its content hash, marks vanished ones
 * removed, sets the server healthy, records the protocol era and revision it spoke, and audits what changed. Published tools are not
 * touched: a changed description or schema waits for review.
 */
export async function storeDiscovery(
  q: Queryable,
  tenantId: string,
  serverId: string,
  items: DiscoveredItem[],
  spoke: ProtocolSpoken,
): Promise<DiscoveryDiff> {
  const before = await q.query<{ kind: string; key: string; content_hash: string; removed_at: Date | null }>(
    'SELECT kind, key, content_hash, removed_at FROM registry.discovered_items WHERE tenant_id = $1 AND server_id = $2',
    [tenantId, serverId],
  );
  const old = new Map(before.map((r) => [`${r.kind}\u0000${r.key}`, r]));
  const diff: DiscoveryDiff = { added: 0, changed: 0, removed: 0, pendingReview: 0 };
  const seen = new Set<string>();
  // Poisoned-tool findings are stored beside each definition; change review and publishing read them.
  const findings = await scanDiscovered(q, tenantId, serverId, items);
  for (const item of items) {
    const id = `${item.kind}\u0000${item.key}`;
    if (seen.has(id)) continue;
    seen.add(id);
    const hash = contentHash(item.definition);
    const prev = old.get(id);
    if (!prev || prev.removed_at) diff.added++;
    else if (prev.content_hash !== hash) diff.changed++;
    await q.query(
      `INSERT INTO registry.discovered_items (tenant_id, server_id, kind, key, definition, content_hash, findings)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (tenant_id, server_id, kind, key) DO UPDATE
         SET definition = EXCLUDED.definition, content_hash = EXCLUDED.content_hash, findings = EXCLUDED.findings, last_seen_at = now(), removed_at = NULL`,
      [tenantId, serverId, item.kind, item.key, JSON.stringify(item.definition), hash, JSON.stringify(findings.get(id) ?? [])],
    );
  }
  for (const [id, prev] of old) {
    if (seen.has(id) || prev.removed_at) continue;
    diff.removed++;
    await q.query(
      'UPDATE registry.discovered_items SET removed_at = now() WHERE tenant_id = $1 AND server_id = $2 AND kind = $3 AND key = $4',
      [tenantId, serverId, prev.kind, prev.key],
    );
  }
  const pending = await q.query<{ n: string }>(
    `SELECT count(*) AS n FROM registry.publications p
       LEFT JOIN registry.discovered_items d USING (tenant_id, server_id, kind, key)
      WHERE p.tenant_id = $1 AND p.server_id = $2 AND (d.key IS NULL OR d.removed_at IS NOT NULL OR d.content_hash <> p.approved_hash)`,
    [tenantId, serverId],
  );
  diff.pendingReview = Number(pending[0]?.n ?? 0);
  await q.query(
    `UPDATE registry.servers SET health = 'ok', last_error = NULL, last_discovered_at = now(), protocol_era = $3, protocol_version = $4, transport_spoken = $5
      WHERE tenant_id = $1 AND id = $2`,
    [tenantId, serverId, spoke.era, spoke.protocolVersion ?? null, spoke.transport],
  );
  await audit(q, tenantId, 'system', 'server.discovered', serverId, {
    ...diff,
    items: items.length,
    findings: [...findings.values()].reduce((n, f) => n + f.length, 0),
    transport: spoke.transport,
    era: spoke.era,
    protocolVersion: spoke.protocolVersion ?? null,
  });
  // A change to something published waits for review: tell the tenant when this run changed what waits.
  if (diff.pendingReview > 0 && diff.changed + diff.removed > 0)
    await emitWebhookEvent(q, tenantId, 'upstream.change_pending_review', { serverId, ...diff });
  return diff;
}

import { gzipSync } from 'node:zlib';

/** One audit entry as read for export (the cursor's order is `(txid, id)`). */
export interface AuditEntry {
  id: string;
  txid: string;
  actor: string;
  action: string;
  target: string | null;
  details: unknown;
  at: Date;
}

/** One object to write: its key and gzipped JSON Lines body. */
export interface AuditObject {
  key: string;
  body: Buffer;
  entries: number;
}

/**
 * Most distinct days one batch may span: a batch is cut before the entry that would open another
 * day, so one batch is never more than this many uploads (a backlog of years is exported in
 * order, a few days per batch).
 */
export const MAX_DAYS_PER_BATCH = 4;

/** The UTC day (`YYYY-MM-DD`) an entry is filed under. */
export function auditDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** Cuts a batch (in cursor order) before the entry that would make it span more than MAX_DAYS_PER_BATCH days; what remains is still a prefix. */
export function limitDays(entries: AuditEntry[]): AuditEntry[] {
  const days = new Set<string>();
  for (let i = 0; i < entries.length; i++) {
    days.add(auditDay(entries[i]!.at));
    if (days.size > MAX_DAYS_PER_BATCH) return entries.slice(0, i);
  }
  return entries;
}

/**
 * The objects for one batch: one per UTC day, at `<prefix>tenant=<id>/date=<day>/<seq>.jsonl.gz`,
 * where `<seq>` is the zero-padded audit id of the object's first entry. A batch retried after a
 * crash starts at the same cursor, so it writes the same keys again (the same entries, or more),
 * overwriting instead of duplicating.
 */
export function auditObjects(tenantId: string, prefix: string, entries: AuditEntry[]): AuditObject[] {
  const byDay = new Map<string, AuditEntry[]>();
  for (const e of entries) {
    const day = auditDay(e.at);
    const list = byDay.get(day) ?? [];
    list.push(e);
    byDay.set(day, list);
  }
  return [...byDay].map(([day, list]) => ({
    key: `${prefix}tenant=${tenantId}/date=${day}/${list[0]!.id.padStart(20, '0')}.jsonl.gz`,
    body: gzipSync(list.map((e) => JSON.stringify(line(tenantId, e))).join('\n') + '\n'),
    entries: list.length,
  }));
}

function line(tenantId: string, e: AuditEntry) {
  return {
    id: Number(e.id),
    tenant: tenantId,
    at: e.at.toISOString(),
    actor: e.actor,
    action: e.action,
    target: e.target,
    details: e.details,
  };
}

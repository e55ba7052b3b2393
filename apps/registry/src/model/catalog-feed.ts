import type { Queryable } from '../db/database';

/**
 * A position in the catalog version feed: the (transaction id, tenant id) of the last change
 * read. Written `<txid>:<tenant>`; `0` is the start. Opaque to callers.
 */
export interface FeedCursor {
  txid: string;
  tenant: string;
}

export interface FeedPage {
  /** Tenant → current version; null when the tenant is not (or no longer) published. */
  versions: Record<string, string | null>;
  /** Where the next page starts (the same cursor when nothing new was readable). */
  cursor: string;
  /** True when the page was full: read again at once. */
  more: boolean;
}

/** The feed query ($1 txid, $2 tenant id of the cursor, $3 limit); exported for the EXPLAIN test at 100k tenants. */
export const readFeedSql = `SELECT txid::text AS txid, id, version FROM (
       (SELECT version_txid AS txid, id, current_version AS version FROM registry.tenants
         WHERE (version_txid, id) > ($1::xid8, $2::text) ORDER BY version_txid, id LIMIT $3)
       UNION ALL
       (SELECT txid, tenant_id AS id, NULL AS version FROM registry.catalog_removals
         WHERE (txid, tenant_id) > ($1::xid8, $2::text) ORDER BY txid, tenant_id LIMIT $3)
     ) f
     WHERE txid < pg_snapshot_xmin(pg_current_snapshot())
     ORDER BY txid, id LIMIT $3`;

export const FEED_START: FeedCursor = { txid: '0', tenant: '' };
const CURSOR = /^(0|[1-9]\d{0,19}):([a-z0-9-]{0,63})$/;

export function formatCursor(c: FeedCursor): string {
  return `${c.txid}:${c.tenant}`;
}

/** The cursor a caller sent, or undefined when it is not one ("0" is the start). */
export function parseCursor(raw: string): FeedCursor | undefined {
  if (raw === '0') return FEED_START;
  const m = CURSOR.exec(raw);
  return m ? { txid: m[1], tenant: m[2] } : undefined;
}

/**
 * The changes after `since`, oldest first, at most `limit`: every tenant whose current version
 * changed (or that was created) and every deleted tenant, each once at its latest change. Only
 * changes of transactions older than every running one are read (txid < snapshot xmin), so a
 * publish that commits after a later one still sorts after the cursor: paging never misses it.
 * Several tenants changed in one transaction share a txid and are ordered by id.
 */
export async function readFeed(q: Queryable, since: FeedCursor, limit: number): Promise<FeedPage> {
  const rows = await q.query<{ txid: string; id: string; version: string | null }>(readFeedSql, [since.txid, since.tenant, limit]);
  const versions: Record<string, string | null> = {};
  for (const r of rows) versions[r.id] = r.version;
  const last = rows[rows.length - 1];
  return { versions, cursor: formatCursor(last ? { txid: last.txid, tenant: last.id } : since), more: rows.length === limit };
}

/**
 * Every published tenant's version and a cursor to follow the feed from: changes from
 * transactions older than the snapshot taken first are all in the list; later ones (and a few
 * already listed) come again through the feed, which is harmless — a version is a value.
 */
export async function readAllVersions(q: Queryable): Promise<{ versions: Map<string, string>; cursor: string }> {
  const [{ xmin }] = await q.query<{ xmin: string }>('SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin');
  const rows = await q.query<{ id: string; current_version: string }>(
    'SELECT id, current_version FROM registry.tenants WHERE current_version IS NOT NULL',
  );
  return { versions: new Map(rows.map((r) => [r.id, r.current_version])), cursor: formatCursor({ txid: xmin, tenant: '' }) };
}

import { buildTenantDocument, catalogRedisKeys, type CatalogSnapshot } from '@switchboard/catalog';
import { mgetAcrossSlots, type RedisClient } from '@switchboard/redis-connection';
import type { Database } from '../db/database';
import { tenantDocumentSettings } from '../model/tenant-document-settings';
import type { TenantRow } from '../model/tenant-row';
import type { Pusher } from './catalog-verifier';

/** What a full resync found: published tenants, those whose Redis copy was current, and the pushes. */
export interface ResyncResult {
  tenants: number;
  current: number;
  pushed: number;
  unavailable: number;
}

/** Tenants compared per round trip (their documents are read in one MGET, ~40 KB each for a 40-tool tenant). */
const PAGE = 250;
/** Pushes in flight at once: each reads Postgres and writes one MULTI, so a few overlap their round trips. */
const PUSH_CONCURRENCY = 8;

/**
 * Brings Redis in line with Postgres for every published tenant after a boot or a Redis
 * (re)connect, paying only for what differs: page by page (id order), the tenants' documents
 * are read in one MGET and compared with the document version Postgres gives (settings +
 * catalog version, as the publisher computes it); a tenant whose key is missing, unlisted or
 * at another version is re-pushed through the publisher, a few at a time. A Redis that kept
 * its data costs one read per page instead of a rebuild and write of every document.
 */
export async function resyncAll(db: Database, redis: RedisClient, pusher: Pusher, namespace: string): Promise<ResyncResult> {
  const keys = catalogRedisKeys(namespace);
  const out: ResyncResult = { tenants: 0, current: 0, pushed: 0, unavailable: 0 };
  let after = '';
  for (;;) {
    const rows = await db.query<TenantRow>(
      'SELECT * FROM registry.tenants WHERE current_version IS NOT NULL AND id > $1 ORDER BY id LIMIT $2',
      [after, PAGE],
    );
    if (rows.length === 0) break;
    const ids = rows.map((r) => r.id);
    const [values, listed, expected] = await Promise.all([
      mgetAcrossSlots(
        redis,
        ids.map((id) => keys.catalog(id)),
      ),
      redis.smismember(keys.tenants, ...ids),
      Promise.all(rows.map((r) => expectedVersion(db, r))),
    ]);
    const stale = ids.filter((_, j) => {
      const raw = values[j];
      return listed[j] !== 1 || raw === null || expected[j] === undefined || documentVersionOf(raw) !== expected[j];
    });
    out.tenants += rows.length;
    out.current += rows.length - stale.length;
    for (let i = 0; i < stale.length; i += PUSH_CONCURRENCY) {
      const results = await Promise.all(stale.slice(i, i + PUSH_CONCURRENCY).map((id) => pusher.push(id)));
      for (const r of results) out[r === 'ok' ? 'pushed' : 'unavailable']++;
    }
    if (rows.length < PAGE) break;
    after = ids[ids.length - 1];
  }
  return out;
}

/**
 * The version of the document the publisher would write for this tenant now (undefined when its
 * settings do not load: then it is pushed, and the publisher reports why). The document version
 * covers the settings and the catalog's version only (not the snapshot's content, nor the sealed
 * credentials), so a stand-in snapshot carrying the current version gives the same hash.
 */
async function expectedVersion(db: Database, tenant: TenantRow): Promise<string | undefined> {
  try {
    const settings = await tenantDocumentSettings(db, tenant);
    return buildTenantDocument(settings, { version: tenant.current_version } as CatalogSnapshot).version;
  } catch {
    return undefined;
  }
}

/** The top-level version the publisher writes last (before any sealed credentials): 64 hex digits. */
const TAIL_VERSION = /"version":"([0-9a-f]{64})"(?:,"credentials":\{[^{}]*\})?\}$/;

/**
 * The document version of a stored tenant document (undefined when it does not parse or has
 * none). The publisher writes `version` after the snapshot, so it is read from the tail without
 * parsing ~40 KB of JSON per tenant; anything else falls back to JSON.parse.
 */
export function documentVersionOf(raw: string): string | undefined {
  const tail = TAIL_VERSION.exec(raw.slice(raw.lastIndexOf('"version":"')));
  if (tail) return tail[1];
  try {
    const doc = JSON.parse(raw) as { version?: unknown };
    return typeof doc.version === 'string' ? doc.version : undefined;
  } catch {
    return undefined;
  }
}

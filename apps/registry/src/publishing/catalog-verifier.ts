import { catalogRedisKeys } from '@switchboard/catalog';
import { mgetAcrossSlots, type RedisClient } from '@switchboard/redis-connection';
import type { Logger } from 'pino';
import type { Database } from '../db/database';
import { FEED_START, parseCursor, readFeed, type FeedCursor } from '../model/catalog-feed';

/** What one verification tick repaired. */
export interface VerifyRepairs {
  missing: number;
  stale: number;
  orphan: number;
}

/** What the last tick looked at, and how the rolling window is progressing. */
export interface VerifyProgress {
  /** Tenants checked because they changed since the previous tick (at most `batch`). */
  changed: number;
  /** Tenants of the rolling window checked (at most `batch`). */
  window: number;
  /** Members of Redis' tenant set checked for orphans (about `batch`; SSCAN's COUNT is a hint). */
  listed: number;
  /** Completed passes of the window over every published tenant, and the last one's duration. */
  passes: number;
  lastPassMs?: number;
}

/** Something that rewrites (or removes) one tenant's Redis key from Postgres: the Publisher. */
export interface Pusher {
  push(tenantId: string): Promise<'ok' | 'unavailable'>;
}

const MGET_BATCH = 200;

/**
 * The periodic verification of Redis against Postgres with bounded work per tick, so it costs
 * the same at 100k tenants as at 100: each tick checks (1) the tenants whose version changed
 * since the previous tick, from the catalog version feed, first — a push lost between a commit
 * and Redis is repaired within one period; (2) the next `batch` published tenants in id order
 * (a rolling window that wraps around, so every tenant is checked at least once every
 * ceil(published / batch) periods); (3) the next slice of Redis' tenant set (SSCAN) for tenants
 * Postgres no longer publishes. A tenant is repaired by re-pushing it (which deletes it when
 * unpublished).
 */
export class CatalogVerifier {
  readonly progress: VerifyProgress = { changed: 0, window: 0, listed: 0, passes: 0 };
  private readonly keys: ReturnType<typeof catalogRedisKeys>;
  private feed: FeedCursor | undefined;
  private windowAfter = '';
  private passStarted = Date.now();
  private scanCursor = '0';

  constructor(
    private readonly db: Database,
    private readonly redis: RedisClient,
    private readonly pusher: Pusher,
    private readonly logger: Logger,
    private readonly options: { namespace: string; batch: number },
  ) {
    this.keys = catalogRedisKeys(options.namespace);
  }

  /** The feed position to follow from after a full re-push: taken before it starts, so nothing after is missed. */
  async feedPositionNow(): Promise<FeedCursor> {
    const [{ xmin }] = await this.db.query<{ xmin: string }>('SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin');
    return { txid: xmin, tenant: '' };
  }

  /** Follows the feed from `cursor` (set after every full re-push). */
  followFrom(cursor: FeedCursor): void {
    this.feed = cursor;
  }

  /** One tick: changed tenants, then the window, then a slice of the listed set. */
  async tick(): Promise<VerifyRepairs> {
    const repaired: VerifyRepairs = { missing: 0, stale: 0, orphan: 0 };
    this.feed ??= await this.feedPositionNow();
    const page = await readFeed(this.db, this.feed, this.options.batch);
    const changed = Object.entries(page.versions);
    await this.check(changed, repaired);
    this.feed = parseCursor(page.cursor) ?? FEED_START;
    const seen = new Set(changed.map(([id]) => id));
    const rows = await this.db.query<{ id: string; current_version: string }>(
      'SELECT id, current_version FROM registry.tenants WHERE id > $1 AND current_version IS NOT NULL ORDER BY id LIMIT $2',
      [this.windowAfter, this.options.batch],
    );
    await this.check(
      rows.filter((r) => !seen.has(r.id)).map((r) => [r.id, r.current_version]),
      repaired,
    );
    if (rows.length < this.options.batch) {
      this.progress.passes++;
      this.progress.lastPassMs = Date.now() - this.passStarted;
      this.passStarted = Date.now();
      this.windowAfter = '';
    } else this.windowAfter = rows[rows.length - 1].id;
    const listed = await this.scanListed(repaired);
    Object.assign(this.progress, { changed: changed.length, window: rows.length, listed });
    return repaired;
  }

  /** Compares each tenant's key and set membership with its expected version (null: must be absent). */
  private async check(entries: Array<[string, string | null]>, repaired: VerifyRepairs): Promise<void> {
    for (let i = 0; i < entries.length; i += MGET_BATCH) {
      const batch = entries.slice(i, i + MGET_BATCH);
      const ids = batch.map(([id]) => id);
      const values = await mgetAcrossSlots(
        this.redis,
        ids.map((id) => this.keys.catalog(id)),
      );
      const listed = await this.redis.smismember(this.keys.tenants, ...ids);
      for (const [j, [id, expected]] of batch.entries()) {
        const raw = values[j];
        const found = raw === null ? null : versionOf(raw);
        const kind: keyof VerifyRepairs | undefined =
          expected === null
            ? raw !== null || listed[j] === 1
              ? 'orphan'
              : undefined
            : raw === null || listed[j] !== 1
              ? 'missing'
              : found !== expected
                ? 'stale'
                : undefined;
        if (kind) await this.repair(id, kind, expected, found, repaired);
      }
    }
  }

  /** The next slice of Redis' tenant set: members Postgres does not publish are removed. */
  private async scanListed(repaired: VerifyRepairs): Promise<number> {
    const [next, members] = await this.redis.sscan(this.keys.tenants, this.scanCursor, 'COUNT', this.options.batch);
    this.scanCursor = next;
    if (members.length === 0) return 0;
    const published = await this.db.query<{ id: string }>(
      'SELECT id FROM registry.tenants WHERE id = ANY($1) AND current_version IS NOT NULL',
      [members],
    );
    const known = new Set(published.map((r) => r.id));
    for (const id of members) if (!known.has(id)) await this.repair(id, 'orphan', null, undefined, repaired);
    return members.length;
  }

  private async repair(
    id: string,
    kind: keyof VerifyRepairs,
    expected: string | null,
    found: string | null | undefined,
    repaired: VerifyRepairs,
  ): Promise<void> {
    const result = await this.pusher.push(id).catch(async () => (kind === 'orphan' && (await this.forget(id)) ? 'ok' : 'unavailable'));
    if (result !== 'ok') return;
    repaired[kind]++;
    this.logger.warn({ tenant: id, kind, expected, found }, 'Redis catalog repaired');
  }

  /** Removes a listed tenant Postgres no longer has at all (the publisher cannot push a tenant that does not exist). */
  private async forget(id: string): Promise<boolean> {
    if ((await this.db.query('SELECT 1 FROM registry.tenants WHERE id = $1', [id])).length > 0) return false;
    await this.redis.del(this.keys.catalog(id));
    await this.redis.srem(this.keys.tenants, id);
    return true;
  }
}

/** The snapshot version inside a stored document (undefined when it does not parse). */
export function versionOf(raw: string): string | undefined {
  try {
    const doc = JSON.parse(raw) as { snapshot?: { version?: unknown } };
    return typeof doc.snapshot?.version === 'string' ? doc.snapshot.version : undefined;
  } catch {
    return undefined;
  }
}

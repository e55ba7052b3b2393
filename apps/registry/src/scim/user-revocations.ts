import type { Logger } from 'pino';
import type { Database } from '../db/database';
import { audit } from '../model/audit';

const CALL_TIMEOUT_MS = 10_000;
const MAX_ANSWER_BYTES = 16 * 1024;
/** Revocations sent per round, the retry period, and the longest back-off between tries of one. */
const BATCH = 50;
const RETRY_EVERY_MS = 30_000;
const MAX_BACKOFF_S = 3600;

interface RevocationRow {
  id: string;
  tenant_id: string;
  username: string;
  attempts: number;
}

/**
 * Delivers deprovisioned directory users to the auth service (`POST
 * /internal/t/<tenant>/users/<username>/revoke`, Bearer INTERNAL_TOKEN), which deletes their
 * oidc-provider sessions, grants and tokens and their vault entries. Rows are written in the
 * deprovisioning transaction (`registry.user_revocations`) and deleted once auth confirms, so an
 * auth outage delays the purge but never loses it; until then the auth service already refuses
 * the user's sessions and refresh tokens (disabled, `sessions_valid_after`). Each result is audited.
 */
export class UserRevocations {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly db: Database,
    private readonly authUrl: string | undefined,
    private readonly internalToken: string,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.kick(), RETRY_EVERY_MS);
    this.timer.unref();
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** Sends what is due now; coalesced while a round runs. */
  kick(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain()
      .catch((err: unknown) => this.logger.warn({ err: (err as Error).message }, 'user revocations: round failed; retried shortly'))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Resolves when no round runs (tests wait on it). */
  async whenIdle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    if (!this.authUrl) return;
    const rows = await this.db.query<RevocationRow>(
      `UPDATE registry.user_revocations SET attempts = attempts + 1, next_try_at = now() + make_interval(secs => least(${MAX_BACKOFF_S}, 30 * power(2, attempts)))
        WHERE id IN (SELECT id FROM registry.user_revocations WHERE next_try_at <= now() ORDER BY id LIMIT ${BATCH} FOR UPDATE SKIP LOCKED)
        RETURNING id, tenant_id, username, attempts`,
    );
    for (const r of rows) await this.deliver(r);
  }

  private async deliver(r: RevocationRow): Promise<void> {
    if (!this.authUrl) return;
    const url = `${this.authUrl.replace(/\/+$/, '')}/internal/t/${encodeURIComponent(r.tenant_id)}/users/${encodeURIComponent(r.username)}/revoke`;
    let status: number;
    let body: Record<string, unknown> = {};
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.internalToken}` },
        signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      });
      status = res.status;
      const text = await res.text();
      if (text.length <= MAX_ANSWER_BYTES) body = (JSON.parse(text || '{}') as Record<string, unknown>) ?? {};
    } catch (err) {
      this.logger.warn(
        { tenant: r.tenant_id, err: (err as Error).message },
        'user revocation: the auth service is unreachable; retried later',
      );
      return;
    }
    // 404: auth does not serve this tenant (no authorization server), so it holds nothing of the user.
    if (!(status >= 200 && status < 300) && status !== 404) {
      this.logger.warn({ tenant: r.tenant_id, status }, 'user revocation refused by the auth service; retried later');
      return;
    }
    await this.db.tx(async (q) => {
      await q.query('DELETE FROM registry.user_revocations WHERE id = $1', [r.id]);
      const counts = { artefacts: Number(body.artefacts ?? 0), vaultRows: Number(body.vaultRows ?? 0), tenantServed: status !== 404 };
      await audit(q, r.tenant_id, 'auth-service', 'user.revoke-tokens', r.username, counts);
    });
  }
}

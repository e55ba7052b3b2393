import type { Queryable } from '../db/database';
import { emitWebhookEvent } from './webhook-events';

/** One `limit.reached` per tenant per this window: a tenant at its limit is refused on every call, and one event says so. */
const WINDOW_SECONDS = 3600;

/**
 * Records `limit.reached` for a tenant whose calls were refused by a rate limit (the gateways
 * report them in the usage stream), unless one was already recorded within the window.
 */
export async function emitLimitReached(q: Queryable, tenantId: string, refused: number): Promise<void> {
  const recent = await q.query(
    "SELECT 1 FROM registry.webhook_deliveries WHERE tenant_id = $1 AND event_type = 'limit.reached' AND created_at > now() - make_interval(secs => $2) LIMIT 1",
    [tenantId, WINDOW_SECONDS],
  );
  if (recent.length > 0) return;
  await emitWebhookEvent(q, tenantId, 'limit.reached', { limit: 'rate', refusedCalls: refused });
}

import { randomBytes } from 'node:crypto';
import type { Queryable } from '../db/database';

/** Every event a tenant can subscribe to (the console lists them; `webhook.test` is sent on demand only). */
export const WEBHOOK_EVENT_TYPES = [
  'discovery.failed',
  'upstream.change_pending_review',
  'publish.done',
  'connector.unlinked',
  'limit.reached',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number] | 'webhook.test';

/** A new `webhook-id` (`msg_` + 24 random base62-ish chars): unique per event and subscription, kept across retries. */
export function newDeliveryId(): string {
  return `msg_${randomBytes(18).toString('base64url')}`;
}

/** The JSON body every receiver gets (the Standard Webhooks payload shape: type, timestamp, data). */
export function webhookPayload(tenantId: string, type: WebhookEventType, data: Record<string, unknown>): Record<string, unknown> {
  return { type, timestamp: new Date().toISOString(), data: { tenant: tenantId, ...data } };
}

/**
 * Records one event for every enabled subscription of the tenant that wants it, in the caller's
 * transaction: the event exists exactly when the change that caused it commits (an outbox), and
 * the dispatcher sends it afterwards. Returns how many deliveries were recorded.
 */
export async function emitWebhookEvent(
  q: Queryable,
  tenantId: string,
  type: WebhookEventType,
  data: Record<string, unknown>,
): Promise<number> {
  const subs = await q.query<{ id: string }>(
    'SELECT id FROM registry.webhook_subscriptions WHERE tenant_id = $1 AND enabled AND $2 = ANY(events)',
    [tenantId, type],
  );
  if (subs.length === 0) return 0;
  const payload = JSON.stringify(webhookPayload(tenantId, type, data));
  for (const s of subs) {
    await q.query(
      'INSERT INTO registry.webhook_deliveries (id, tenant_id, subscription_id, event_type, payload) VALUES ($1, $2, $3, $4, $5)',
      [newDeliveryId(), tenantId, s.id, type, payload],
    );
  }
  return subs.length;
}

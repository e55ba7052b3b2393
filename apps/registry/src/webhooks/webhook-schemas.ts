import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES } from '../model/webhook-events';

/** Subscriptions one tenant may hold: each event fans out to every one, so this bounds the fan-out. */
export const MAX_SUBSCRIPTIONS_PER_TENANT = 20;
/** Test events of one subscription not yet delivered or given up: "send test event" cannot flood a receiver or the queue. */
export const MAX_OUTSTANDING_TESTS = 20;

const eventType = z.enum(WEBHOOK_EVENT_TYPES);
const events = z
  .array(eventType)
  .min(1)
  // Distinct entries of a closed list: at most every event once (no max, so the generated types stay a plain array).
  .refine((list) => new Set(list).size === list.length, 'must not repeat an event');
const url = z.url({ protocol: /^https?$/ }).max(2048);

export const createWebhookBody = z
  .object({
    url,
    events,
    description: z.string().min(1).max(200).optional(),
    enabled: z.boolean().default(true),
  })
  .strict();

export const updateWebhookBody = z
  .object({
    url: url.optional(),
    events: events.optional(),
    description: z.string().min(1).max(200).nullable().optional(),
    enabled: z.boolean().optional(),
  })
  .strict();

export const webhookIdParams = z.object({ id: z.string().regex(/^wh_[A-Za-z0-9]{8,40}$/, 'must be a webhook id (wh_…)') });

export const deliveriesQuery = z.object({ limit: z.coerce.number().int().min(1).max(200).default(50) }).strict();

const dateTime = z.string().meta({ format: 'date-time' });

export const webhookSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    description: z.string().nullable(),
    events: z.array(z.string()),
    enabled: z.boolean(),
    createdAt: dateTime,
    updatedAt: dateTime,
    /** While set, deliveries are signed with the previous secret too (rotation window). */
    previousSecretExpiresAt: dateTime.nullable(),
  })
  .describe('A webhook subscription (never its secret)');

export const webhookWithSecretSchema = z
  .object({ webhook: webhookSchema, secret: z.string().describe('The signing secret (whsec_…): shown once, store it now') })
  .describe('A subscription and its new signing secret');

export const webhookListSchema = z.object({ webhooks: z.array(webhookSchema), events: z.array(z.string()) });

export const deliverySchema = z.object({
  id: z.string().describe('The webhook-id header (idempotency key)'),
  subscriptionId: z.string(),
  eventType: z.string(),
  status: z.enum(['pending', 'queued', 'delivered', 'failed']),
  attempts: z.number(),
  lastStatus: z.number().nullable(),
  lastError: z.string().nullable(),
  createdAt: dateTime,
  updatedAt: dateTime,
  deliveredAt: dateTime.nullable(),
  payload: z.record(z.string(), z.unknown()),
});

export const deliveryListSchema = z.object({ deliveries: z.array(deliverySchema) });
export const testEventSchema = z.object({ deliveryId: z.string(), queued: z.boolean() });

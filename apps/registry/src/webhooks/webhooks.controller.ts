import { randomBytes } from 'node:crypto';
import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import { checkUrl, NetGuardError, type NetGuardPolicy } from '@switchboard/net-guard';
import { z } from 'zod';
import { type Queryable, Database } from '../db/database';
import { ApiOperation, ApiTag } from '../docs/api-operation';
import { ApiError } from '../http/api-error';
import { parseInput } from '../http/parse-input';
import { audit } from '../model/audit';
import { newDeliveryId, WEBHOOK_EVENT_TYPES, webhookPayload } from '../model/webhook-events';
import {
  createWebhookBody,
  deliveriesQuery,
  deliveryListSchema,
  MAX_OUTSTANDING_TESTS,
  MAX_SUBSCRIPTIONS_PER_TENANT,
  testEventSchema,
  updateWebhookBody,
  webhookIdParams,
  webhookListSchema,
  webhookSchema,
  webhookWithSecretSchema,
} from './webhook-schemas';
import { webhookSecretAad } from '../crypto/secret-aad';
import { newWebhookSecret } from './webhook-signature';
import { TenantGuard, Tenant } from '../http/tenant-guard';
import type { TenantPrincipal } from '../http/authenticator';
import { REGISTRY_CONFIG, NET_POLICY } from '../http/registry-tokens';
import type { RegistryConfig } from '../config';
import { SecretBox } from '@switchboard/secret-box';

interface SubscriptionRow {
  tenant_id: string;
  id: string;
  url: string;
  description: string | null;
  events: string[];
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
  previous_expires_at: Date | null;
}

const rotateBody = z
  .object({
    graceSeconds: z
      .number()
      .int()
      .min(0)
      .max(7 * 86_400)
      .optional(),
  })
  .strict();

function view(r: SubscriptionRow) {
  const rotating = r.previous_expires_at && r.previous_expires_at > new Date() ? r.previous_expires_at.toISOString() : null;
  return {
    id: r.id,
    url: r.url,
    description: r.description,
    events: r.events,
    enabled: r.enabled,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
    previousSecretExpiresAt: rotating,
  };
}

/** A tenant's event webhooks: subscriptions (secret shown once, rotation with a window), test events and the delivery log. */
@Controller('v1/webhooks')
@ApiTag('Webhooks')
export class WebhooksController {
  constructor(
    @Inject(Database) private readonly db: Database,
    @Inject(REGISTRY_CONFIG) private readonly config: RegistryConfig,
    @Inject(SecretBox) private readonly box: SecretBox,
    @Inject(NET_POLICY) private readonly policy: NetGuardPolicy,
  ) {}

  @Get()
  @ApiOperation({
    operationId: 'listWebhooks',
    summary: 'Webhook subscriptions and the event types one can subscribe to',
    auth: 'tenant',
    response: webhookListSchema,
  })
  @UseGuards(TenantGuard)
  async list(@Tenant() { tenantId }: TenantPrincipal) {
    const rows = await this.db.query<SubscriptionRow>(
      'SELECT * FROM registry.webhook_subscriptions WHERE tenant_id = $1 ORDER BY created_at',
      [tenantId],
    );
    return { webhooks: rows.map(view), events: [...WEBHOOK_EVENT_TYPES] };
  }

  /** Subscribes an endpoint (SSRF-checked like upstream URLs); the signing secret is in this answer only. */
  @Post()
  @ApiOperation({
    operationId: 'createWebhook',
    summary: `Subscribe an HTTPS endpoint to events (URL SSRF-checked; at most ${MAX_SUBSCRIPTIONS_PER_TENANT} per tenant); the answer carries the signing secret, shown once`,
    auth: 'tenant',
    body: createWebhookBody,
    response: webhookWithSecretSchema,
  })
  @HttpCode(201)
  @UseGuards(TenantGuard)
  async create(@Tenant() { tenantId, actor }: TenantPrincipal, @Body() body: unknown) {
    const input = parseInput(createWebhookBody, body, 'body');
    await this.guard(input.url);
    const id = `wh_${randomBytes(12).toString('hex')}`;
    const secret = newWebhookSecret();
    const row = await this.db.tx(async (q) => {
      const count = await q.query<{ n: string }>('SELECT count(*) AS n FROM registry.webhook_subscriptions WHERE tenant_id = $1', [
        tenantId,
      ]);
      if (Number(count[0]?.n ?? 0) >= MAX_SUBSCRIPTIONS_PER_TENANT) {
        throw new ApiError(409, 'CONFLICT', `body: a tenant holds at most ${MAX_SUBSCRIPTIONS_PER_TENANT} webhook subscriptions`, 'body');
      }
      const rows = await q.query<SubscriptionRow>(
        `INSERT INTO registry.webhook_subscriptions (tenant_id, id, url, description, events, enabled, secret) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
        [
          tenantId,
          id,
          input.url,
          input.description ?? null,
          input.events,
          input.enabled,
          this.box.seal(secret, webhookSecretAad(tenantId, id)),
        ],
      );
      await audit(q, tenantId, actor, 'webhook.create', id, { url: input.url, events: input.events });
      return rows[0] as SubscriptionRow;
    });
    return { webhook: view(row), secret };
  }

  @Get(':id')
  @ApiOperation({
    operationId: 'getWebhook',
    summary: 'One webhook subscription (never its secret)',
    auth: 'tenant',
    params: webhookIdParams,
    response: webhookSchema,
  })
  @UseGuards(TenantGuard)
  async get(@Tenant() { tenantId }: TenantPrincipal, @Param() params: unknown) {
    const { id } = parseInput(webhookIdParams, params, 'params');
    return view(await load(this.db, tenantId, id));
  }

  @Patch(':id')
  @ApiOperation({
    operationId: 'updateWebhook',
    summary: 'Change a subscription: URL (SSRF-checked), events, description, enabled',
    auth: 'tenant',
    params: webhookIdParams,
    body: updateWebhookBody,
    response: webhookSchema,
  })
  @UseGuards(TenantGuard)
  async update(@Tenant() { tenantId, actor }: TenantPrincipal, @Param() params: unknown, @Body() body: unknown) {
    const { id } = parseInput(webhookIdParams, params, 'params');
    const input = parseInput(updateWebhookBody, body, 'body');
    if (input.url !== undefined) await this.guard(input.url);
    return this.db.tx(async (q) => {
      const cur = await load(q, tenantId, id);
      const rows = await q.query<SubscriptionRow>(
        'UPDATE registry.webhook_subscriptions SET url = $3, events = $4, description = $5, enabled = $6, updated_at = now() WHERE tenant_id = $1 AND id = $2 RETURNING *',
        [
          tenantId,
          id,
          input.url ?? cur.url,
          input.events ?? cur.events,
          input.description === undefined ? cur.description : input.description,
          input.enabled ?? cur.enabled,
        ],
      );
      await audit(q, tenantId, actor, 'webhook.update', id, { fields: Object.keys(input) });
      return view(rows[0] as SubscriptionRow);
    });
  }

  @Delete(':id')
  @ApiOperation({
    operationId: 'deleteWebhook',
    summary: 'Delete a subscription and its delivery log',
    auth: 'tenant',
    params: webhookIdParams,
  })
  @UseGuards(TenantGuard)
  async remove(@Tenant() { tenantId, actor }: TenantPrincipal, @Param() params: unknown) {
    const { id } = parseInput(webhookIdParams, params, 'params');
    await this.db.tx(async (q) => {
      const rows = await q.query('DELETE FROM registry.webhook_subscriptions WHERE tenant_id = $1 AND id = $2 RETURNING id', [
        tenantId,
        id,
      ]);
      if (rows.length === 0) throw ApiError.notFound('webhook', id, 'params.id');
      await audit(q, tenantId, actor, 'webhook.delete', id);
    });
    return { id, deleted: true };
  }

  /** New secret now; the previous one keeps signing (beside it) until the window ends. */
  @Post(':id/rotate')
  @ApiOperation({
    operationId: 'rotateWebhookSecret',
    summary:
      'Rotate the signing secret: the new one is in this answer only; deliveries carry both signatures until graceSeconds (default WEBHOOK_ROTATION_GRACE_SECONDS) pass',
    auth: 'tenant',
    params: webhookIdParams,
    body: rotateBody,
    optionalBody: true,
    response: webhookWithSecretSchema,
  })
  @HttpCode(200)
  @UseGuards(TenantGuard)
  async rotate(@Tenant() { tenantId, actor }: TenantPrincipal, @Param() params: unknown, @Body() body: unknown) {
    const { id } = parseInput(webhookIdParams, params, 'params');
    const input = parseInput(rotateBody, body ?? {}, 'body');
    const grace = input.graceSeconds ?? this.config.WEBHOOK_ROTATION_GRACE_SECONDS;
    const secret = newWebhookSecret();
    const row = await this.db.tx(async (q) => {
      await load(q, tenantId, id);
      const rows = await q.query<SubscriptionRow>(
        `UPDATE registry.webhook_subscriptions SET previous_secret = secret, secret = $3, previous_expires_at = now() + make_interval(secs => $4), updated_at = now()
          WHERE tenant_id = $1 AND id = $2 RETURNING *`,
        [tenantId, id, this.box.seal(secret, webhookSecretAad(tenantId, id)), grace],
      );
      await audit(q, tenantId, actor, 'webhook.rotate', id, { graceSeconds: grace });
      return rows[0] as SubscriptionRow;
    });
    return { webhook: view(row), secret };
  }

  /** Records a `webhook.test` delivery to this endpoint (sent like any event, shown in the log). */
  @Post(':id/test')
  @ApiOperation({
    operationId: 'sendTestWebhook',
    summary: `Send a webhook.test event to this endpoint (delivered and logged like any event); 409 while ${MAX_OUTSTANDING_TESTS} are still outstanding`,
    auth: 'tenant',
    params: webhookIdParams,
    response: testEventSchema,
  })
  @HttpCode(202)
  @UseGuards(TenantGuard)
  async test(@Tenant() { tenantId, actor }: TenantPrincipal, @Param() params: unknown) {
    const { id } = parseInput(webhookIdParams, params, 'params');
    const deliveryId = newDeliveryId();
    await this.db.tx(async (q) => {
      await load(q, tenantId, id);
      const outstanding = await q.query<{ n: string }>(
        "SELECT count(*) AS n FROM registry.webhook_deliveries WHERE tenant_id = $1 AND subscription_id = $2 AND event_type = 'webhook.test' AND status IN ('pending', 'queued')",
        [tenantId, id],
      );
      if (Number(outstanding[0]?.n ?? 0) >= MAX_OUTSTANDING_TESTS) {
        throw new ApiError(
          409,
          'CONFLICT',
          `params.id: ${MAX_OUTSTANDING_TESTS} test events to this endpoint are still being delivered; wait for them (see the delivery log)`,
          'params.id',
        );
      }
      const payload = webhookPayload(tenantId, 'webhook.test', { subscription: id, by: actor });
      await q.query(
        "INSERT INTO registry.webhook_deliveries (id, tenant_id, subscription_id, event_type, payload) VALUES ($1, $2, $3, 'webhook.test', $4)",
        [deliveryId, tenantId, id, JSON.stringify(payload)],
      );
      await audit(q, tenantId, actor, 'webhook.test', id, { deliveryId });
    });
    return { deliveryId, queued: true };
  }

  @Get(':id/deliveries')
  @ApiOperation({
    operationId: 'listWebhookDeliveries',
    summary: 'The delivery log of a subscription, newest first (kept per tenant up to WEBHOOK_LOG_MAX)',
    auth: 'tenant',
    params: webhookIdParams,
    query: deliveriesQuery,
    response: deliveryListSchema,
  })
  @UseGuards(TenantGuard)
  async deliveries(@Tenant() { tenantId }: TenantPrincipal, @Param() params: unknown, @Query() query: unknown) {
    const { id } = parseInput(webhookIdParams, params, 'params');
    const { limit } = parseInput(deliveriesQuery, query, 'query');
    await load(this.db, tenantId, id);
    const rows = await this.db.query(
      `SELECT id, subscription_id AS "subscriptionId", event_type AS "eventType", status, attempts, last_status AS "lastStatus", last_error AS "lastError",
              to_json(created_at) #>> '{}' AS "createdAt", to_json(updated_at) #>> '{}' AS "updatedAt", to_json(delivered_at) #>> '{}' AS "deliveredAt", payload
         FROM registry.webhook_deliveries WHERE tenant_id = $1 AND subscription_id = $2 ORDER BY created_at DESC, id LIMIT $3`,
      [tenantId, id, limit],
    );
    return { deliveries: rows };
  }

  private async guard(url: string): Promise<void> {
    try {
      await checkUrl(url, this.policy);
    } catch (err) {
      if (err instanceof NetGuardError)
        throw new ApiError(400, 'URL_REFUSED', `body.url: ${err.message}`, 'body.url', { reason: err.code });
      throw err;
    }
  }
}

async function load(q: Queryable, tenantId: string, id: string): Promise<SubscriptionRow> {
  const rows = await q.query<SubscriptionRow>('SELECT * FROM registry.webhook_subscriptions WHERE tenant_id = $1 AND id = $2', [
    tenantId,
    id,
  ]);
  if (!rows[0]) throw ApiError.notFound('webhook', id, 'params.id');
  return rows[0];
}

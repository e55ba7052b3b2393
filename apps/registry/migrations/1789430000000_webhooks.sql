-- Up Migration
-- Event webhooks (issue 48): a tenant subscribes HTTPS endpoints to platform events. The signing
-- secret is sealed (SecretBox, AAD bound to tenant and subscription); after a rotation the previous
-- secret keeps signing beside the new one until previous_expires_at, so receivers can switch over.
CREATE TABLE registry.webhook_subscriptions (
  tenant_id text NOT NULL REFERENCES registry.tenants(id) ON DELETE CASCADE,
  id text NOT NULL CHECK (id ~ '^wh_[A-Za-z0-9]{8,40}$'),
  url text NOT NULL,
  description text,
  events text[] NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  secret text NOT NULL,
  previous_secret text,
  previous_expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, id)
);

-- One row per (event, subscription): written in the transaction of the change that caused the
-- event (a transactional outbox), picked up by the dispatcher (status pending -> queued), sent by
-- the BullMQ worker. The id is the Standard Webhooks `webhook-id`, the receivers' idempotency key.
-- Bounded per tenant: the dispatcher prunes the oldest finished rows past WEBHOOK_LOG_MAX.
CREATE TABLE registry.webhook_deliveries (
  id text PRIMARY KEY,
  tenant_id text NOT NULL,
  subscription_id text NOT NULL,
  event_type text NOT NULL,
  payload jsonb NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'queued', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  last_status integer,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  delivered_at timestamptz,
  FOREIGN KEY (tenant_id, subscription_id) REFERENCES registry.webhook_subscriptions (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX webhook_deliveries_tenant ON registry.webhook_deliveries (tenant_id, created_at DESC);
CREATE INDEX webhook_deliveries_pending ON registry.webhook_deliveries (created_at) WHERE status = 'pending';

-- Down Migration
DROP TABLE registry.webhook_deliveries;
DROP TABLE registry.webhook_subscriptions;

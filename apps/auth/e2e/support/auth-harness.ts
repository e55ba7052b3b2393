import { randomBytes } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Logger } from 'pino';
import { Client } from 'pg';
import type { AuthServices } from '../../src/auth-services';
import { loadAuthConfig } from '../../src/config';
import { createAuthApp, type CreateAuthAppOptions } from '../../src/create-auth-app';
import { tenantAuthSchema, tenantSecretAad } from '@switchboard/catalog';
import { SecretBox } from '@switchboard/secret-box';
import type { LazyTenantDocumentFeed } from '@switchboard/tenant-config';
import { freePort } from '@switchboard/testing';
import type { AuthTenant } from '../../src/tenants/tenant-auth';

export const DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const INTERNAL_TOKEN = 'internal-token-for-tests-0123456789';
// Re-exported: the auth suites take the port helper from their harness.
export { freePort };

export interface TestAuth {
  app: NestFastifyApplication;
  services: AuthServices;
  baseUrl: string;
  schema: string;
  tenants: { get(id: string): AuthTenant | undefined; has(id: string): boolean };
  /** The lazy tenant feed (AUTH_TENANT_LOADING=lazy, the default), for its counters; undefined without a registry feed or when eager. */
  lazyTenants: LazyTenantDocumentFeed | undefined;
  /**
   * Requests the tenant's discovery document, as a client's first request would: a registry tenant
   * is read then (lazy loading), and its IdP-change purge scheduled. Returns the status.
   */
  touch(tenant: string): Promise<number>;
  issuer(tenant: string): string;
  mcpUrl(tenant: string): string;
  close(): Promise<void>;
}

export interface StartAuthOptions {
  /** `{ id, auth }` entries, validated with the real schema. */
  tenants: Array<{ id: string; name?: string; auth?: unknown }>;
  gatewayPublicUrl?: string;
  env?: Record<string, string>;
  cimd?: CreateAuthAppOptions['cimd'];
  port?: number;
  /** Reuse a schema (e.g. a second replica); default a fresh one, dropped on close. */
  schema?: string;
  /** The service's logger (tests that read what it logs); default one at LOG_LEVEL. */
  logger?: Logger;
}

/** Boots the auth service on 127.0.0.1 with a unique Postgres schema. */
export async function startAuth(o: StartAuthOptions): Promise<TestAuth> {
  const port = o.port ?? (await freePort());
  const baseUrl = `http://127.0.0.1:${port}`;
  const schema = o.schema ?? `auth_t_${randomBytes(5).toString('hex')}`;
  const gatewayPublicUrl = o.gatewayPublicUrl ?? 'http://127.0.0.1:3999';
  const config = loadAuthConfig({
    DATABASE_URL,
    AUTH_DB_SCHEMA: schema,
    AUTH_PORT: String(port),
    AUTH_PUBLIC_URL: baseUrl,
    GATEWAY_PUBLIC_URL: gatewayPublicUrl,
    INTERNAL_TOKEN,
    SECRETS_KEY: randomBytes(32).toString('base64'),
    LOG_LEVEL: process.env.AUTH_TEST_LOG ?? 'silent',
    ...o.env,
  });
  const docs = o.tenants
    .filter((t) => t.auth !== undefined)
    .map((t) => ({ id: t.id, name: t.name ?? t.id, auth: tenantAuthSchema.parse(t.auth) }));
  const { app, services, lazyTenants } = await createAuthApp(config, {
    tenants: docs,
    cimd: o.cimd,
    ...(o.logger ? { logger: o.logger } : {}),
  });
  await app.listen({ port, host: '127.0.0.1' });
  // A live view: tenants the registry feed adds or changes show up here too.
  const tenants = {
    get: (id: string) => services.tenants.byId(id),
    has: (id: string) => services.tenants.byId(id) !== undefined,
  };
  return {
    app,
    services,
    baseUrl,
    schema,
    tenants,
    lazyTenants,
    touch: async (id) => {
      const res = await fetch(`${baseUrl}/.well-known/oauth-authorization-server/t/${encodeURIComponent(id)}`);
      await res.arrayBuffer();
      return res.status;
    },
    issuer: (id) => tenants.get(id)?.issuer ?? '',
    mcpUrl: (id) => tenants.get(id)?.mcpUrl ?? '',
    close: async () => {
      await app.close();
      if (!o.schema) await dropSchema(schema);
    },
  };
}

export async function dropSchema(schema: string): Promise<void> {
  const c = new Client({ connectionString: DATABASE_URL });
  await c.connect();
  try {
    await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await c.end();
  }
}

/**
 * Seals a tenant-document secret (IdP or connector client secret) as the registry does, under
 * the registry's development key that the auth service opens by default (CATALOG_SECRETS_KEY).
 */
export function sealTenantSecret(tenantId: string, slot: string, secret: string): string {
  return new SecretBox(Buffer.from('switchboard-dev-secrets-key-0001')).seal(secret, tenantSecretAad(tenantId, slot));
}

import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { hashPassword } from '../crypto/password-hash';
import { newApiKey } from '../model/api-keys';
import type { RegistryServices } from '../registry-services';
import { DEMO_UPSTREAM_TOKEN } from './demo-upstream';

export const DEMO_TENANT = 'acme';
/** The demo tenant's console admin (password fresh on every seed). */
export const DEMO_ADMIN = 'admin';
const DISCOVERY_WAIT_MS = 30_000;

/**
 * Seeds (idempotently) the demo SaaS tenant through the admin API: the SDK-built demo
 * upstream (bearer credential), the chain-reader when its URL is known, discovery, and a
 * publication of every discovered tool that declares its hint annotations. Returns a fresh API
 * key for the tenant and a fresh password for its console admin.
 */
export async function seedDemo(
  app: NestFastifyApplication,
  ctx: RegistryServices,
  upstreamUrl: string,
  chainReaderUrl?: string,
): Promise<{ tenantId: string; apiKey: string; admin: { username: string; password: string } }> {
  const exists = await ctx.db.query('SELECT 1 FROM registry.tenants WHERE id = $1', [DEMO_TENANT]);
  if (exists.length === 0) {
    await ctx.db.query('INSERT INTO registry.tenants (id, name, description) VALUES ($1, $2, $3)', [
      DEMO_TENANT,
      'Acme (demo SaaS tenant)',
      'A tenant that registered its own MCP server through the registry.',
    ]);
  }
  const key = newApiKey();
  await ctx.db.query('INSERT INTO registry.api_keys (tenant_id, name, key_hash, key_prefix) VALUES ($1, $2, $3, $4)', [
    DEMO_TENANT,
    `seed ${new Date().toISOString()}`,
    key.hash,
    key.prefix,
  ]);
  // A console admin for OAuth sign-in; like the API key, a fresh password on every seed (printed once).
  const adminPassword = randomBytes(12).toString('base64url');
  await ctx.db.query(
    `INSERT INTO registry.tenant_admins (tenant_id, username, name, password_hash) VALUES ($1, $2, $3, $4)
     ON CONFLICT (tenant_id, username) DO UPDATE SET password_hash = EXCLUDED.password_hash, disabled_at = NULL`,
    [DEMO_TENANT, DEMO_ADMIN, 'Acme admin', await hashPassword(adminPassword)],
  );
  const call = adminCaller(app, key.key);
  const servers: SeedServer[] = [
    { id: 'crm', name: 'Acme CRM (demo upstream)', url: upstreamUrl, auth: { mode: 'bearer', token: DEMO_UPSTREAM_TOKEN } },
  ];
  if (chainReaderUrl) servers.push({ id: 'chain', name: 'Chain reader', url: chainReaderUrl, auth: { mode: 'none' } });
  await seedServers(call, servers, ctx);
  return { tenantId: DEMO_TENANT, apiKey: key.key, admin: { username: DEMO_ADMIN, password: adminPassword } };
}

export type AdminCall = (
  method: 'GET' | 'POST' | 'PATCH',
  url: string,
  payload?: unknown,
) => Promise<{ status: number; body: Record<string, unknown> }>;
export interface SeedServer {
  id: string;
  name: string;
  url: string;
  auth: Record<string, string>;
}

/** Calls the admin API in-process with a tenant's API key (seeding goes through the same API a tenant uses). */
export function adminCaller(app: NestFastifyApplication, apiKey: string): AdminCall {
  const fastify = app.getHttpAdapter().getInstance() as FastifyInstance;
  return async (method, url, payload) => {
    const res = await fastify.inject({
      method,
      url,
      headers: { authorization: `Bearer ${apiKey}` },
      ...(payload ? { payload: payload as Record<string, unknown> } : {}),
    });
    return { status: res.statusCode, body: res.json() as Record<string, unknown> };
  };
}

/** Registers (or updates) servers, waits for their discovery and publishes every tool that declares its hints. */
export async function seedServers(call: AdminCall, servers: SeedServer[], ctx: RegistryServices): Promise<void> {
  for (const s of servers) {
    const created = await call('POST', '/v1/servers', s);
    if (created.status === 409) await call('PATCH', `/v1/servers/${s.id}`, { url: s.url, auth: s.auth });
    else if (created.status !== 201) throw new Error(`seeding server ${s.id} failed: ${JSON.stringify(created.body)}`);
  }
  for (const s of servers) {
    const deadline = Date.now() + DISCOVERY_WAIT_MS;
    let items: Array<{ kind: string; name: string; removedAt: unknown; missingHints: string[] }> = [];
    while (Date.now() < deadline) {
      const server = await call('GET', `/v1/servers/${s.id}`);
      if (server.body.health === 'ok') {
        items = ((await call('GET', `/v1/servers/${s.id}/items`)).body.items as typeof items).filter(
          (i) => i.kind === 'tool' && !i.removedAt,
        );
        break;
      }
      if (server.body.health === 'error') break;
      await new Promise((r) => setTimeout(r, 250));
    }
    // Publishing needs every tool's hint annotations; a tool whose upstream lacks them waits for the tenant to set overrides.
    const unhinted = items.filter((i) => i.missingHints.length > 0);
    if (unhinted.length > 0)
      ctx.logger.warn({ server: s.id, tools: unhinted.map((i) => i.name) }, 'demo seed: tools without hint annotations left unpublished');
    items = items.filter((i) => i.missingHints.length === 0);
    if (items.length === 0) {
      ctx.logger.warn({ server: s.id }, 'demo seed: no publishable tool discovered; skipped');
      continue;
    }
    const res = await call('POST', '/v1/publications', { serverId: s.id, items: items.map((i) => ({ kind: 'tool', name: i.name })) });
    if (res.status !== 200) ctx.logger.warn({ server: s.id, res: res.body }, 'demo seed: publish failed');
  }
}

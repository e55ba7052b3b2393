import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { readTenantSeed } from '@switchboard/tenant-config';
import type { RegistryServices } from '../registry-services';
import { newApiKey } from '../model/api-keys';
import { DEMO_UPSTREAM_TOKEN } from './demo-upstream';
import { adminCaller, seedServers } from './seed-demo';

/**
 * Seeds the development tenants file's `seed: registry` tenants (the protected `secure`)
 * through the registry path, like a tenant would set itself up: the tenant row (settings as
 * validated by the one seed reader), its OAuth settings through `PATCH /v1/tenant/auth`, the
 * SDK-built demo upstream, discovery and publication. The gateway and the auth service then
 * get it as a published tenant document — there is no second reader of the file's settings.
 * Idempotent; returns the seeded tenant ids.
 */
export async function seedRegistryTenants(
  app: NestFastifyApplication,
  ctx: RegistryServices,
  seedFile: string,
  upstreamUrl: string,
): Promise<string[]> {
  const seeded: string[] = [];
  for (const seed of readTenantSeed(seedFile).filter((t) => t.seed === 'registry')) {
    const s = seed.settings;
    await ctx.db.query(
      `INSERT INTO registry.tenants (id, name, description, instructions, origins, hosts, surface_rules) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, description = EXCLUDED.description, instructions = EXCLUDED.instructions, origins = EXCLUDED.origins, hosts = EXCLUDED.hosts, surface_rules = EXCLUDED.surface_rules`,
      [
        s.id,
        s.name,
        s.description ?? null,
        seed.instructions ?? null,
        JSON.stringify(s.origins),
        JSON.stringify(s.hosts),
        JSON.stringify(s.surfaceRules),
      ],
    );
    const key = newApiKey();
    await ctx.db.query('INSERT INTO registry.api_keys (tenant_id, name, key_hash, key_prefix) VALUES ($1, $2, $3, $4)', [
      s.id,
      `seed ${new Date().toISOString()}`,
      key.hash,
      key.prefix,
    ]);
    const call = adminCaller(app, key.key);
    if (s.auth) {
      const a = s.auth;
      // A seed file carries no secrets: an `oidc` IdP from it is a public (PKCE) client.
      const idp =
        a.idp.kind === 'oidc' ? { kind: 'oidc', issuer: a.idp.issuer, clientId: a.idp.clientId, scopes: a.idp.scopes } : { kind: 'local' };
      const res = await call('PATCH', '/v1/tenant/auth', {
        protected: a.protected,
        scopes: a.scopes,
        ...(a.defaultScopes ? { defaultScopes: a.defaultScopes } : {}),
        toolScopes: a.toolScopes,
        allowPrivateUseRedirects: a.allowPrivateUseRedirects,
        idp,
      });
      if (res.status !== 200) throw new Error(`seeding the auth settings of ${s.id} failed: ${JSON.stringify(res.body)}`);
    }
    await seedServers(
      call,
      [{ id: 'crm', name: 'Demo upstream', url: upstreamUrl, auth: { mode: 'bearer', token: DEMO_UPSTREAM_TOKEN } }],
      ctx,
    );
    seeded.push(s.id);
  }
  return seeded;
}

import { ROLES, ROUTE_ROLES, hasRole, type Role } from '../src/model/roles';
import { api, cleanRedis, createDatabase, createTenant, startRegistry, testEnv, type Proc } from './support/harness';

/**
 * Issue 11 item 6: each role can do exactly its set. Table-driven over every tenant route of
 * the admin API (the OpenAPI document is the inventory, and must match ROUTE_ROLES): a key of
 * each role either gets past the role check (any answer but 403 FORBIDDEN/role) or is refused
 * with 403 naming the role it needs.
 */
describe('roles of API keys and console admins', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  const keys = {} as Record<Role, string>;
  let ownerKey: string;

  beforeAll(async () => {
    db = await createDatabase();
    registry = await startRegistry(env, db.url);
    ownerKey = await createTenant(registry.url, env.operatorKey, 'acme', {
      username: 'ada',
      password: 'correct horse battery',
      name: 'Ada',
    });
    for (const role of ROLES) {
      const res = await api(registry.url, ownerKey, 'POST', '/v1/keys', { name: `${role} key`, role });
      expect([res.status, res.body.role]).toEqual([201, role]);
      keys[role] = String(res.body.apiKey);
    }
  }, 60_000);

  afterAll(async () => {
    await registry?.stop();
    await cleanRedis(env);
    await db?.drop();
  });

  it('lists every tenant route of the OpenAPI document in the role table, and nothing else', async () => {
    const doc = (await api(registry.url, undefined, 'GET', '/openapi.json')).body as {
      paths: Record<string, Record<string, { security?: Array<Record<string, unknown>>; 'x-required-role'?: string }>>;
    };
    const documented: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        if (!op.security?.some((s) => 'tenant' in s)) continue;
        const key = `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`;
        documented.push(key);
        expect([key, op['x-required-role']]).toEqual([key, ROUTE_ROLES[key]]);
      }
    }
    expect(documented.sort()).toEqual(Object.keys(ROUTE_ROLES).sort());
  });

  const cases = Object.entries(ROUTE_ROLES).flatMap(([route, needed]) => ROLES.map((role) => [route, role, needed] as const));

  it.each(cases)('%s as %s (needs %s)', async (route, role, needed) => {
    const [method, pattern] = route.split(' ') as [string, string];
    // Placeholders that never name a real row: an allowed call ends in 400/404/409 at worst, never changes another test's data.
    const url = pattern
      .replace(':id', method === 'DELETE' && pattern.startsWith('/v1/keys') ? '00000000-0000-0000-0000-000000000000' : 'nosuch')
      .replace(':username', 'nobody')
      .replace(':tenant', 'acme');
    const res = await api(registry.url, keys[role], method, url, method === 'GET' ? undefined : {});
    const refused = res.status === 403 && res.body.error?.field === 'role';
    expect({ route, role, refused }).toEqual({ route, role, refused: !hasRole(role, needed) });
    if (refused) {
      expect(res.body.error?.code).toBe('FORBIDDEN');
      expect(res.body.error?.message).toContain(`needs the ${needed} role`);
    } else {
      expect(res.status).toBeLessThan(500);
    }
  });

  it('tells the caller its role, and lets only an owner change roles, never demoting the last owner', async () => {
    expect((await api(registry.url, keys.viewer, 'GET', '/v1/session')).body).toMatchObject({
      tenant: 'acme',
      via: 'api_key',
      role: 'viewer',
    });
    expect((await api(registry.url, keys.admin, 'POST', '/v1/keys', { name: 'escalate', role: 'owner' })).status).toBe(403);
    expect((await api(registry.url, keys.admin, 'PATCH', '/v1/admins/ada', { role: 'viewer' })).status).toBe(403);
    const bad = await api(registry.url, ownerKey, 'PATCH', '/v1/admins/ada', { role: 'superuser' });
    expect([bad.status, bad.body.error?.field]).toEqual([400, 'body.role']);
    const last = await api(registry.url, ownerKey, 'PATCH', '/v1/admins/ada', { role: 'viewer' });
    expect([last.status, last.body.error?.code, last.body.error?.field]).toEqual([409, 'CONFLICT', 'body.role']);
    expect(
      (await api(registry.url, ownerKey, 'POST', '/v1/admins', { username: 'bob', password: 'another long password', role: 'owner' }))
        .status,
    ).toBe(201);
    const demoted = await api(registry.url, ownerKey, 'PATCH', '/v1/admins/ada', { role: 'publisher' });
    expect([demoted.status, demoted.body.role]).toEqual([200, 'publisher']);
    const entries = (await api(registry.url, keys.viewer, 'GET', '/v1/audit')).body.entries as Array<{
      action: string;
      target: string;
      details: Record<string, unknown>;
    }>;
    expect(entries.find((e) => e.action === 'admin.role')).toMatchObject({ target: 'ada', details: { from: 'owner', to: 'publisher' } });
    expect(
      entries
        .filter((e) => e.action === 'key.create')
        .map((e) => e.details.role)
        .sort(),
    ).toEqual([...ROLES].sort());
  });
});

// Console admin accounts, the registry's verify-login for the platform issuer, and platform access
// tokens as Bearer (CLIs), against a real registry process. Shared setup: support/console-auth-stack.ts.
import { ADA, startAuthStack, type AuthStack } from './support/console-auth-stack';
import { api } from './support/harness';

jest.setTimeout(90_000);

describe('console admins, verify-login and platform access tokens', () => {
  let s: AuthStack;
  let env: AuthStack['env'];
  let issuer: AuthStack['issuer'];
  let registry: AuthStack['registry'];
  let keyAcme: string;
  let keyGlobex: string;

  beforeAll(async () => {
    s = await startAuthStack();
    ({ env, issuer, registry, keyAcme, keyGlobex } = s);
  });

  afterAll(async () => {
    await s?.close();
  });

  describe('admin accounts', () => {
    it('the operator creates the first admin with the tenant; the API lists admins without any secret', async () => {
      const created = await api(registry.url, env.operatorKey, 'POST', '/v1/tenants', {
        id: 'initech',
        name: 'Initech',
        admin: { username: 'peter', password: 'tps-reports-2026', name: 'Peter' },
      });
      expect(created.status).toBe(201);
      expect(created.body.admin).toEqual({
        username: 'peter',
        name: 'Peter',
        createdAt: expect.any(String),
        lastLoginAt: null,
        disabled: false,
        role: 'owner',
      });
      const list = await api(registry.url, keyAcme, 'GET', '/v1/admins');
      expect(list.status).toBe(200);
      expect(list.body.admins).toEqual([
        { username: ADA.username, name: ADA.name, createdAt: expect.any(String), lastLoginAt: null, disabled: false, role: 'owner' },
      ]);
      expect(JSON.stringify([created.body, list.body])).not.toMatch(/scrypt|correct horse|tps-reports|password/i);
      const audit = await api(registry.url, keyAcme, 'GET', '/v1/audit');
      expect(audit.body.entries).toEqual(
        expect.arrayContaining([expect.objectContaining({ actor: 'operator', action: 'admin.create', target: ADA.username })]),
      );
    });

    it('a tenant adds admins (201), refuses a taken username (409 body.username) and bad input naming the field', async () => {
      const carol = await api(registry.url, keyAcme, 'POST', '/v1/admins', { username: 'carol', password: 'carol-password-1' });
      expect(carol.status).toBe(201);
      expect(carol.body).toEqual({
        username: 'carol',
        name: null,
        createdAt: expect.any(String),
        lastLoginAt: null,
        disabled: false,
        role: 'owner',
      });
      const dup = await api(registry.url, keyAcme, 'POST', '/v1/admins', { username: 'carol', password: 'another-password' });
      expect(dup.status).toBe(409);
      expect(dup.body.error).toMatchObject({ code: 'CONFLICT', field: 'body.username' });
      // The same username in another tenant is another account.
      expect((await api(registry.url, keyGlobex, 'POST', '/v1/admins', { username: 'carol', password: 'globex-carol-pw' })).status).toBe(
        201,
      );
      const cases: Array<[unknown, string]> = [
        [{ username: 'x', password: 'short' }, 'body.password'],
        [{ username: 'x', password: 'p'.repeat(1025) }, 'body.password'],
        [{ username: 'has space', password: 'long-enough-pass' }, 'body.username'],
        [{ username: 'u'.repeat(65), password: 'long-enough-pass' }, 'body.username'],
        [{ password: 'long-enough-pass' }, 'body.username'],
        [{ username: 'x', password: 'long-enough-pass', role: 'root' }, 'body.role'],
        [{ username: 'x', password: 'long-enough-pass', admin: true }, 'body'],
      ];
      for (const [body, field] of cases) {
        const res = await api(registry.url, keyAcme, 'POST', '/v1/admins', body);
        expect({ status: res.status, field: res.body.error?.field }).toEqual({ status: 400, field });
        expect(res.body.error?.message).toContain(field);
      }
      const bad = await api(registry.url, env.operatorKey, 'POST', '/v1/tenants', {
        id: 'hooli',
        name: 'Hooli',
        admin: { username: 'gavin', password: 'short' },
      });
      expect({ status: bad.status, field: bad.body.error?.field }).toEqual({ status: 400, field: 'body.admin.password' });
      expect((await api(registry.url, keyAcme, 'GET', '/v1/tenants')).status).toBe(403);
    });

    it("lists and disables only the caller's own admins (disable is audited; unknown is 404)", async () => {
      expect(
        ((await api(registry.url, keyGlobex, 'GET', '/v1/admins')).body.admins as Array<{ username: string }>).map((a) => a.username),
      ).toEqual(['bob', 'carol']);
      expect((await api(registry.url, keyGlobex, 'DELETE', `/v1/admins/${encodeURIComponent(ADA.username)}`)).status).toBe(404);
      expect((await api(registry.url, keyAcme, 'DELETE', '/v1/admins/nobody')).status).toBe(404);
      expect((await api(registry.url, keyAcme, 'DELETE', '/v1/admins/bad%20name')).body.error?.field).toBe('params.username');
      const disabled = await api(registry.url, keyAcme, 'DELETE', '/v1/admins/carol');
      expect(disabled.status).toBe(200);
      expect(disabled.body).toMatchObject({ username: 'carol', disabled: true });
      const audit = await api(registry.url, keyAcme, 'GET', '/v1/audit');
      expect(audit.body.entries).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ action: 'admin.disable', target: 'carol', actor: expect.stringMatching(/^key:/) }),
        ]),
      );
      // Globex's carol is untouched.
      expect((await api(registry.url, keyGlobex, 'GET', '/v1/admins')).body.admins).toEqual(
        expect.arrayContaining([expect.objectContaining({ username: 'carol', disabled: false })]),
      );
    });
  });

  describe('POST /internal/console/verify-login', () => {
    const verify = (body: unknown, token: string | null = env.internalToken) =>
      api(registry.url, token ?? undefined, 'POST', '/internal/console/verify-login', body);

    it('answers ok with the tenant, username and name, and stamps lastLoginAt', async () => {
      const res = await verify({ tenant: 'acme', username: ADA.username, password: ADA.password });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ok: true, tenant: 'acme', username: ADA.username, name: ADA.name });
      const admins = (await api(registry.url, keyAcme, 'GET', '/v1/admins')).body.admins as Array<{
        username: string;
        lastLoginAt: string | null;
      }>;
      expect(admins.find((a) => a.username === ADA.username)?.lastLoginAt).toEqual(expect.any(String));
    });

    it.each([
      ['a wrong password', { tenant: 'acme', username: ADA.username, password: 'wrong horse battery' }],
      ['an unknown user', { tenant: 'acme', username: 'mallory', password: ADA.password }],
      ['a disabled admin', { tenant: 'acme', username: 'carol', password: 'carol-password-1' }],
      ['an unknown tenant', { tenant: 'nowhere', username: ADA.username, password: ADA.password }],
      ["another tenant's admin", { tenant: 'globex', username: ADA.username, password: ADA.password }],
      ['a malformed tenant id', { tenant: 'NOT A TENANT', username: ADA.username, password: ADA.password }],
    ])('answers 401 {ok: false} for %s, exactly as for any other failure', async (_what, body) => {
      const res = await verify(body);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ ok: false });
    });

    it('needs the internal token (401) and a well-formed body (400 naming the field)', async () => {
      const good = { tenant: 'acme', username: ADA.username, password: ADA.password };
      expect((await verify(good, null)).status).toBe(401);
      expect((await verify(good, keyAcme)).status).toBe(401);
      for (const [body, field] of [
        [{ tenant: 'acme', username: ADA.username }, 'body.password'],
        [{ tenant: 42, username: ADA.username, password: 'x' }, 'body.tenant'],
        [{ tenant: 'acme', username: '', password: 'x' }, 'body.username'],
        [{ tenant: 'acme', username: 'a', password: 'p'.repeat(1025) }, 'body.password'],
        [{ ...good, extra: true }, 'body'],
      ] as const) {
        const res = await verify(body);
        expect({ status: res.status, field: res.body.error?.field }).toEqual({ status: 400, field });
      }
    });
  });

  describe('platform access tokens as Bearer (CLIs)', () => {
    const bearer = (token: string, path: string) => api(registry.url, token, 'GET', path);

    it("accepts the issuer's token for an admin, and a token of another tenant only ever sees that tenant", async () => {
      const ada = await issuer.mint({ tenant: 'acme', username: ADA.username, name: ADA.name });
      expect((await bearer(ada, '/v1/session')).body).toEqual({
        tenant: 'acme',
        user: { username: ADA.username, name: ADA.name },
        via: 'token',
        role: 'owner',
      });
      const bob = await issuer.mint({ tenant: 'globex', username: 'bob' });
      expect((await bearer(bob, '/v1/session')).body).toMatchObject({ tenant: 'globex', via: 'token', role: 'owner' });
      const servers = await bearer(bob, '/v1/servers');
      expect((servers.body.servers as Array<{ id: string }>).map((s) => s.id)).toEqual(['globex-srv']);
      expect((await bearer(bob, '/v1/servers/acme-srv')).status).toBe(404);
      expect((await bearer(bob, '/v1/servers/acme-srv/items')).status).toBe(404);
      expect(JSON.stringify((await bearer(bob, '/v1/audit')).body)).not.toMatch(/acme-srv|ada@acme/);
      // An API key still says so.
      expect((await bearer(keyAcme, '/v1/session')).body).toEqual({ tenant: 'acme', user: null, via: 'api_key', role: 'owner' });
    });

    it.each([
      ['a tid that is not the subject tenant', { tenant: 'acme', username: ADA.username, tid: 'globex' }],
      ['a subject naming no admin of the tid tenant', { tenant: 'globex', username: ADA.username }],
      ['another audience', { tenant: 'acme', username: ADA.username, audience: 'http://127.0.0.1:1/v1' }],
      ['another issuer', { tenant: 'acme', username: ADA.username, issuer: 'http://127.0.0.1:1/platform' }],
      ['a key not in the JWKS', { tenant: 'acme', username: ADA.username, foreignKey: true }],
      ['typ JWT', { tenant: 'acme', username: ADA.username, typ: 'JWT' }],
      ['no console scope', { tenant: 'acme', username: ADA.username, scope: 'openid' }],
      ['an expired token', { tenant: 'acme', username: ADA.username, expiresInSeconds: -120 }],
      ['a disabled admin', { tenant: 'acme', username: 'carol' }],
    ])('refuses a token with %s (401)', async (_what, claims) => {
      const res = await bearer(await issuer.mint(claims), '/v1/servers');
      expect(res.status).toBe(401);
      expect(res.body.error?.code).toBe('UNAUTHENTICATED');
    });

    it('refuses garbage and non-JWT bearer tokens (401)', async () => {
      for (const token of ['not-a-token', 'a.b.c', 'eyJhbGciOiJub25lIn0.eyJ0aWQiOiJhY21lIn0.'])
        expect((await bearer(token, '/v1/servers')).status).toBe(401);
      expect((await api(registry.url, undefined, 'GET', '/v1/session')).status).toBe(401);
    });
  });
});

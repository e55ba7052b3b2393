// SCIM 2.0 (issue 44 item 4) against the built registry on real Postgres: the filters and PATCH
// forms Okta and Entra ID send, pagination, SCIM-format errors, bounds, tenant isolation, and
// console admins following the groups the console SSO setting maps to roles.
import { startTestIdp, type TestIdp } from '../../auth/e2e/support/test-idp';
import { api, cleanRedis, createDatabase, createTenant, startRegistry, testEnv, type Proc } from './support/harness';

/** A SCIM answer as the tests read it (resources, list responses and errors share one loose shape). */
type ScimResource = Record<string, unknown> & { id: string; userName: string; members?: unknown[] };
type ScimBody = Record<string, unknown> & {
  id: string;
  active: boolean;
  totalResults: number;
  itemsPerPage: number;
  schemas: string[];
  Resources: ScimResource[];
};

jest.setTimeout(60_000);

const SCIM = 'application/scim+json';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';

describe('SCIM 2.0 endpoint', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let idp: TestIdp;
  let key: string;
  let otherKey: string;
  let token: string;
  let otherToken: string;

  const scim = async (method: string, path: string, body?: unknown, bearer = token, tenant = 'acme') => {
    const res = await fetch(`${registry.url}/scim/v2/${tenant}${path}`, {
      method,
      headers: { authorization: `Bearer ${bearer}`, ...(body !== undefined ? { 'content-type': SCIM } : {}) },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, type: res.headers.get('content-type') ?? '', body: (text ? JSON.parse(text) : {}) as ScimBody };
  };
  const patch = (path: string, ...ops: unknown[]) => scim('PATCH', path, { schemas: [PATCH_OP], Operations: ops });
  const newToken = async (k: string) => {
    const r = await api(registry.url, k, 'POST', '/v1/scim/tokens', { name: 'okta' });
    expect(r.status).toBe(201);
    return String(r.body.token);
  };

  beforeAll(async () => {
    db = await createDatabase();
    idp = await startTestIdp([
      { client_id: 'console', client_secret: 'console-secret', redirect_uris: ['http://127.0.0.1/console/sso/callback'] },
    ]);
    registry = await startRegistry(env, db.url, { REGISTRY_ALLOW_HTTP_HOSTS: 'localhost,127.0.0.1' });
    key = await createTenant(registry.url, env.operatorKey, 'acme');
    otherKey = await createTenant(registry.url, env.operatorKey, 'beta');
    token = await newToken(key);
    otherToken = await newToken(otherKey);
  });

  afterAll(async () => {
    await registry?.stop();
    await idp?.close();
    await db?.drop();
    await cleanRedis(env);
  });

  it('serves ServiceProviderConfig, ResourceTypes and Schemas to a token holder only', async () => {
    const spc = await scim('GET', '/ServiceProviderConfig');
    expect(spc.status).toBe(200);
    expect(spc.type).toContain(SCIM);
    expect(spc.body).toMatchObject({
      patch: { supported: true },
      filter: { supported: true, maxResults: 200 },
      bulk: { supported: false },
    });
    expect((await scim('GET', '/ResourceTypes')).body.Resources.map((r: { id: string }) => r.id)).toEqual(['User', 'Group']);
    expect((await scim('GET', '/Schemas')).body.Resources.map((r: { id: string }) => r.id)).toEqual([USER, GROUP]);
    const anon = await scim('GET', '/Users', undefined, 'scim_not-a-real-token-at-all-xxxxxxxx');
    expect(anon.status).toBe(401);
    expect(anon.body).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '401' });
  });

  it('refuses a token of another tenant as unknown', async () => {
    expect((await scim('GET', '/Users', undefined, otherToken)).status).toBe(401);
    expect((await scim('GET', '/Users', undefined, token, 'beta')).status).toBe(401);
  });

  it('creates users and finds them with the filters Okta and Entra ID send', async () => {
    const made = await scim('POST', '/Users', {
      schemas: [USER],
      userName: 'Alice@example.com',
      externalId: '00u-alice',
      name: { givenName: 'Alice', familyName: 'A' },
      emails: [{ primary: true, value: 'alice@example.com', type: 'work' }],
      active: true,
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      userName: 'Alice@example.com',
      externalId: '00u-alice',
      active: true,
      displayName: 'Alice A',
      emails: [{ value: 'alice@example.com' }],
    });
    await scim('POST', '/Users', { schemas: [USER], userName: 'bob@example.com', externalId: 'entra-bob' });
    // userName matches case-insensitively (RFC 7643 §4.1.1), externalId exactly.
    const byName = await scim('GET', `/Users?filter=${encodeURIComponent('userName eq "alice@example.com"')}`);
    expect(byName.body).toMatchObject({ totalResults: 1, Resources: [{ id: made.body.id }] });
    const byExt = await scim('GET', `/Users?filter=${encodeURIComponent('externalId eq "entra-bob"')}`);
    expect(byExt.body.Resources.map((u: { userName: string }) => u.userName)).toEqual(['bob@example.com']);
    const none = await scim('GET', `/Users?filter=${encodeURIComponent('userName eq "nobody@example.com"')}`);
    expect(none.body).toMatchObject({ totalResults: 0, Resources: [] });
    // The other tenant sees none of them.
    expect((await scim('GET', '/Users', undefined, otherToken, 'beta')).body.totalResults).toBe(0);
    // The console's directory shows them too.
    const listed = await api(registry.url, key, 'GET', '/v1/users');
    expect((listed.body.users as Array<{ username: string }>).map((u) => u.username)).toEqual(['Alice@example.com', 'bob@example.com']);
  });

  it('answers a taken userName and a bad filter in SCIM error format with scimType', async () => {
    const dup = await scim('POST', '/Users', { schemas: [USER], userName: 'bob@example.com' });
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ status: '409', scimType: 'uniqueness' });
    // userName is case-insensitive in SCIM: another casing is the same user.
    expect((await scim('POST', '/Users', { schemas: [USER], userName: 'BOB@example.com' })).body).toMatchObject({
      status: '409',
      scimType: 'uniqueness',
    });
    const bad = await scim('GET', `/Users?filter=${encodeURIComponent('userName co "bob"')}`);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ scimType: 'invalidFilter', detail: expect.stringContaining('filter') });
    const badName = await scim('POST', '/Users', { schemas: [USER], userName: 'has spaces' });
    expect(badName.body).toMatchObject({ status: '400', scimType: 'invalidValue', detail: expect.stringContaining('userName') });
    const notJson = await scim('POST', '/Users', '{nope');
    expect(notJson.status).toBe(400);
    expect(notJson.body.schemas).toEqual(['urn:ietf:params:scim:api:messages:2.0:Error']);
    expect((await scim('GET', '/Users/00000000-0000-0000-0000-000000000000')).status).toBe(404);
  });

  it('pages with startIndex and count, capping count at 200', async () => {
    for (const n of [1, 2, 3]) await scim('POST', '/Users', { schemas: [USER], userName: `page${n}@example.com` });
    const p = await scim('GET', '/Users?startIndex=2&count=2');
    expect(p.body).toMatchObject({ totalResults: 5, startIndex: 2, itemsPerPage: 2 });
    expect(p.body.Resources.map((u: { userName: string }) => u.userName)).toEqual(['bob@example.com', 'page1@example.com']);
    expect((await scim('GET', '/Users?count=100000')).body.itemsPerPage).toBe(5);
    expect((await scim('GET', '/Users?count=abc')).body).toMatchObject({ status: '400', scimType: 'invalidValue' });
  });

  it('applies PATCH operations in the forms Entra ID and Okta send', async () => {
    const id = (await scim('GET', `/Users?filter=${encodeURIComponent('userName eq "bob@example.com"')}`)).body.Resources[0].id as string;
    // Entra ID: capitalised op, path with a value filter, boolean as a string.
    const entra = await patch(
      `/Users/${id}`,
      { op: 'Add', path: 'emails[type eq "work"].value', value: 'bob@corp.example' },
      { op: 'Replace', path: 'name.givenName', value: 'Bob' },
      { op: 'Replace', path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department', value: 'Ops' },
    );
    expect(entra.status).toBe(200);
    expect(entra.body).toMatchObject({
      emails: [{ type: 'work', value: 'bob@corp.example' }],
      name: { givenName: 'Bob' },
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { department: 'Ops' },
    });
    // Okta: no path, an object value.
    const okta = await patch(`/Users/${id}`, { op: 'replace', value: { displayName: 'Robert', active: true } });
    expect(okta.body).toMatchObject({ displayName: 'Robert', active: true });
    const bad = await patch(`/Users/${id}`, { op: 'move', path: 'active', value: false });
    expect(bad.body).toMatchObject({ status: '400', scimType: 'invalidSyntax', detail: expect.stringContaining('Operations[0].op') });
    const badPath = await patch(`/Users/${id}`, { op: 'replace', path: 'emails[type co "x"]', value: 'x' });
    expect(badPath.body).toMatchObject({ status: '400', scimType: 'invalidPath' });
    const rename = await patch(`/Users/${id}`, { op: 'replace', path: 'userName', value: 'robert@example.com' });
    expect(rename.body).toMatchObject({ status: '400', scimType: 'mutability' });
    const tooMany = await scim('PATCH', `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: Array.from({ length: 101 }, () => ({ op: 'replace', path: 'displayName', value: 'x' })),
    });
    expect(tooMany.body).toMatchObject({ status: '400', scimType: 'tooMany' });
  });

  it('refuses a body over the SCIM limit with 413 in SCIM format', async () => {
    const huge = await scim('POST', '/Users', { schemas: [USER], userName: 'big@example.com', nickName: 'x'.repeat(300 * 1024) });
    expect(huge.status).toBe(413);
    expect(huge.body).toMatchObject({ status: '413', scimType: 'tooMany' });
    const bigAttrs = await scim('POST', '/Users', { schemas: [USER], userName: 'big@example.com', nickName: 'x'.repeat(20 * 1024) });
    expect(bigAttrs.body).toMatchObject({ status: '400', scimType: 'invalidValue', detail: expect.stringContaining('16384 bytes') });
  });

  it('makes members of mapped groups console admins with the strongest role, and takes it away with the membership', async () => {
    const sso = await api(registry.url, key, 'PUT', '/v1/console-sso', {
      issuer: idp.issuer,
      clientId: 'console',
      clientSecret: 'console-secret',
      roleMap: { 'Switchboard Admins': 'admin', 'Switchboard Viewers': 'viewer' },
    });
    expect(sso.status).toBe(200);
    const alice = (await scim('GET', `/Users?filter=${encodeURIComponent('externalId eq "00u-alice"')}`)).body.Resources[0].id as string;
    const viewers = await scim('POST', '/Groups', { schemas: [GROUP], displayName: 'Switchboard Viewers', members: [{ value: alice }] });
    expect(viewers.status).toBe(201);
    const role = async () =>
      (
        (await api(registry.url, key, 'GET', '/v1/admins')).body.admins as Array<{ username: string; role: string; disabled: boolean }>
      ).find((a) => a.username === 'Alice@example.com');
    expect(await role()).toMatchObject({ role: 'viewer', disabled: false });
    const admins = await scim('POST', '/Groups', { schemas: [GROUP], displayName: 'Switchboard Admins', externalId: 'grp-admins' });
    // Entra ID adds members with a path and an array value.
    expect((await patch(`/Groups/${admins.body.id}`, { op: 'Add', path: 'members', value: [{ value: alice }] })).status).toBe(200);
    expect(await role()).toMatchObject({ role: 'admin' });
    expect(
      (await scim('GET', `/Groups?filter=${encodeURIComponent('displayName eq "Switchboard Admins"')}`)).body.Resources[0].members,
    ).toEqual([expect.objectContaining({ value: alice })]);
    expect(
      (await scim('GET', `/Groups?excludedAttributes=members&filter=${encodeURIComponent('externalId eq "grp-admins"')}`)).body.Resources[0]
        .members,
    ).toBeUndefined();
    // Entra ID removes with a value filter in the path; Okta with a value array.
    await patch(`/Groups/${admins.body.id}`, { op: 'Remove', path: `members[value eq "${alice}"]` });
    expect(await role()).toMatchObject({ role: 'viewer' });
    await patch(`/Groups/${viewers.body.id}`, { op: 'remove', path: 'members', value: [{ value: alice }] });
    expect(await role()).toMatchObject({ disabled: true });
    const unknownMember = await patch(`/Groups/${viewers.body.id}`, {
      op: 'add',
      path: 'members',
      value: [{ value: '11111111-1111-1111-1111-111111111111' }],
    });
    expect(unknownMember.body).toMatchObject({ status: '400', scimType: 'invalidValue' });
  });

  it('deactivates with active=false (disabling the directory user and the SCIM-made admin) and deletes with DELETE; audits each change', async () => {
    const alice = (await scim('GET', `/Users?filter=${encodeURIComponent('externalId eq "00u-alice"')}`)).body.Resources[0].id as string;
    const admins = (await scim('GET', `/Groups?filter=${encodeURIComponent('displayName eq "Switchboard Admins"')}`)).body.Resources[0]
      .id as string;
    await patch(`/Groups/${admins}`, { op: 'add', path: 'members', value: [{ value: alice }] });
    const off = await patch(`/Users/${alice}`, { op: 'Replace', path: 'active', value: 'False' });
    expect(off.body.active).toBe(false);
    const dir = ((await api(registry.url, key, 'GET', '/v1/users')).body.users as Array<{ username: string; status: string }>).find(
      (u) => u.username === 'Alice@example.com',
    );
    expect(dir?.status).toBe('disabled');
    const admin = ((await api(registry.url, key, 'GET', '/v1/admins')).body.admins as Array<{ username: string; disabled: boolean }>).find(
      (a) => a.username === 'Alice@example.com',
    );
    expect(admin?.disabled).toBe(true);
    expect((await scim('DELETE', `/Users/${alice}`)).status).toBe(204);
    expect((await scim('GET', `/Users/${alice}`)).status).toBe(404);
    const audit = await api(registry.url, key, 'GET', '/v1/audit');
    const actions = (audit.body.entries as Array<{ action: string }>).map((e) => e.action);
    expect(actions).toEqual(
      expect.arrayContaining([
        'scim.user.create',
        'scim.user.update',
        'scim.user.deactivate',
        'scim.user.delete',
        'scim.group.create',
        'scim.group.members',
        'scim.admin.grant',
        'scim.admin.revoke',
      ]),
    );
  });

  it('stops accepting a revoked token', async () => {
    const list = await api(registry.url, key, 'GET', '/v1/scim/tokens');
    const id = (list.body.tokens as Array<{ id: string }>)[0].id;
    expect((await api(registry.url, key, 'DELETE', `/v1/scim/tokens/${id}`)).status).toBe(200);
    expect((await scim('GET', '/Users')).status).toBe(401);
  });
});

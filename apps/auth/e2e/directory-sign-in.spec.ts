import { Client } from 'pg';
import { api, decodeJwt, pollUntil, token } from '@switchboard/testing';
import { invite, redeem, setPassword, startDirectoryStack, startSignIn, submitSignIn, type DirectoryStack } from './support/directory';

const PASSWORD = 'correct horse battery staple';

/**
 * Issue 41 finding 1, attacked as a hostile end user would: in production (SWITCHBOARD_ENV is
 * not development) a tenant without an enterprise IdP signs people in from its user directory,
 * and typing someone else's name gets nothing.
 */
describe('tenant user directory sign-in (production mode)', () => {
  let stack: DirectoryStack;
  beforeAll(async () => {
    stack = await startDirectoryStack({
      SWITCHBOARD_ENV: 'production',
      CONSOLE_LOCKOUT_THRESHOLD: '3',
      CONSOLE_LOCKOUT_BASE_S: '60',
      CONSOLE_LOGIN_RATE_LIMIT_PER_MIN: '1000',
    });
    await setPassword(await invite(stack, 'alice'), PASSWORD);
  });
  afterAll(async () => stack?.close());

  it('shows no any-name form, and refuses a name typed without its password: no code, no token', async () => {
    const a = await startSignIn(stack.issuer);
    expect(a.html).toContain('name="password"');
    expect(a.html).not.toContain('Development login');
    expect(a.html).not.toContain('name="username"');
    // The old any-name endpoint, posted by hand with the victim's name.
    const devForm = { action: `${new URL(a.at).pathname}/login`, fields: {} };
    const res = await a.browser.postForm(new URL(devForm.action, a.at).href, { username: 'alice' });
    expect(res.status).toBe(403);
    expect(res.headers.get('location')).toBeNull();
    // The directory form with the victim's name and no (or a wrong) password.
    expect((await submitSignIn(a, /\/password$/, { user: 'alice', password: '' })).code).toBeUndefined();
    const wrong = await submitSignIn(a, /\/password$/, { user: 'alice', password: 'not-her-password' });
    expect(wrong.status).toBe(401);
    expect(wrong.code).toBeUndefined();
    expect(wrong.html).toContain('Unknown user name or wrong password.');
    // An unknown name gets the very same answer.
    const unknown = await submitSignIn(a, /\/password$/, { user: 'mallory', password: 'not-her-password' });
    expect([unknown.status, unknown.html.includes('Unknown user name or wrong password.')]).toEqual([401, true]);
  });

  it('signs a directory user in with their password; the subject names the identity source', async () => {
    const a = await startSignIn(stack.issuer);
    const ok = await submitSignIn(a, /\/password$/, { user: 'alice', password: PASSWORD });
    expect(ok.code).toEqual(expect.any(String));
    const t = await redeem(stack.issuer, a, ok.code ?? '');
    expect(t.status).toBe(200);
    expect(decodeJwt(String(t.body.access_token)).payload).toMatchObject({ sub: 'acme|dir|alice', tid: 'acme' });
  });

  it('locks an account after 3 wrong passwords: even the right one is refused with 429', async () => {
    await setPassword(await invite(stack, 'bob'), PASSWORD);
    const a = await startSignIn(stack.issuer);
    for (let i = 0; i < 3; i++)
      expect((await submitSignIn(a, /\/password$/, { user: 'bob', password: `guess-${i}-xxxxxxxx` })).status).toBe(401);
    const form = a.html;
    const locked = await submitSignIn({ ...a, html: form }, /\/password$/, { user: 'bob', password: PASSWORD });
    expect(locked.status).toBe(429);
    expect(locked.code).toBeUndefined();
    expect(locked.html).toMatch(/Too many failed sign-in attempts for this account/);
    // Another account is not locked by bob's failures.
    const b = await startSignIn(stack.issuer);
    expect((await submitSignIn(b, /\/password$/, { user: 'alice', password: PASSWORD })).code).toEqual(expect.any(String));
  });

  it('a reset link works once, replaces the password (ending older refresh tokens), and dies after use', async () => {
    await setPassword(await invite(stack, 'carol'), PASSWORD);
    // Carol is signed in somewhere (a refresh token) before the reset.
    const before = await startSignIn(stack.issuer);
    const signedIn = await submitSignIn(before, /\/password$/, { user: 'carol', password: PASSWORD });
    const tokens = await redeem(stack.issuer, before, signedIn.code ?? '');
    const refresh = String(tokens.body.refresh_token);
    // Token times are whole seconds: the reset must fall in a later second than the sign-in to be told apart.
    const iat = Number(decodeJwt(String(tokens.body.access_token)).payload.iat);
    await pollUntil('the next second', async () => Math.floor(Date.now() / 1000) > iat);
    const reset = await api(stack.registryUrl, stack.key, 'POST', '/v1/users/carol/reset-link');
    expect(reset.status).toBe(201);
    expect(reset.body).toMatchObject({ purpose: 'reset', url: expect.stringContaining('/t/acme/users/set-password?token=') });
    const link = String(reset.body.url);
    const first = await setPassword(link, 'a brand new passphrase');
    expect(first.status).toBe(200);
    expect(first.html).toContain('Your password is set');
    // The new password ends what the old one started.
    const old = await token(stack.issuer, { grant_type: 'refresh_token', refresh_token: refresh, client_id: before.clientId });
    expect([old.status, old.body.error]).toEqual([400, 'invalid_grant']);
    // Second use: the link is dead, and the password it would set does not work.
    const second = await setPassword(link, 'attacker chosen passphrase');
    expect(second.status).toBe(410);
    const a = await startSignIn(stack.issuer);
    expect((await submitSignIn(a, /\/password$/, { user: 'carol', password: 'attacker chosen passphrase' })).status).toBe(401);
    expect((await submitSignIn(a, /\/password$/, { user: 'carol', password: PASSWORD })).status).toBe(401);
    const b = await startSignIn(stack.issuer);
    expect((await submitSignIn(b, /\/password$/, { user: 'carol', password: 'a brand new passphrase' })).code).toEqual(expect.any(String));
  });

  it('a disabled user cannot sign in, and an invite link cannot be redeemed twice', async () => {
    const link = await invite(stack, 'dave');
    expect((await setPassword(link, PASSWORD)).status).toBe(200);
    expect((await setPassword(link, 'second use of an invite')).status).toBe(410);
    expect((await api(stack.registryUrl, stack.key, 'POST', '/v1/users/dave/disable')).body).toMatchObject({ status: 'disabled' });
    const a = await startSignIn(stack.issuer);
    expect((await submitSignIn(a, /\/password$/, { user: 'dave', password: PASSWORD })).status).toBe(401);
    expect((await api(stack.registryUrl, stack.key, 'POST', '/v1/users/dave/enable')).body).toMatchObject({ status: 'active' });
    const b = await startSignIn(stack.issuer);
    expect((await submitSignIn(b, /\/password$/, { user: 'dave', password: PASSWORD })).code).toEqual(expect.any(String));
  });

  it('disabling a user ends their refresh tokens and their session at the authorization server', async () => {
    await setPassword(await invite(stack, 'erin'), PASSWORD);
    const a = await startSignIn(stack.issuer);
    const signedIn = await submitSignIn(a, /\/password$/, { user: 'erin', password: PASSWORD });
    const t = await redeem(stack.issuer, a, signedIn.code ?? '');
    const refresh = String(t.body.refresh_token);
    const rotated = await token(stack.issuer, { grant_type: 'refresh_token', refresh_token: refresh, client_id: a.clientId });
    expect(rotated.status).toBe(200);
    await api(stack.registryUrl, stack.key, 'POST', '/v1/users/erin/disable');
    const refused = await token(stack.issuer, {
      grant_type: 'refresh_token',
      refresh_token: String(rotated.body.refresh_token),
      client_id: a.clientId,
    });
    expect([refused.status, refused.body.error]).toEqual([400, 'invalid_grant']);
    // The same browser is asked to sign in again instead of being let through on its session.
    const again = await startSignIn(stack.issuer, a.browser);
    expect(again.html).toContain('name="password"');
  });

  it('the connected-accounts page has no any-name sign-in either', async () => {
    const res = await fetch(`${stack.issuer}/account/connections/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'username=alice',
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('set-cookie')).toBeNull();
  });

  it('bounds what a tenant can store: 10 passkeys per user, 10,000 users per tenant', async () => {
    const internal = (path: string, body: unknown) =>
      fetch(`${stack.registryUrl}/internal/users/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.internalToken}` },
        body: JSON.stringify(body),
      });
    const passkey = (i: number) => ({
      tenant: 'acme',
      username: 'alice',
      credentialId: `credential-${i}`,
      publicKey: 'cHVibGljLWtleQ',
      counter: 0,
      transports: [],
      name: `Key ${i}`,
    });
    for (let i = 0; i < 10; i++) expect((await internal('passkeys/add', passkey(i))).status).toBe(201);
    const eleventh = await internal('passkeys/add', passkey(10));
    expect(eleventh.status).toBe(409);
    expect(((await eleventh.json()) as { error: { field: string } }).error.field).toBe('body.username');

    const pg = new Client({ connectionString: stack.databaseUrl });
    await pg.connect();
    try {
      const [{ n }] = (await pg.query<{ n: string }>("SELECT count(*) AS n FROM registry.tenant_users WHERE tenant_id = 'acme'")).rows;
      await pg.query(
        "INSERT INTO registry.tenant_users (tenant_id, username, created_by) SELECT 'acme', 'bulk' || i, 'test' FROM generate_series(1, $1) AS i",
        [10_000 - Number(n) - 1],
      );
    } finally {
      await pg.end();
    }
    expect((await api(stack.registryUrl, stack.key, 'POST', '/v1/users', { username: 'last-one' })).status).toBe(201);
    const full = await api(stack.registryUrl, stack.key, 'POST', '/v1/users', { username: 'one-too-many' });
    expect(full.status).toBe(409);
    expect(full.body.error).toMatchObject({
      code: 'CONFLICT',
      field: 'body.username',
      message: expect.stringContaining('at most 10000 users'),
    });
    // The list is paged by name: 1000 at most per answer, `next` continues.
    const first = await api(stack.registryUrl, stack.key, 'GET', '/v1/users?limit=1000');
    expect((first.body.users as unknown[]).length).toBe(1000);
    const second = await api(
      stack.registryUrl,
      stack.key,
      'GET',
      `/v1/users?limit=1000&after=${encodeURIComponent(String(first.body.next))}`,
    );
    expect((second.body.users as Array<{ username: string }>)[0]?.username > String(first.body.next)).toBe(true);
    expect((await api(stack.registryUrl, stack.key, 'GET', '/v1/users?limit=1001')).body.error).toMatchObject({
      code: 'VALIDATION',
      field: 'query.limit',
    });
  });

  it('answers bad admin input with 400/404/409 naming the field', async () => {
    expect((await api(stack.registryUrl, stack.key, 'POST', '/v1/users', { username: 'bad name' })).body.error).toMatchObject({
      code: 'VALIDATION',
      field: 'body.username',
    });
    expect((await api(stack.registryUrl, stack.key, 'POST', '/v1/users', { username: 'alice' })).body.error).toMatchObject({
      code: 'CONFLICT',
      field: 'body.username',
    });
    expect((await api(stack.registryUrl, stack.key, 'POST', '/v1/users/nobody/reset-link')).body.error).toMatchObject({
      code: 'NOT_FOUND',
      field: 'params.username',
    });
    const list = await api(stack.registryUrl, stack.key, 'GET', '/v1/users');
    expect((list.body.users as Array<{ username: string; status: string }>).map((u) => [u.username, u.status])).toEqual(
      expect.arrayContaining([['alice', 'active']]),
    );
    expect(JSON.stringify(list.body)).not.toMatch(/scrypt|password_hash/);
  });
});

describe('tenant user directory sign-in (development mode)', () => {
  let stack: DirectoryStack;
  beforeAll(async () => {
    stack = await startDirectoryStack({ SWITCHBOARD_ENV: 'development' });
  });
  afterAll(async () => stack?.close());

  it('keeps the any-name login, says so visibly, and namespaces its subjects apart from the directory', async () => {
    const a = await startSignIn(stack.issuer);
    expect(a.html).toContain('Development login');
    expect(a.html).toContain('any user name is accepted, with no password');
    expect(a.html).toContain('name="password"');
    const dev = await submitSignIn(a, /\/login$/, { username: 'alice' });
    const t = await redeem(stack.issuer, a, dev.code ?? '');
    expect(decodeJwt(String(t.body.access_token)).payload).toMatchObject({ sub: 'acme|local|alice' });
  });
});

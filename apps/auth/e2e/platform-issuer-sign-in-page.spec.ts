import { type TestAuth } from './support/auth-harness';
import { parseForm, TestBrowser } from '@switchboard/testing';
import { type StandInRegistry } from './support/registry-stand-in';

import { GENERIC, ALICE_PASSWORD, openLogin, submit, inputValue, inputTag, startConsoleIssuer } from './support/console-sign-in';

// The console's sign-in form itself: what it shows, keeps and refuses.
describe('platform issuer sign-in page', () => {
  let registry: StandInRegistry;
  let auth: TestAuth;
  let issuer: string;

  beforeAll(async () => {
    ({ registry, auth, issuer } = await startConsoleIssuer());
  });
  afterAll(async () => {
    await auth?.close();
    await registry?.close();
  });
  beforeEach(() => {
    registry.calls.length = 0;
  });

  it('is labelled, autofills and focuses the first empty field', async () => {
    const page = await openLogin(new TestBrowser(), issuer);
    expect(page.res.status).toBe(200);
    expect(page.res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.html).toContain('<html lang="en">');
    for (const f of ['workspace', 'username', 'password']) expect(page.html).toContain(`<label for="${f}">`);
    expect(inputTag(page.html, 'username')).toContain('autocomplete="username"');
    expect(inputTag(page.html, 'password')).toContain('autocomplete="current-password"');
    expect(inputTag(page.html, 'password')).toContain('type="password"');
    expect(inputTag(page.html, 'workspace')).toContain('autofocus');
    expect(page.html).not.toContain('role="alert"');
    expect(parseForm(page.html, /\/login$/).fields.csrf).toEqual(expect.any(String));
  });

  it('prefills the workspace from a valid login_hint and focuses the user name', async () => {
    const page = await openLogin(new TestBrowser(), issuer, { extra: { login_hint: 'acme' } });
    expect(inputValue(page.html, 'workspace')).toBe('acme');
    expect(inputTag(page.html, 'username')).toContain('autofocus');
    expect(inputTag(page.html, 'workspace')).not.toContain('autofocus');
  });

  it('ignores a login_hint that is not a tenant id', async () => {
    const page = await openLogin(new TestBrowser(), issuer, { extra: { login_hint: 'alice@acme.example' } });
    expect(inputValue(page.html, 'workspace')).toBeUndefined();
  });

  it('refuses a wrong password with 401 and the generic message, keeping workspace and user name', async () => {
    const browser = new TestBrowser();
    const page = await openLogin(browser, issuer);
    const res = await submit(browser, page, { workspace: 'acme', username: 'alice', password: 'wrong' });
    expect(res.res.status).toBe(401);
    expect(res.html).toContain(`role="alert">${GENERIC}</p>`);
    expect(inputValue(res.html, 'workspace')).toBe('acme');
    expect(inputValue(res.html, 'username')).toBe('alice');
    expect(inputValue(res.html, 'password')).toBeUndefined();
    expect(inputTag(res.html, 'password')).toContain('autofocus');
    expect(registry.calls.map((c) => c.body)).toEqual([{ tenant: 'acme', username: 'alice', password: 'wrong' }]);
    // A second try from the re-rendered form works.
    const ok = await submit(browser, res, { workspace: 'acme', username: 'alice', password: ALICE_PASSWORD });
    expect(ok.res.status).toBe(303);
  });

  it('answers an unknown workspace and an unknown user exactly like a wrong password', async () => {
    for (const [workspace, username] of [
      ['nosuch', 'alice'],
      ['acme', 'mallory'],
    ] as const) {
      const browser = new TestBrowser();
      const res = await submit(browser, await openLogin(browser, issuer), { workspace, username, password: ALICE_PASSWORD });
      expect(res.res.status).toBe(401);
      expect(res.html).toContain(GENERIC);
    }
  });

  it.each([
    ['workspace', { workspace: 'Acme Corp', username: 'alice', password: 'x' }, 'Workspace must be'],
    ['workspace', { workspace: '', username: 'alice', password: 'x' }, 'Enter your workspace id.'],
    ['username', { workspace: 'acme', username: 'alice|admin', password: 'x' }, 'User name must be'],
    ['password', { workspace: 'acme', username: 'alice', password: '' }, 'Enter your password.'],
    ['password', { workspace: 'acme', username: 'alice', password: 'p'.repeat(1025) }, 'Password must be at most 1024 characters.'],
    ['password', { workspace: 'acme', username: 'alice', password: 'pass\u0000word' }, 'Password cannot contain a NUL character.'],
  ])('refuses an invalid %s with 400 and a field message, without asking the registry', async (field, fields, message) => {
    const browser = new TestBrowser();
    const res = await submit(browser, await openLogin(browser, issuer), fields);
    expect(res.res.status).toBe(400);
    expect(res.html).toContain(`<p class="field-error" id="${field}-error">${message}`);
    expect(inputTag(res.html, field)).toContain('aria-invalid="true"');
    expect(inputTag(res.html, field)).toContain(`${field}-error`);
    expect(inputTag(res.html, field)).toContain('autofocus');
    expect(res.html).toContain('role="alert"');
    expect(inputValue(res.html, 'password')).toBeUndefined();
    expect(registry.calls).toEqual([]);
  });

  it('refuses a form without its CSRF token', async () => {
    const browser = new TestBrowser();
    const page = await openLogin(browser, issuer);
    const res = await submit(browser, page, { csrf: 'forged', workspace: 'acme', username: 'alice', password: ALICE_PASSWORD });
    expect(res.res.status).toBe(400);
    expect(registry.calls).toEqual([]);
  });

  it('refuses a sign-in posted from another browser', async () => {
    const page = await openLogin(new TestBrowser(), issuer);
    const res = await submit(new TestBrowser(), page, { workspace: 'acme', username: 'alice', password: ALICE_PASSWORD });
    expect(res.res.status).toBe(400);
    expect(registry.calls).toEqual([]);
  });

  it('says sign-in is unavailable (503) when the registry fails', async () => {
    registry.mode = 'down';
    try {
      const browser = new TestBrowser();
      const res = await submit(browser, await openLogin(browser, issuer), {
        workspace: 'acme',
        username: 'alice',
        password: ALICE_PASSWORD,
      });
      expect(res.res.status).toBe(503);
      expect(res.html).toContain('role="alert">Sign-in is temporarily unavailable; try again.');
      expect(inputValue(res.html, 'username')).toBe('alice');
    } finally {
      registry.mode = 'up';
    }
  });
});

// Console sign-in in Chromium (issues 7 and 47): a failed round trip explained, bad input beside its
// field, and the platform sign-in in one step — the workspace typed once at the console, carried to
// the real apps/auth platform issuer as login_hint and shown there, not asked again — on a page
// branded like the console (its mark, colours and type; no script). Then a session, and sign-out.
// Test-only cross-app import: the real auth service, booted the way its own e2e tests boot it.
import { startAuth } from '../../auth/e2e/support/auth-harness';
import { expectFieldError, expectIntact, focusedId } from './support/console-browser';
import { ADA, startConsoleJourney, type ConsoleJourney } from './support/console-journey';

jest.setTimeout(90_000);

describe('console sign-in through the platform issuer, in Chromium', () => {
  let j: ConsoleJourney;

  beforeAll(async () => {
    j = await startConsoleJourney(startAuth);
  });

  afterAll(async () => {
    await j?.close();
  });

  const page = () => j.b.page;

  it('explains a failed round trip (?signin_error=), and shows an unknown one as text', async () => {
    const p = page();
    await p.goto(`${j.registry.url}/console/?signin_error=state_mismatch`);
    await p.getByTestId('signin-error').getByText('Sign-in could not be verified').waitFor();
    // Read once and removed from the address bar.
    expect(new URL(p.url()).search).toBe('');
    await p.goto(`${j.registry.url}/console/?signin_error=${encodeURIComponent('<img src=x onerror=alert(1)>')}`);
    await p.getByTestId('signin-error').getByText('The sign-in did not complete (<img src=x onerror=alert(1)>). Try again.').waitFor();
    await expectIntact(j.b);
  });

  it('refuses a bad workspace and bad API keys beside their fields, without leaving the page', async () => {
    const p = page();
    await p.goto(`${j.registry.url}/console/`);
    await p.getByRole('heading', { name: 'Sign in to the Switchboard console' }).waitFor();
    // Platform OAuth is offered (GET /console/auth.json): the workspace form comes first.
    await p.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expectFieldError(p, 'workspace', /Enter your workspace id/);
    expect(await focusedId(p, 'workspace')).toBe('workspace');
    await p.getByLabel('Workspace').fill('Not A Workspace!');
    await p.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expectFieldError(p, 'workspace', /not a workspace id/);
    await j.b.shot('sign-in-workspace-error');

    await p.getByRole('button', { name: 'Use an API key instead' }).click();
    await p.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expectFieldError(p, 'apiKey', /Enter your tenant API key/);
    // Characters no HTTP header can carry: refused here, not reported as an unreachable registry.
    await p.getByLabel('Tenant API key').fill('sbk_ключ');
    await p.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expectFieldError(p, 'apiKey', /not an API key/);
    // The registry's refusal (401) of a well-formed key.
    await p.getByLabel('Tenant API key').fill('sbk_wrong');
    await p.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expectFieldError(p, 'apiKey', /not accepted/);
    expect(await focusedId(p, 'apiKey')).toBe('apiKey');
    await j.b.shot('sign-in-api-key-error');
    await p.getByRole('button', { name: 'Use your platform account instead' }).click();
    await p.getByLabel('Workspace').fill('acme');
    await j.b.shot('sign-in');
    await expectIntact(j.b);
  });

  it('asks for the workspace once: the issuer shows it, branded like the console, and asks only for user name and password', async () => {
    const p = page();
    await p.getByRole('button', { name: 'Sign in', exact: true }).click();
    // The browser is at the real apps/auth platform issuer now, the workspace carried by login_hint.
    await p.waitForURL((u) => u.href.startsWith(`${j.auth.baseUrl}/platform/interaction/`));
    await p.getByRole('heading', { name: 'Sign in to the Switchboard console' }).waitFor();
    expect(await p.locator('#workspace-fixed').textContent()).toBe('Workspace acmeUse another workspace');
    expect(await p.getByRole('textbox', { name: 'Workspace' }).count()).toBe(0);
    expect(await focusedId(p, 'username')).toBe('username');
    // The console's look: its mark, accent, background and type; and no script at all (the CSP allows none).
    expect(await p.locator('header svg.mark').count()).toBe(1);
    // A string: the spec is typed without the DOM library.
    const look = await p.evaluate(`(() => {
      const css = (sel, prop) => getComputedStyle(document.querySelector(sel)).getPropertyValue(prop);
      return { button: css('button[type=submit]', 'background-color'), body: css('html', 'background-color'), font: css('html', 'font-family'), scripts: document.scripts.length };
    })()`);
    expect(look).toEqual({ button: 'rgb(11, 92, 173)', body: 'rgb(246, 248, 250)', font: expect.stringMatching(/^system-ui/), scripts: 0 });
    await j.b.shot('auth-sign-in');
    await p.setViewportSize({ width: 800, height: 800 });
    await j.b.shot('auth-sign-in-800');
    await p.setViewportSize({ width: 1280, height: 800 });

    // Another workspace can still be typed, on the same page.
    await p.getByRole('link', { name: 'Use another workspace' }).click();
    await p.getByLabel('Workspace').waitFor();
    expect(await p.getByLabel('Workspace').inputValue()).toBe('');
    expect(await focusedId(p, 'workspace')).toBe('workspace');
    await p.getByLabel('Workspace').fill('acme');
    await expectIntact(j.b);
  });

  it("checks the issuer's fields, refuses a wrong password with one message, then opens the session", async () => {
    const p = page();
    // The issuer checks its fields before asking the registry: the message sits beside the field.
    await p.getByLabel('User name').fill('has space');
    await p.getByLabel('Password').fill('whatever');
    await p.getByRole('button', { name: 'Sign in' }).click();
    await expectFieldError(p, 'username', /User name must be 1 to 64 characters/);
    // The workspace is valid: it stays shown, not asked again.
    await p.locator('#workspace-fixed').getByText('acme').waitFor();
    await j.b.shot('auth-sign-in-field-error');
    // A wrong password is checked by the registry's verify-login and refused with one generic message.
    await p.getByLabel('User name').fill(ADA.username);
    await p.getByLabel('Password').fill('not the password at all');
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.getByRole('alert').getByText('Unknown workspace, user name or password.').waitFor();
    expect(p.url().startsWith(j.auth.baseUrl)).toBe(true);

    await p.getByLabel('Password').fill(ADA.password);
    await p.getByRole('button', { name: 'Sign in' }).click();
    // Back at the console (/console/#/home → /console/home) with a session cookie.
    await p.waitForURL(`${j.registry.url}/console/home`);
    await p.getByTestId('signed-in-as').getByText(`Signed in as ${ADA.name}`).waitFor();
    await p.getByTestId('tenant-name').getByText('Tenant acme').waitFor();
    const cookies = await j.b.context.cookies(j.registry.url);
    const session = cookies.find((c) => c.name === 'sb_console');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    // The browser holds no token: no API key in the tab, only the HttpOnly cookie.
    expect(await p.evaluate('sessionStorage.length')).toBe(0);
    await expectIntact(j.b);
  });

  it('signs out: the session cookie is gone and the console asks to sign in again', async () => {
    const p = page();
    await p.getByRole('button', { name: 'Sign out' }).click();
    await p.getByRole('heading', { name: 'Sign in to the Switchboard console' }).waitFor();
    expect((await j.b.context.cookies(j.registry.url)).map((c) => c.name)).not.toContain('sb_console');
    await p.reload();
    await p.getByRole('heading', { name: 'Sign in to the Switchboard console' }).waitFor();
    expect(j.b.problems).toEqual([]);
  });
});

// Bad input in the console's sign-in and register forms, in Chromium (issue 7): each refusal — the
// registry's field-level error, or the console's own check where nothing is sent — sits beside its
// field (aria-describedby names it, aria-invalid is set), focus moves to the first invalid field, and
// the page keeps rendering. Hostile input (markup, huge, NUL, RTL override, prototype keys…) is typed
// into every field. The register form's URL is also checked live (POST /v1/servers/check).
// Shared setup and the hostile values: support/console-forms.ts.
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expectFieldError, expectIntact, expectNoFieldError, focusedId, freePort } from './support/console-browser';
import { eachHostile, formHelpers, startFormsStack, type FormsStack } from './support/console-forms';
import { api } from './support/harness';

jest.setTimeout(120_000);

describe('console forms in Chromium: sign-in and registering a server', () => {
  let s: FormsStack;
  let b: FormsStack['b'];
  let p: FormsStack['p'];
  let registry: FormsStack['registry'];
  let upstream: FormsStack['upstream'];
  let key: string;
  let h: ReturnType<typeof formHelpers>;

  beforeAll(async () => {
    s = await startFormsStack();
    ({ b, p, registry, upstream, key } = s);
    h = formHelpers(p);
  });

  afterAll(async () => {
    await s?.close();
  });

  const nav = (label: string) => h.nav(label);
  const submit = (name: string) => h.submit(name);
  const heading = (name: string) => h.heading(name);
  const fresh = (label: string) => h.fresh(label);

  describe('sign-in (API key)', () => {
    it('refuses an empty key, a key no header can carry and a wrong key beside the field', async () => {
      await p.goto(`${registry.url}/console/`);
      await p.getByRole('heading', { name: 'Sign in to the Switchboard console' }).waitFor();
      // The registry offers no platform sign-in here, so there is nothing to switch to.
      expect(await p.getByRole('button', { name: /Use your platform account/ }).count()).toBe(0);
      await submit('Sign in');
      await expectFieldError(p, 'apiKey', /Enter your tenant API key/);
      expect(await focusedId(p, 'apiKey')).toBe('apiKey');
      await p.getByLabel('Tenant API key').fill('sbk_ключ\n');
      await submit('Sign in');
      await expectFieldError(p, 'apiKey', /not an API key/);
      await p.getByLabel('Tenant API key').fill('sbk_wrong');
      await submit('Sign in');
      await expectFieldError(p, 'apiKey', /not accepted/);
      await expectIntact(b);
    });

    it('survives hostile keys', async () => {
      await eachHostile(async (value) => {
        await p.reload();
        await heading('Sign in to the Switchboard console');
        await p.getByLabel('Tenant API key').fill(value);
        await submit('Sign in');
        await p.locator('[id="apiKey-error"], .error-box').first().waitFor();
        await expectIntact(b);
      });
    });

    it('signs in with the right key', async () => {
      await p.getByLabel('Tenant API key').fill(key);
      await submit('Sign in');
      await p.getByTestId('signed-in-as').getByText('Signed in with an API key').waitFor();
      await p.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
      await nav('Servers');
      await p.getByRole('heading', { name: 'Servers', level: 1 }).waitFor();
    });
  });

  describe('Servers: register', () => {
    const fill = async (id: string, url: string, name = '') => {
      await p.getByLabel('Server id').fill(id);
      await p.getByLabel('Display name').fill(name);
      await p.getByLabel('MCP URL').fill(url);
    };

    it('an empty form: both required fields marked, focus on the first', async () => {
      await submit('Register and discover');
      await expectFieldError(p, 'srv-id', /Enter an id/);
      await expectFieldError(p, 'srv-url', /Enter the URL/);
      expect(await focusedId(p, 'srv-id')).toBe('srv-id');
      await expectIntact(b);
    });

    it.each([
      ['a bad id', 'Bad Id!', 'url', '', 'srv-id', /must be 1-32 chars of a-z 0-9 _ -/],
      [
        'a refused URL (cloud metadata address)',
        'docs',
        'http://169.254.169.254/mcp',
        '',
        'srv-url',
        /not allowed for host 169\.254\.169\.254/,
      ],
      ['a private address', 'docs', 'https://10.0.0.1/mcp', '', 'srv-url', /private/],
      ['a non-http scheme', 'docs', 'javascript:alert(1)', '', 'srv-url', /scheme javascript: is not allowed/],
      ['something that is not a URL', 'docs', 'not a url', '', 'srv-url', /url/i],
      ['a display name over 120 characters', 'docs', 'url', 'n'.repeat(121), 'srv-name', /120/],
      ['a NUL character in the display name', 'docs', 'url', 'Do\u0000cs', 'srv-name', /must not contain NUL/],
    ])('%s: the API refusal sits under that field, which gets focus', async (_what, id, url, name, field, message) => {
      await fill(id, url === 'url' ? upstream.url : url, name);
      await submit('Register and discover');
      await expectFieldError(p, field, message);
      expect(await focusedId(p, field)).toBe(field);
      for (const other of ['srv-id', 'srv-name', 'srv-url'].filter((f) => f !== field)) await expectNoFieldError(p, other);
      await expectIntact(b);
    });

    it('bearer and header modes: a missing secret or header name is caught before sending; a bad header name or token is refused by the API beside it', async () => {
      await fill('docs', upstream.url);
      const mode = p.getByLabel('Authentication');
      await mode.selectOption('bearer');
      await submit('Register and discover');
      await expectFieldError(p, 'srv-auth-token', /Enter the token/);
      expect(await focusedId(p, 'srv-auth-token')).toBe('srv-auth-token');
      await p.getByLabel('Bearer token').fill('tok\u0435n-with-cyrillic-е');
      await submit('Register and discover');
      await expectFieldError(p, 'srv-auth-token', /printable ASCII/);

      await mode.selectOption('header');
      await submit('Register and discover');
      await expectFieldError(p, 'srv-auth-header', /Enter the header name/);
      await expectFieldError(p, 'srv-auth-value', /Enter the header value/);
      await p.getByLabel('Header name').fill('X Bad Header');
      await p.getByLabel('Header value').fill('secret');
      await submit('Register and discover');
      await expectFieldError(p, 'srv-auth-header', /must be an HTTP header name/);
      expect(await focusedId(p, 'srv-auth-header')).toBe('srv-auth-header');
      await expectNoFieldError(p, 'srv-auth-value');

      await mode.selectOption('oauth_client_credentials');
      await submit('Register and discover');
      await expectFieldError(p, 'srv-auth-tokenUrl', /Enter the token endpoint URL/);
      await expectFieldError(p, 'srv-auth-clientSecret', /Enter the client secret/);
      await p.getByLabel('Token URL').fill('no-url');
      await p.getByLabel('Client id').fill('client');
      await p.getByLabel('Client secret').fill('secret');
      await submit('Register and discover');
      await expectFieldError(p, 'srv-auth-tokenUrl', /url/i);

      await mode.selectOption('oauth_user');
      await p.getByLabel('Authorization server (optional)').fill('nope');
      await submit('Register and discover');
      await expectFieldError(p, 'srv-auth-authorizationServer', /url/i);
      await b.shot('forms-servers-register-errors');
      await mode.selectOption('none');
      await expectIntact(b);
    });

    it('registers the server, then refuses the same id again (409) beside the id', async () => {
      await fill('docs', upstream.url, 'Docs');
      await submit('Register and discover');
      await p.getByTestId('server-docs-status').getByText('Healthy').waitFor({ timeout: 20_000 });
      await fill('docs', upstream.url);
      await submit('Register and discover');
      await expectFieldError(p, 'srv-id', /server "docs" already exists/);
      await expectIntact(b);
    });

    it('survives hostile input in every field', async () => {
      await eachHostile(async (value) => {
        await fresh('Servers');
        await fill(value, value, value);
        await submit('Register and discover');
        await p.locator('.field-error, .error-box').first().waitFor();
        await expectIntact(b);
        expect(await p.getByTestId('servers-table').locator('li.server').count()).toBe(1);
      });
    });
  });

  describe('Servers: live URL check while registering', () => {
    const url = () => p.getByLabel('MCP URL');
    const status = () => p.getByTestId('srv-url-check');
    const checkRequest = (target: string) =>
      p.waitForResponse((r) => r.url().endsWith('/v1/servers/check') && JSON.parse(r.request().postData() ?? '{}').url === target);
    const registered = async () =>
      ((await api(registry.url, key, 'GET', '/v1/servers')).body.servers as Array<{ id: string }>).map((s) => s.id);
    // An MCP endpoint behind a credential: every request gets the 401 challenge (and is recorded).
    let locked: HttpServer;
    let lockedUrl: string;
    const lockedAuth: string[] = [];

    beforeAll(async () => {
      locked = createHttpServer((req, res) => {
        lockedAuth.push(req.headers.authorization ?? '');
        res.writeHead(401, { 'www-authenticate': 'Bearer realm="mcp"', 'content-type': 'application/json' });
        res.end('{"error":"invalid_token"}');
      });
      await new Promise<void>((resolve) => locked.listen(0, '127.0.0.1', resolve));
      lockedUrl = `http://localhost:${(locked.address() as AddressInfo).port}/mcp`;
    });

    afterAll(async () => {
      await new Promise<void>((resolve) => (locked ? locked.close(() => resolve()) : resolve()));
    });

    it("leaving the URL field with the SDK-built server's URL says what answers there (name, version, protocol, its tools); checking never blocks registering, and nothing is stored", async () => {
      await fresh('Servers');
      const before = await registered();
      // The upstream holds every request until released: the check is visibly in flight.
      upstream.hold();
      try {
        await url().fill(upstream.url);
        await url().press('Tab');
        await status()
          .getByText(/Checking…/)
          .waitFor();
        expect(await status().getAttribute('aria-busy')).toBe('true');
        expect(await status().getAttribute('role')).toBe('status');
        expect((await url().getAttribute('aria-describedby'))?.split(' ')).toContain('srv-url-check');
        expect(await p.getByRole('button', { name: 'Register and discover', exact: true }).isEnabled()).toBe(true);
        // Tab from the URL field lands on the "Check URL" button: the check works from the keyboard.
        expect(await p.locator(':focus').textContent()).toBe('Check URL');
      } finally {
        upstream.release();
      }
      await status()
        .getByText(
          /^✓ MCP server found — docs 1\.0\.0 · speaks \d{4}-\d{2}-\d{2} \((modern|legacy), streamable-http\) · 1 tool: search_docs$/,
        )
        .waitFor();
      expect(await status().getAttribute('aria-busy')).toBe('false');
      await expectNoFieldError(p, 'srv-url');
      await b.shot('forms-servers-url-check-found');
      expect(await registered()).toEqual(before);
      await expectIntact(b);
    });

    it('169.254.169.254 (cloud metadata): the URL_REFUSED field error under the URL field before submitting, focus left where it went', async () => {
      await fresh('Servers');
      const before = await registered();
      await url().fill('http://169.254.169.254/latest/meta-data/');
      await url().press('Tab');
      await expectFieldError(p, 'srv-url', /not allowed for host 169\.254\.169\.254/);
      await status()
        .getByText(/Not checked: the URL was refused/)
        .waitFor();
      expect(await p.locator(':focus').textContent()).toBe('Check URL');
      await b.shot('forms-servers-url-check-refused');
      // Fixing the URL clears the refusal (it is about a URL no longer in the field).
      await url().fill(upstream.url);
      await expectNoFieldError(p, 'srv-url');
      expect(await registered()).toEqual(before);
      await expectIntact(b);
    });

    it('a closed port: "not reachable" with what to check; the "Check URL" button runs it again from the keyboard', async () => {
      await fresh('Servers');
      const closed = `http://localhost:${await freePort()}/mcp`;
      await url().fill(closed);
      await url().press('Tab');
      await status()
        .getByText(/^✗ Not reachable — Could not connect:.* Check the host and port/)
        .waitFor();
      await expectNoFieldError(p, 'srv-url');
      // Focus is on the button; Enter checks again.
      const again = checkRequest(closed);
      await p.keyboard.press('Enter');
      expect((await again).status()).toBe(200);
      await status()
        .getByText(/^✗ Not reachable/)
        .waitFor();
      await expectIntact(b);
    });

    it('a server that wants a credential says so; the check then sends the chosen bearer token for that request only', async () => {
      await fresh('Servers');
      await url().fill(lockedUrl);
      await url().press('Tab');
      await status().getByText('✗ The server needs a credential — choose its authentication below, then check again.').waitFor();
      expect(lockedAuth.every((a) => a === '')).toBe(true);
      await p.getByLabel('Authentication').selectOption('bearer');
      await p.getByLabel('Bearer token').fill('upstream-token-1');
      lockedAuth.length = 0;
      await p.getByRole('button', { name: 'Check URL' }).click();
      await status()
        .getByText(/^✗ The server refused the credential/)
        .waitFor();
      expect(new Set(lockedAuth)).toEqual(new Set(['Bearer upstream-token-1']));
      expect(await registered()).not.toContain('locked');
      await expectIntact(b);
    });

    it('an answer about a URL no longer in the field is never shown under it', async () => {
      await fresh('Servers');
      upstream.hold();
      let stale: ReturnType<typeof checkRequest> | undefined;
      try {
        await url().fill(upstream.url);
        await url().press('Tab');
        await status()
          .getByText(/Checking…/)
          .waitFor();
        stale = checkRequest(upstream.url);
        await url().fill('http://169.254.169.254/mcp');
        await url().press('Tab');
        await expectFieldError(p, 'srv-url', /169\.254\.169\.254/);
      } finally {
        upstream.release();
      }
      await (await stale)?.finished();
      // Let the page handle that answer (a frame, then its task queue) before looking.
      await p.evaluate('new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)))');
      expect(await status().textContent()).not.toMatch(/MCP server found/);
      await expectFieldError(p, 'srv-url', /169\.254\.169\.254/);
      await expectIntact(b);
    });
  });
});

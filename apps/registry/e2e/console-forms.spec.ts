// Bad input in every console form, in Chromium (issue 7): each refusal — the registry's field-level
// error, or the console's own check where nothing is sent — sits beside its field (the control's
// aria-describedby names it, it is in the control's own container, aria-invalid is set), focus moves
// to the first invalid field, and the page keeps rendering: no error-boundary fallback, no uncaught
// error, no console error, no 5xx, no dialog. Then hostile input (markup, huge, NUL, RTL override,
// prototype keys…) is typed into every field of every form: whatever is typed, the page survives.
// The register form's URL is also checked live (POST /v1/servers/check) when the field is left.
// The Settings form (PATCH /v1/tenant) too: list entries refused by index land on their textarea with
// the line number, surface rules are parsed before sending. The Preview page's only control is a
// select of fixed protocol versions.
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { expectFieldError, expectIntact, expectNoFieldError, focusedId, freePort, openConsoleBrowser, openTool, type ConsoleBrowser } from './support/console-browser';
import { startDocsUpstream } from './support/docs-upstream';
import { api, cleanRedis, createDatabase, createTenant, registerAndDiscover, startRegistry, testEnv, type Proc } from './support/harness';

jest.setTimeout(120_000);

/** What people paste: markup, injection attempts, emoji and bidi overrides, huge values, blanks, prototype keys, NUL, paths. */
const HOSTILE = [
  '<img src=x onerror=alert(1)><script>alert(2)</script>',
  '😀 ünïcødé \u202Eevil',
  'x'.repeat(5000),
  // Short enough for most limits, one unbreakable word where a message echoes it.
  'w'.repeat(150),
  ' \t ',
  '__proto__',
  'a\u0000b',
  '{"$ne":null} \'; DROP TABLE registry.servers; --',
  '../../etc/passwd%00%0d%0a',
];
const show = (s: string) => JSON.stringify(s.length > 40 ? `${s.slice(0, 20)}…(${s.length})` : s);

/** Runs `fn` for each hostile value; a failure names the value it failed with. */
async function eachHostile(fn: (value: string) => Promise<void>): Promise<void> {
  for (const value of HOSTILE) {
    try {
      await fn(value);
    } catch (err) {
      throw new Error(`with ${show(value)}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }
}

describe('console forms in Chromium: bad input shows beside its field, and nothing typed breaks a page', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let upstream: Awaited<ReturnType<typeof startDocsUpstream>>;
  let key: string;
  let b: ConsoleBrowser;
  let p: Page;

  beforeAll(async () => {
    b = await openConsoleBrowser();
    p = b.page;
    db = await createDatabase();
    upstream = await startDocsUpstream();
    // No CONSOLE_ISSUER: only the API-key form. No gateway either (a closed port): nothing here needs one.
    registry = await startRegistry(env, db.url, { GATEWAY_PUBLIC_URL: `http://127.0.0.1:${await freePort()}` });
    key = await createTenant(registry.url, env.operatorKey, 'acme');
  });

  afterAll(async () => {
    await b?.close();
    await registry?.stop();
    await upstream?.close();
    await db?.drop();
    await cleanRedis(env);
  });

  const nav = (label: string) => p.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: label, exact: true }).click();
  const submit = (name: string) => p.getByRole('button', { name, exact: true }).click();
  const heading = (name: string) => p.getByRole('heading', { name, exact: true, level: 1 }).waitFor();
  /** A fresh copy of a console page (remounted: no state left from an earlier submit), by way of another page. */
  const fresh = async (label: string) => {
    const other = label === 'Connect' ? 'Activity' : 'Connect';
    await nav(other);
    await heading(other);
    await nav(label);
    await heading(label);
  };

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
      ['a refused URL (cloud metadata address)', 'docs', 'http://169.254.169.254/mcp', '', 'srv-url', /not allowed for host 169\.254\.169\.254/],
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
    const checkRequest = (target: string) => p.waitForResponse((r) => r.url().endsWith('/v1/servers/check') && JSON.parse(r.request().postData() ?? '{}').url === target);
    const registered = async () => ((await api(registry.url, key, 'GET', '/v1/servers')).body.servers as Array<{ id: string }>).map((s) => s.id);
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
        await status().getByText(/Checking…/).waitFor();
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
        .getByText(/^✓ MCP server found — docs 1\.0\.0 · speaks \d{4}-\d{2}-\d{2} \((modern|legacy), streamable-http\) · 1 tool: search_docs$/)
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
      await status().getByText(/Not checked: the URL was refused/).waitFor();
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
      await status().getByText(/^✗ Not reachable — Could not connect:.* Check the host and port/).waitFor();
      await expectNoFieldError(p, 'srv-url');
      // Focus is on the button; Enter checks again.
      const again = checkRequest(closed);
      await p.keyboard.press('Enter');
      expect((await again).status()).toBe(200);
      await status().getByText(/^✗ Not reachable/).waitFor();
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
      await status().getByText(/^✗ The server refused the credential/).waitFor();
      expect(new Set(lockedAuth)).toEqual(new Set(['Bearer upstream-token-1']));
      expect(await registered()).not.toContain('locked');
      await expectIntact(b);
    });

    it("an answer about a URL no longer in the field is never shown under it", async () => {
      await fresh('Servers');
      upstream.hold();
      let stale: ReturnType<typeof checkRequest> | undefined;
      try {
        await url().fill(upstream.url);
        await url().press('Tab');
        await status().getByText(/Checking…/).waitFor();
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

  describe('Servers: edit', () => {
    const form = () => p.getByTestId('edit-docs');
    const open = async () => {
      await fresh('Servers');
      await p.getByTestId('server-docs').getByRole('button', { name: 'Edit' }).click();
      await form().waitFor();
    };
    const save = () => form().getByRole('button', { name: 'Save changes' }).click();

    it.each([
      ['a refused URL', 'MCP URL', 'http://169.254.169.254/mcp', 'edit-docs-url', /169\.254\.169\.254/],
      ['something that is not a URL', 'MCP URL', 'not a url', 'edit-docs-url', /url/i],
      ['an empty display name', 'Display name', '  ', 'edit-docs-name', /Enter a display name/],
      ['a bad tool prefix', 'Tool prefix (optional)', 'bad prefix!', 'edit-docs-toolPrefix', /must be 1-16 chars/],
      ['a timeout that is not a number', 'Timeout in ms (optional)', 'soon', 'edit-docs-timeoutMs', /whole number/],
      ['a timeout out of range', 'Timeout in ms (optional)', '50', 'edit-docs-timeoutMs', /between 100 and 600000/],
      ['a concurrency of 0', 'Max concurrent calls (optional)', '0', 'edit-docs-maxConcurrency', /between 1 and 10000/],
      ['a NUL in the display name', 'Display name', 'Do\u0000cs', 'edit-docs-name', /must not contain NUL/],
    ])('%s: the refusal sits under that field, and nothing is saved', async (_what, label, value, field, message) => {
      await open();
      await form().getByLabel(label).fill(value);
      await save();
      await expectFieldError(p, field, message);
      expect(await focusedId(p, field)).toBe(field);
      await expectIntact(b);
      const saved = await api(registry.url, key, 'GET', '/v1/servers/docs');
      expect(saved.body).toMatchObject({ name: 'Docs', url: upstream.url, toolPrefix: null, timeoutMs: null, maxConcurrency: null });
    });

    it('a changed URL is checked live too: a refused one beside the field before saving, the SDK-built server found', async () => {
      await open();
      const url = form().getByLabel('MCP URL');
      const status = form().getByTestId('edit-docs-url-check');
      await url.fill('http://169.254.169.254/mcp');
      await url.press('Tab');
      await expectFieldError(p, 'edit-docs-url', /169\.254\.169\.254/);
      await url.fill(upstream.url);
      await url.press('Tab');
      await status.getByText(/^✓ MCP server found — docs 1\.0\.0 · .* · 1 tool: search_docs$/).waitFor();
      await expectNoFieldError(p, 'edit-docs-url');
      await form().getByRole('button', { name: 'Cancel' }).click();
      expect((await api(registry.url, key, 'GET', '/v1/servers/docs')).body).toMatchObject({ url: upstream.url });
      await expectIntact(b);
    });

    it('changing authentication asks for the secret again, and refuses a bad header name from the API', async () => {
      await open();
      await form().getByLabel('Change authentication').check();
      await form().getByLabel('Authentication', { exact: true }).selectOption('bearer');
      await save();
      await expectFieldError(p, 'edit-docs-auth-token', /enter it again/);
      await form().getByLabel('Authentication', { exact: true }).selectOption('header');
      await form().getByLabel('Header name').fill('Bad:Header');
      await form().getByLabel('Header value').fill('secret');
      await save();
      await expectFieldError(p, 'edit-docs-auth-header', /must be an HTTP header name/);
      await b.shot('forms-servers-edit-errors');
      await form().getByRole('button', { name: 'Cancel' }).click();
      expect(await p.getByTestId('edit-docs').count()).toBe(0);
      expect((await api(registry.url, key, 'GET', '/v1/servers/docs')).body.auth).toEqual({ mode: 'none', hasSecret: false });
      await expectIntact(b);
    });

    it('survives hostile input in every field', async () => {
      await eachHostile(async (value) => {
        await open();
        for (const label of ['Display name', 'MCP URL', 'Tool prefix (optional)', 'Timeout in ms (optional)', 'Max concurrent calls (optional)']) await form().getByLabel(label).fill(value);
        await save();
        await p.locator('.field-error, .error-box').first().waitFor();
        await expectIntact(b);
      });
      expect((await api(registry.url, key, 'GET', '/v1/servers/docs')).body).toMatchObject({ name: 'Docs', url: upstream.url });
    });
  });

  describe('Tools: overrides', () => {
    const tool = () => p.getByTestId('tool-docs-search_docs');
    const open = async () => {
      await nav('Servers');
      await nav('Tools');
      await openTool(p, 'docs', 'search_docs');
      await tool().getByText('Not published', { exact: true }).waitFor();
    };
    const setHints = async () => {
      await tool().getByLabel(/destructiveHint/).selectOption('false');
      await tool().getByLabel(/openWorldHint/).selectOption('false');
    };

    it('publishing without the required hints: HINTS_REQUIRED beside each missing hint control', async () => {
      await open();
      await tool().getByRole('button', { name: 'Publish', exact: true }).click();
      await expectFieldError(p, 'tool-docs-search_docs-destructiveHint', /destructiveHint/);
      await expectFieldError(p, 'tool-docs-search_docs-openWorldHint', /openWorldHint/);
      await expectNoFieldError(p, 'tool-docs-search_docs-readOnlyHint');
      expect(await focusedId(p, 'tool-docs-search_docs-destructiveHint')).toBe('tool-docs-search_docs-destructiveHint');
      await tool().getByTestId('tool-docs-search_docs-error-summary').getByText(/choose Yes or No for each hint/).waitFor();
      await b.shot('forms-tools-hints-required');
      // "Preview before publishing" is refused the same way.
      await tool().getByRole('button', { name: 'Preview before publishing' }).click();
      await expectFieldError(p, 'tool-docs-search_docs-openWorldHint', /openWorldHint/);
      // Choosing a value clears that control's message.
      await tool().getByLabel(/destructiveHint/).selectOption('false');
      await expectNoFieldError(p, 'tool-docs-search_docs-destructiveHint');
      await expectIntact(b);
      expect((await api(registry.url, key, 'GET', '/v1/publications')).body.publications).toEqual([]);
    });

    it.each([
      ['an invalid exposed name', 'Exposed name', 'no spaces allowed', 'tool-docs-search_docs-name', /"no spaces allowed" must be 1-64 characters of A-Z a-z 0-9 _ \. -/],
      ['a title over 200 characters', 'Title', 't'.repeat(201), 'tool-docs-search_docs-title', /200/],
      ['an annotations.title over 200 characters', 'Annotation title (annotations.title)', 'a'.repeat(201), 'tool-docs-search_docs-annotations-title', /200/],
      ['a description over 10000 characters', 'Description', 'd'.repeat(10_001), 'tool-docs-search_docs-description', /10000/],
      ['a NUL in the title', 'Title', 'Search\u0000docs', 'tool-docs-search_docs-title', /must not contain NUL/],
    ])('%s: the API refusal sits under that field', async (_what, label, value, field, message) => {
      await open();
      await setHints();
      await tool().getByLabel(label, { exact: true }).fill(value);
      await tool().getByRole('button', { name: 'Publish', exact: true }).click();
      await expectFieldError(p, field, message);
      expect(await focusedId(p, field)).toBe(field);
      await expectIntact(b);
    });

    it('survives hostile input in every field (a valid one opens as a draft preview, shown verbatim)', async () => {
      await eachHostile(async (value) => {
        await open();
        await setHints();
        for (const label of ['Title', 'Exposed name', 'Annotation title (annotations.title)', 'Description']) await tool().getByLabel(label, { exact: true }).fill(value);
        await tool().getByRole('button', { name: 'Preview before publishing' }).click();
        const draft = p.getByRole('heading', { name: 'Preview — draft', level: 1 });
        await p.locator('.field-error, .error-box').or(draft).first().waitFor();
        if ((await draft.count()) > 0) {
          // Shown as text, never as markup.
          if (value.trim()) expect(await p.locator(`td[data-path="title"][data-surface="claude"]`).first().textContent()).toBe(JSON.stringify(value.trim()));
          await expectIntact(b);
          await p.getByTestId('draft-bar').getByRole('button', { name: 'Discard draft' }).click();
        }
        await expectIntact(b);
      });
      expect((await api(registry.url, key, 'GET', '/v1/publications')).body.publications).toEqual([]);
    });
  });

  describe('Team', () => {
    it.each([
      ['empty fields', '', '', '', ['adm-username', /Enter a username/]],
      ['a username with a space', 'has space', '', 'long enough password', ['adm-username', /must be 1-64 chars/]],
      ['a short password', 'grace', '', 'short', ['adm-password', /at least 12 characters/]],
      ['a password over 1024 characters', 'grace', '', 'p'.repeat(1025), ['adm-password', /at most 1024 characters/]],
      ['a name over 120 characters', 'grace', 'n'.repeat(121), 'long enough password', ['adm-name', /120/]],
    ] as Array<[string, string, string, string, [string, RegExp]]>)('%s: the refusal sits under that field, which gets focus', async (_what, username, name, password, [field, message]) => {
      await fresh('Team');
      await p.getByLabel('Username').fill(username);
      await p.getByLabel('Name (optional)').fill(name);
      await p.getByLabel('Password').fill(password);
      await submit('Add administrator');
      await expectFieldError(p, field, message);
      expect(await focusedId(p, field)).toBe(field);
      await expectIntact(b);
    });

    it('a username already taken: 409 beside the username', async () => {
      await fresh('Team');
      await p.getByLabel('Username').fill('grace');
      await p.getByLabel('Password').fill('long enough password');
      await submit('Add administrator');
      await p.getByTestId('admins-table').getByText('grace').waitFor();
      await p.getByLabel('Username').fill('grace');
      await p.getByLabel('Password').fill('another long password');
      await submit('Add administrator');
      await expectFieldError(p, 'adm-username', /admin "grace" already exists/);
      await b.shot('forms-team-errors');
      await expectIntact(b);
    });

    it('survives hostile input in every field', async () => {
      await eachHostile(async (value) => {
        await fresh('Team');
        await p.getByLabel('Username').fill(value);
        await p.getByLabel('Name (optional)').fill(value);
        await p.getByLabel('Password').fill(value);
        await submit('Add administrator');
        await p.locator('.field-error, .error-box').first().waitFor();
        await expectIntact(b);
      });
      expect((await api(registry.url, key, 'GET', '/v1/admins')).body.admins).toEqual([expect.objectContaining({ username: 'grace' })]);
    });
  });

  describe('Readiness', () => {
    it.each([
      ['something that is not a URL', 'not a url', '', 'rd-url', /url/i],
      ['a refused URL (cloud metadata address)', 'https://169.254.169.254/latest/meta-data/', '', 'rd-url', /link-local/],
      ['a private address', 'https://10.0.0.1/mcp', '', 'rd-url', /private/],
      ['an access token no header can carry', 'https://mcp.example.com/mcp', 'tök\nen', 'rd-token', /printable ASCII/],
    ])('%s: the API refusal sits under that field', async (_what, url, token, field, message) => {
      await fresh('Readiness');
      await p.getByLabel('URL to check (optional)').fill(url);
      await p.getByLabel('Access token (optional)').fill(token);
      await submit('Run readiness check');
      await expectFieldError(p, field, message);
      expect(await focusedId(p, field)).toBe(field);
      expect(await p.getByTestId('readiness-report').count()).toBe(0);
      await expectIntact(b);
    });

    it('survives hostile input in every field (a blank URL checks the tenant URL, which fails as unreachable)', async () => {
      await eachHostile(async (value) => {
        await fresh('Readiness');
        await p.getByLabel('URL to check (optional)').fill(value);
        await p.getByLabel('Access token (optional)').fill(value);
        await submit('Run readiness check');
        await p.locator('.field-error, .error-box').or(p.getByTestId('readiness-report')).first().waitFor({ timeout: 30_000 });
        await expectIntact(b);
      });
      await b.shot('forms-readiness-hostile');
    });
  });

  it('the longest unbroken values the API accepts wrap on every page instead of widening it; nothing typed broke a page', async () => {
    const long = { id: 'w'.repeat(32), name: 'N'.repeat(120), title: 'T'.repeat(200), exposed: 'e'.repeat(64), username: 'u'.repeat(64), adminName: 'M'.repeat(120) };
    await registerAndDiscover(registry.url, key, { id: long.id, name: long.name, url: upstream.url });
    const published = await api(registry.url, key, 'POST', '/v1/publications', {
      serverId: long.id,
      items: [{ kind: 'tool', name: 'search_docs', exposedName: long.exposed, overrides: { title: long.title, description: 'D'.repeat(2000), annotations: { title: long.title, destructiveHint: false, openWorldHint: false } } }],
    });
    expect(published.status).toBe(200);
    expect((await api(registry.url, key, 'POST', '/v1/admins', { username: long.username, name: long.adminName, password: 'long enough password' })).status).toBe(201);
    const shown: Record<string, string> = { Servers: long.name, Tools: long.name, Preview: long.exposed, Activity: long.username, Team: long.adminName };
    for (const label of ['Servers', 'Tools', 'Review', 'Preview', 'Connect', 'Readiness', 'Activity', 'Team']) {
      await fresh(label);
      if (shown[label]) await p.getByText(shown[label], { exact: false }).first().waitFor();
      await expectIntact(b);
    }
    await b.shot('forms-long-values-team');
  });

  describe('Settings', () => {
    const label = {
      name: 'Name',
      description: 'Description (optional)',
      instructions: 'Instructions for MCP clients (optional)',
      origins: 'Allowed browser origins',
      hosts: 'Hosts',
      surfaceRules: 'Surface rules (JSON)',
    };
    const input = (l: string) => p.getByLabel(l, { exact: true });
    const tenant = async () => (await api(registry.url, key, 'GET', '/v1/tenant')).body;

    it('shows the current values', async () => {
      const set = await api(registry.url, key, 'PATCH', '/v1/tenant', {
        description: 'Docs for everyone',
        instructions: 'Search before answering.',
        origins: ['https://app.example.com', 'https://admin.example.com'],
        hosts: ['mcp.example.com'],
        surfaceRules: { surfaces: { claude: { maxTools: 100 } } },
      });
      expect(set.status).toBe(200);
      await fresh('Settings');
      expect(await input(label.name).inputValue()).toBe((await tenant()).name);
      expect(await input(label.description).inputValue()).toBe('Docs for everyone');
      expect(await input(label.instructions).inputValue()).toBe('Search before answering.');
      expect(await input(label.origins).inputValue()).toBe('https://app.example.com\nhttps://admin.example.com');
      expect(await input(label.hosts).inputValue()).toBe('mcp.example.com');
      expect(JSON.parse(await input(label.surfaceRules).inputValue())).toEqual({ surfaces: { claude: { maxTools: 100 } } });
      await expectIntact(b);
      await b.shot('settings');
    });

    it('a valid change sends only that field, says it republished, and the API shows it', async () => {
      await fresh('Settings');
      await input(label.instructions).fill('Always cite the page you found.');
      const sent = p.waitForRequest((r) => r.url().endsWith('/v1/tenant') && r.method() === 'PATCH');
      // From the keyboard: Enter in a one-line field submits the form.
      await input(label.name).press('Enter');
      expect(JSON.parse((await sent).postData() ?? '{}')).toEqual({ instructions: 'Always cite the page you found.' });
      await p.getByTestId('settings-notice').getByText(/^Saved; republished as version \S+\.$/).waitFor();
      expect((await tenant()).instructions).toBe('Always cite the page you found.');
      // Nothing changed since: nothing is sent.
      await submit('Save settings');
      await p.getByTestId('settings-notice').getByText('Nothing changed.').waitFor();
      await expectIntact(b);
    });

    it.each([
      ['an empty name (caught before sending)', 'name', '', 'set-name', /Enter a name/],
      ['a name over 120 characters', 'name', 'n'.repeat(121), 'set-name', /120/],
      ['surface rules that are not JSON (caught before sending)', 'surfaceRules', '{"surfaces": {', 'surface-rules', /Not valid JSON/],
      ['surface rules that are JSON but not an object (caught before sending)', 'surfaceRules', '[1, 2]', 'surface-rules', /must be a JSON object/],
      ['a surface rule the server refuses', 'surfaceRules', '{"surfaces": {"claude": {"noSuchRule": true}}}', 'surface-rules', /surface "claude": unknown field "noSuchRule"/],
      ['an origin over 200 characters (on line 3)', 'origins', `https://a.example.com\n\nhttps://${'o'.repeat(200)}.example.com`, 'origins', /^Line 3: .*200/],
      ['a host over 253 characters', 'hosts', 'h'.repeat(254), 'hosts', /^Line 1: .*253/],
    ] as Array<[string, keyof typeof label, string, string, RegExp]>)('%s: the refusal sits under that field, which gets focus', async (_what, which, value, field, message) => {
      const before = await tenant();
      await fresh('Settings');
      await input(label[which]).fill(value);
      await submit('Save settings');
      const id = `set-${field.replace(/^set-/, '')}`;
      await expectFieldError(p, id, message);
      expect(await focusedId(p, id)).toBe(id);
      for (const other of ['set-name', 'set-description', 'set-instructions', 'set-origins', 'set-hosts', 'set-surface-rules'].filter((f) => f !== id)) await expectNoFieldError(p, other);
      expect(await tenant()).toEqual(before);
      await expectIntact(b);
    });

    it('survives hostile input in every field', async () => {
      await eachHostile(async (value) => {
        await fresh('Settings');
        for (const l of Object.values(label)) await input(l).fill(value);
        await submit('Save settings');
        await p.locator('.field-error, .error-box').or(p.getByTestId('settings-notice').getByText(/Saved/)).first().waitFor();
        await expectIntact(b);
      });
      await b.shot('forms-settings-hostile');
    });
  });

  it('a key revoked mid-session: the next action returns to sign-in saying the session ended (no blank page)', async () => {
    const keys = (await api(registry.url, key, 'GET', '/v1/keys')).body.keys as Array<{ id: string }>;
    expect(keys).toHaveLength(1);
    expect((await api(registry.url, key, 'DELETE', `/v1/keys/${keys[0].id}`)).status).toBe(200);
    // Any page other than the current one: its first request is refused.
    await p.getByRole('navigation', { name: 'Console pages' }).locator('a:not([aria-current])').first().click();
    await p.getByRole('heading', { name: 'Sign in to the Switchboard console' }).waitFor();
    await p.getByText('Your session has ended. Sign in again to continue.').waitFor();
    expect(await p.evaluate('sessionStorage.length')).toBe(0);
    await p.getByLabel('Tenant API key').fill(key);
    await submit('Sign in');
    await expectFieldError(p, 'apiKey', /not accepted/);
    await expectIntact(b);
  });
});

// Bad input in every console form, in Chromium (issue 7): editing a server, a tool's overrides, the
// Team and Readiness forms. Each refusal sits beside its field (aria-describedby names it,
// aria-invalid is set), focus moves to the first invalid field, and hostile input typed into every
// field never breaks a page: no error-boundary fallback, no uncaught error, no 5xx, no dialog.
// Shared setup and the hostile values: support/console-forms.ts.
import { expectFieldError, expectIntact, expectNoFieldError, focusedId, openTool } from './support/console-browser';
import { eachHostile, formHelpers, signInWithKeyOnHome, startFormsStack, type FormsStack } from './support/console-forms';
import { api, registerAndDiscover } from './support/harness';

jest.setTimeout(120_000);

describe('console forms in Chromium: bad input shows beside its field, and nothing typed breaks a page', () => {
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
    await registerAndDiscover(registry.url, key, { id: 'docs', name: 'Docs', url: upstream.url });
    await signInWithKeyOnHome(s);
  });

  afterAll(async () => {
    await s?.close();
  });

  const nav = (label: string) => h.nav(label);
  const submit = (name: string) => h.submit(name);
  const fresh = (label: string) => h.fresh(label);

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
        for (const label of [
          'Display name',
          'MCP URL',
          'Tool prefix (optional)',
          'Timeout in ms (optional)',
          'Max concurrent calls (optional)',
        ])
          await form().getByLabel(label).fill(value);
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
      await tool()
        .getByLabel(/destructiveHint/)
        .selectOption('false');
      await tool()
        .getByLabel(/openWorldHint/)
        .selectOption('false');
    };

    it('publishing without the required hints: HINTS_REQUIRED beside each missing hint control', async () => {
      await open();
      await tool().getByRole('button', { name: 'Publish', exact: true }).click();
      await expectFieldError(p, 'tool-docs-search_docs-destructiveHint', /destructiveHint/);
      await expectFieldError(p, 'tool-docs-search_docs-openWorldHint', /openWorldHint/);
      await expectNoFieldError(p, 'tool-docs-search_docs-readOnlyHint');
      expect(await focusedId(p, 'tool-docs-search_docs-destructiveHint')).toBe('tool-docs-search_docs-destructiveHint');
      await tool()
        .getByTestId('tool-docs-search_docs-error-summary')
        .getByText(/choose Yes or No for each hint/)
        .waitFor();
      await b.shot('forms-tools-hints-required');
      // "Preview before publishing" is refused the same way.
      await tool().getByRole('button', { name: 'Preview before publishing' }).click();
      await expectFieldError(p, 'tool-docs-search_docs-openWorldHint', /openWorldHint/);
      // Choosing a value clears that control's message.
      await tool()
        .getByLabel(/destructiveHint/)
        .selectOption('false');
      await expectNoFieldError(p, 'tool-docs-search_docs-destructiveHint');
      await expectIntact(b);
      expect((await api(registry.url, key, 'GET', '/v1/publications')).body.publications).toEqual([]);
    });

    it.each([
      [
        'an invalid exposed name',
        'Exposed name',
        'no spaces allowed',
        'tool-docs-search_docs-name',
        /"no spaces allowed" must be 1-64 characters of A-Z a-z 0-9 _ \. -/,
      ],
      ['a title over 200 characters', 'Title', 't'.repeat(201), 'tool-docs-search_docs-title', /200/],
      [
        'an annotations.title over 200 characters',
        'Annotation title (annotations.title)',
        'a'.repeat(201),
        'tool-docs-search_docs-annotations-title',
        /200/,
      ],
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
        for (const label of ['Title', 'Exposed name', 'Annotation title (annotations.title)', 'Description'])
          await tool().getByLabel(label, { exact: true }).fill(value);
        await tool().getByRole('button', { name: 'Preview before publishing' }).click();
        const draft = p.getByRole('heading', { name: 'Preview — draft', level: 1 });
        await p.locator('.field-error, .error-box').or(draft).first().waitFor();
        if ((await draft.count()) > 0) {
          // Shown as text, never as markup.
          if (value.trim())
            expect(await p.locator(`td[data-path="title"][data-surface="claude"]`).first().textContent()).toBe(
              JSON.stringify(value.trim()),
            );
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
    ] as Array<[string, string, string, string, [string, RegExp]]>)(
      '%s: the refusal sits under that field, which gets focus',
      async (_what, username, name, password, [field, message]) => {
        await fresh('Team');
        await p.getByLabel('Username').fill(username);
        await p.getByLabel('Name (optional)').fill(name);
        await p.getByLabel('Password').fill(password);
        await submit('Add administrator');
        await expectFieldError(p, field, message);
        expect(await focusedId(p, field)).toBe(field);
        await expectIntact(b);
      },
    );

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
});

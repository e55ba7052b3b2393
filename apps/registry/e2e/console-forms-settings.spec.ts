// The console's Settings form in Chromium (issue 7): list entries refused by index land on their
// textarea with the line number, surface rules are parsed before sending, hostile input never breaks
// the page. Also: the longest values the API accepts wrap on every page, and a key revoked
// mid-session returns to sign-in.
// Shared setup and the hostile values: support/console-forms.ts.
import { expectFieldError, expectIntact, expectNoFieldError, focusedId } from './support/console-browser';
import { eachHostile, formHelpers, signInWithKeyOnHome, startFormsStack, type FormsStack } from './support/console-forms';
import { api, registerAndDiscover } from './support/harness';

jest.setTimeout(120_000);

describe('console Settings and long values in Chromium', () => {
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
    await signInWithKeyOnHome(s);
  });

  afterAll(async () => {
    await s?.close();
  });

  const submit = (name: string) => h.submit(name);
  const fresh = (label: string) => h.fresh(label);

  it('the longest unbroken values the API accepts wrap on every page instead of widening it; nothing typed broke a page', async () => {
    const long = {
      id: 'w'.repeat(32),
      name: 'N'.repeat(120),
      title: 'T'.repeat(200),
      exposed: 'e'.repeat(64),
      username: 'u'.repeat(64),
      adminName: 'M'.repeat(120),
    };
    await registerAndDiscover(registry.url, key, { id: long.id, name: long.name, url: upstream.url });
    const published = await api(registry.url, key, 'POST', '/v1/publications', {
      serverId: long.id,
      items: [
        {
          kind: 'tool',
          name: 'search_docs',
          exposedName: long.exposed,
          overrides: {
            title: long.title,
            description: 'D'.repeat(2000),
            annotations: { title: long.title, destructiveHint: false, openWorldHint: false },
          },
        },
      ],
    });
    expect(published.status).toBe(200);
    expect(
      (
        await api(registry.url, key, 'POST', '/v1/admins', {
          username: long.username,
          name: long.adminName,
          password: 'long enough password',
        })
      ).status,
    ).toBe(201);
    const shown: Record<string, string> = {
      Servers: long.name,
      Tools: long.name,
      Preview: long.exposed,
      Activity: long.username,
      Team: long.adminName,
    };
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
      await p
        .getByTestId('settings-notice')
        .getByText(/^Saved; republished as version \S+\.$/)
        .waitFor();
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
      [
        'surface rules that are JSON but not an object (caught before sending)',
        'surfaceRules',
        '[1, 2]',
        'surface-rules',
        /must be a JSON object/,
      ],
      [
        'a surface rule the server refuses',
        'surfaceRules',
        '{"surfaces": {"claude": {"noSuchRule": true}}}',
        'surface-rules',
        /surface "claude": unknown field "noSuchRule"/,
      ],
      [
        'an origin over 200 characters (on line 3)',
        'origins',
        `https://a.example.com\n\nhttps://${'o'.repeat(200)}.example.com`,
        'origins',
        /^Line 3: .*200/,
      ],
      ['a host over 253 characters', 'hosts', 'h'.repeat(254), 'hosts', /^Line 1: .*253/],
    ] as Array<[string, keyof typeof label, string, string, RegExp]>)(
      '%s: the refusal sits under that field, which gets focus',
      async (_what, which, value, field, message) => {
        const before = await tenant();
        await fresh('Settings');
        await input(label[which]).fill(value);
        await submit('Save settings');
        const id = `set-${field.replace(/^set-/, '')}`;
        await expectFieldError(p, id, message);
        expect(await focusedId(p, id)).toBe(id);
        for (const other of ['set-name', 'set-description', 'set-instructions', 'set-origins', 'set-hosts', 'set-surface-rules'].filter(
          (f) => f !== id,
        ))
          await expectNoFieldError(p, other);
        expect(await tenant()).toEqual(before);
        await expectIntact(b);
      },
    );

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

// The console's Guardrails page in Chromium against the built registry: an admin turns on the
// poisoned-tool block, adds a CEL interceptor (a bad rule is flagged beside its field while
// typing), adds a webhook (a private URL is refused beside the URL field; the secret is kept on
// later edits), reorders and removes interceptors; a viewer sees the chain without controls.
// Run `npx tsc -b tsconfig.build.json` and `npx vite build apps/console` first.
import type { Page } from 'playwright-core';
import {
  expectFieldError,
  expectIntact,
  expectNoFieldError,
  openConsoleBrowser,
  signInWithKey,
  type ConsoleBrowser,
} from './support/console-browser';
import {
  api,
  cleanRedis,
  createDatabase,
  createTenant,
  READ_ONLY_HINTS,
  registerAndDiscover,
  startRegistry,
  startUpstream,
  testEnv,
  until,
  type Proc,
  type TestUpstream,
} from './support/harness';

jest.setTimeout(180_000);

const SECRET = 'whsec_Y29uc29sZS1ndWFyZHJhaWxzLXNlY3JldA==';

describe('console Guardrails in Chromium', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let crm: TestUpstream;
  let key: string;
  let viewerKey: string;
  let b: ConsoleBrowser;
  let p: Page;
  const chain = async () =>
    (await api(registry.url, key, 'GET', '/v1/guardrails')).body.interceptors as Array<{
      name: string;
      mode: string;
      use: Record<string, unknown>;
    }>;
  const form = () => p.getByTestId('interceptor-form');

  beforeAll(async () => {
    b = await openConsoleBrowser();
    p = b.page;
    db = await createDatabase();
    crm = await startUpstream('crm', [
      { name: 'refund', description: 'Refunds an order.', annotations: READ_ONLY_HINTS },
      { name: 'lookup', description: 'Looks an order up.', annotations: READ_ONLY_HINTS },
    ]);
    registry = await startRegistry(env, db.url);
    key = await createTenant(registry.url, env.operatorKey, 'acme');
    viewerKey = String((await api(registry.url, key, 'POST', '/v1/keys', { name: 'viewer', role: 'viewer' })).body.apiKey);
  });

  afterAll(async () => {
    await b?.close();
    await registry?.stop();
    await crm?.close();
    await db?.drop();
    await cleanRedis(env);
  });

  it('turns the poisoned-tool block on from the page', async () => {
    await signInWithKey(p, registry.url, key, 'Guardrails');
    await p.getByText('No interceptors: calls pass through unchanged.').waitFor();
    await p.getByTestId('tool-scan').getByRole('checkbox').check();
    await until(
      'blockPoisoned is on',
      async () => (await api(registry.url, key, 'GET', '/v1/guardrails/tool-scan')).body.blockPoisoned === true,
    );
    await expectIntact(b);
  });

  it('adds a CEL interceptor, flagging a bad rule beside its field while it is typed', async () => {
    await p.getByRole('button', { name: 'Add interceptor' }).click();
    await form().getByLabel('Name', { exact: true }).fill('refunds');
    await form().getByLabel('Rule 1 name').fill('Big Refund');
    await form().getByLabel('Rule 1 message').fill('Refunds over 500 need finance');
    await form().getByLabel('Rule 1 expression').fill('tool.name == "refund" && args.amount > 500 && !("finance" in caller.groups)');
    // Checked while typing, before any save: the rule name breaks the pattern.
    await expectFieldError(p, 'gr-use-rules-0-name', /a-z 0-9/);
    expect(await chain()).toEqual([]);
    await b.shot('guardrails-cel-live-error');

    // A CEL syntax error shows where it is, beside the expression, before any save.
    await form().getByLabel('Rule 1 name').fill('big-refund');
    await form().getByLabel('Rule 1 expression').fill('args.amount > ');
    await expectFieldError(p, 'gr-use-rules-0-expr', /rule "big-refund" at line 1, column 15/);
    await expectNoFieldError(p, 'gr-use-rules-0-name');
    await form().getByLabel('Rule 1 expression').fill('tool.name == "refund" && args.amount > 500 && !("finance" in caller.groups)');
    await until('the expression error clears', async () => (await p.locator('[id="gr-use-rules-0-expr-error"]').count()) === 0);
    await form().getByLabel('Mode').selectOption('audit');
    await form().getByRole('button', { name: 'Save interceptor' }).click();
    await p.getByTestId('guardrails-notice').getByText('Saved refunds').waitFor();
    const row = p.getByTestId('interceptor-refunds');
    await row.getByText('CEL: big-refund').waitFor();
    await row.getByText('Audit').waitFor();
    expect((await chain()).map((i) => [i.name, i.mode])).toEqual([['refunds', 'audit']]);
    await expectIntact(b);
  });

  it('adds a webhook: a private address is refused beside the URL, the secret is kept on edit', async () => {
    await p.getByRole('button', { name: 'Add interceptor' }).click();
    await form().getByLabel('Name', { exact: true }).fill('screen');
    await form().getByLabel('Runs').selectOption('webhook');
    await form().getByLabel('Webhook URL').fill('http://10.0.0.7/hook');
    await form().getByLabel('Signing secret').fill(SECRET);
    await form().getByRole('button', { name: 'Save interceptor' }).click();
    await expectFieldError(p, 'gr-use-webhook-url', /10\.0\.0\.7|not allowed|blocked|private/i);
    expect((await chain()).map((i) => i.name)).toEqual(['refunds']);

    await form().getByLabel('Webhook URL').fill('http://localhost:9/screen');
    await form().getByLabel('Fail open').check();
    await form().getByRole('button', { name: 'Save interceptor' }).click();
    await p.getByTestId('interceptor-screen').getByText('Fails open').waitFor();
    expect(JSON.stringify(await chain())).not.toContain(SECRET);

    await p.getByRole('button', { name: 'Edit screen' }).click();
    await form().getByText('A secret is stored; leave empty to keep it.').waitFor();
    await form().getByLabel('Timeout (ms)').fill('900');
    await form().getByRole('button', { name: 'Save interceptor' }).click();
    await form().waitFor({ state: 'detached' });
    await p.getByTestId('interceptor-screen').waitFor();
    expect((await chain())[1]?.use).toEqual({
      webhook: { url: 'http://localhost:9/screen', timeoutMs: 900, maxBytes: 65536, secretSet: true },
    });
    await b.shot('guardrails-chain');
    await expectIntact(b);
  });

  it('reorders and removes interceptors', async () => {
    await p.getByRole('button', { name: 'Move screen up' }).click();
    await p.getByTestId('guardrails-notice').getByText('Moved screen up.').waitFor();
    expect((await chain()).map((i) => i.name)).toEqual(['screen', 'refunds']);
    await p.getByRole('button', { name: 'Remove refunds' }).click();
    await p.getByTestId('guardrails-notice').getByText('Removed refunds.').waitFor();
    expect((await chain()).map((i) => i.name)).toEqual(['screen']);
    await expectIntact(b);
  });

  it('shows on the Preview page which interceptors each tool goes through', async () => {
    await registerAndDiscover(registry.url, key, { id: 'crm', name: 'CRM', url: crm.url });
    expect(
      (await api(registry.url, key, 'POST', '/v1/publications', { serverId: 'crm', items: [{ name: 'refund' }, { name: 'lookup' }] }))
        .status,
    ).toBe(200);
    const refunds = {
      name: 'refunds',
      type: 'validation',
      hook: { events: ['tools/call'], phase: 'request' },
      match: { tools: ['ref*'], servers: ['crm'] },
      mode: 'audit',
      use: { builtin: 'cel', rules: [{ name: 'big', expr: 'args.amount > 500', message: 'Too big' }] },
    };
    const current = (await api(registry.url, key, 'GET', '/v1/guardrails')).body.interceptors as Array<
      Record<string, unknown> & { use: { webhook: Record<string, unknown> } }
    >;
    const kept = current.map((i) => ({
      ...i,
      use: { webhook: { url: i.use.webhook.url, timeoutMs: i.use.webhook.timeoutMs, maxBytes: i.use.webhook.maxBytes } },
    }));
    expect((await api(registry.url, key, 'PUT', '/v1/guardrails', { interceptors: [...kept, refunds] })).status).toBe(200);
    await p.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: 'Preview', exact: true }).click();
    await p.getByTestId('preview-refund').waitFor();
    await p
      .getByTestId('preview-refund-guardrails')
      .getByText('screen (validation, request) → refunds (validation, request, audit)')
      .waitFor();
    expect(await p.getByTestId('preview-lookup-guardrails').textContent()).toBe('Guardrails: screen (validation, request)');
    await b.shot('guardrails-preview');
    await expectIntact(b);
  });

  it('shows a viewer the chain without controls', async () => {
    await signInWithKey(p, registry.url, viewerKey, 'Guardrails');
    await p.getByTestId('interceptor-refunds').waitFor();
    expect(await p.getByRole('button', { name: 'Add interceptor' }).count()).toBe(0);
    expect(await p.getByRole('button', { name: 'Edit screen' }).count()).toBe(0);
    expect(await p.getByTestId('tool-scan').getByRole('checkbox').isDisabled()).toBe(true);
    await expectIntact(b);
  });
});

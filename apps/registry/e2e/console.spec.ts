// Browser tests of the tenant console (issue 7), the main journey: Debian's Chromium driven by
// playwright-core, signed in through the platform's own OAuth (the real apps/auth platform issuer,
// in-process; its form is tested in console-sign-in.spec.ts), registers a local SDK-built MCP server,
// watches discovery, overrides a title, previews the Claude and OpenAI surfaces, publishes, and sees
// the real gateway serve it. Every page is screenshotted to test-artifacts/console/.
// Prerequisites: `npx tsc -b tsconfig.build.json`, `npx vite build apps/console`, scripts/ensure-chromium.sh.
// Test-only cross-app import: the real auth service, booted the way its own e2e tests boot it.
import { startAuth } from '../../auth/e2e/support/auth-harness';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { expectFieldError, expectIntact, focusedId, openTool } from './support/console-browser';
import { ADA, platformSignIn, startConsoleJourney, type ConsoleJourney } from './support/console-journey';
import { startDocsUpstream } from './support/docs-upstream';
import { api, mcpClient, registerAndDiscover, serveStateless, until } from './support/harness';

jest.setTimeout(90_000);

/** An SDK-built upstream whose one tool's description can change between discoveries (a change held for review). */
async function startNotesUpstream(): Promise<{ url: string; setDescription(d: string): void; close(): Promise<void> }> {
  let description = 'List the notes';
  const http: HttpServer = createHttpServer((req, res) => {
    const server = new McpServer({ name: 'notes', version: '1.0.0' });
    server.registerTool(
      'list_notes',
      {
        title: 'List notes',
        description,
        inputSchema: {},
        annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
      },
      async () => ({ content: [{ type: 'text', text: 'no notes' }] }),
    );
    serveStateless(server, req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://localhost:${(http.address() as AddressInfo).port}/mcp`,
    setDescription: (d) => (description = d),
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

describe('tenant console in Chromium: platform sign-in to a published tool on the gateway', () => {
  let j: ConsoleJourney;
  let upstream: Awaited<ReturnType<typeof startDocsUpstream>>;
  let notes: Awaited<ReturnType<typeof startNotesUpstream>>;
  // Aliases of the journey's parts, so the steps read as before.
  let b: ConsoleJourney['b'];
  let registry: ConsoleJourney['registry'];
  let gateway: ConsoleJourney['gateway'];
  let key: string;

  beforeAll(async () => {
    upstream = await startDocsUpstream();
    notes = await startNotesUpstream();
    // Discovery is held open on purpose below (to watch it run): give it time.
    j = await startConsoleJourney(startAuth, { DISCOVERY_TIMEOUT_MS: '15000' });
    ({ b, registry, gateway, key } = j);
    await platformSignIn(b.page, j);
  });

  afterAll(async () => {
    await j?.close();
    upstream?.release();
    await upstream?.close();
    await notes?.close();
  });

  const page = () => b.page;
  const nav = (label: string) =>
    page().getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: label, exact: true }).click();

  it('shows "Nothing awaiting review" on the Review page when no upstream change is held', async () => {
    await nav('Review');
    await page().getByRole('heading', { name: 'Review', level: 1 }).waitFor();
    await page().getByText('Nothing awaiting review').waitFor();
    expect(await page().getByTestId('review-count').count()).toBe(0);
    await b.shot('review-empty');
    await nav('Servers');
  });

  it('registers the SDK-built server and watches discovery run and finish', async () => {
    const p = page();
    await p.getByRole('heading', { name: 'Servers', level: 1 }).waitFor();
    await p.getByText('No servers yet').waitFor();
    // The upstream answers nothing until released, so the discovery is visibly in progress.
    upstream.hold();
    await p.getByLabel('Server id').fill('docs');
    await p.getByLabel('Display name').fill('Docs');
    await p.getByLabel('MCP URL').fill(upstream.url);
    await p.getByRole('button', { name: 'Register and discover' }).click();
    await p.getByText('Registered "Docs". Discovery has started.').waitFor();
    const status = p.getByTestId('server-docs-status');
    await status.getByText('Discovering…').waitFor();
    await b.shot('servers-discovering');
    upstream.release();
    await status.getByText('Healthy').waitFor({ timeout: 20_000 });
    await status.getByText('found 1 tool').waitFor();
    expect(await p.getByTestId('server-docs').locator('dd.mono').textContent()).toBe(upstream.url);
    await b.shot('servers');
    await expectIntact(b);
  });

  const cell = (path: string, surface: string) =>
    page().locator(`td[data-tool="search_docs"][data-path="${path}"][data-surface="${surface}"]`);
  const expectSurfaceRules = async () => {
    // Every surface gets the overridden title; Claude and OpenAI also get it mirrored into annotations.title.
    for (const s of ['generic', 'claude', 'openai']) expect(await cell('title', s).textContent()).toBe('"Search docs"');
    // The hints set as overrides reach every surface.
    for (const s of ['generic', 'claude', 'openai']) expect(await cell('annotations.destructiveHint', s).textContent()).toBe('false');
    expect(await cell('annotations.title', 'claude').textContent()).toBe('"Search docs"');
    expect(await cell('annotations.title', 'generic').textContent()).toBe('—');
    // ChatGPT-only _meta: OpenAI receives securitySchemes and openai/ keys, Claude none of them.
    expect(await cell('_meta.securitySchemes', 'openai').textContent()).toBe('[{"type":"noauth"}]');
    expect(await cell('_meta.securitySchemes', 'claude').textContent()).toBe('—');
    expect(await cell('_meta.openai/toolInvocation/invoking', 'openai').textContent()).toBe('"Searching the docs…"');
    expect(await cell('_meta.openai/toolInvocation/invoking', 'claude').textContent()).toBe('—');
    // Those rows are highlighted as differing between surfaces.
    await expect(page().locator('tr.differs[data-path="_meta.securitySchemes"]').count()).resolves.toBe(1);
    await expect(page().locator('tr.differs[data-path="_meta.openai/toolInvocation/invoking"]').count()).resolves.toBe(1);
  };

  const gatewayTools = async () => {
    const client = await mcpClient(`${gateway.url}/t/acme/mcp`);
    try {
      return (await client.listTools()).tools;
    } finally {
      await client.close();
    }
  };

  it('flags the tool lacking hints, overrides its title and hints, and previews the draft: Claude and OpenAI differ as the surface rules say', async () => {
    const p = page();
    await nav('Tools');
    const tool = await openTool(p, 'docs', 'search_docs');
    await tool.getByText('Not published', { exact: true }).waitFor();
    // Upstream states readOnlyHint only: destructiveHint and openWorldHint are flagged before any publish attempt.
    await tool
      .getByTestId('tool-docs-search_docs-needs-hints')
      .getByText(/Destructive, Open world/)
      .waitFor();
    await p.getByTestId('hints-summary').waitFor();
    await b.shot('tools-needs-hints');

    await tool.getByLabel('Title', { exact: true }).fill('Search docs');
    await tool.getByLabel(/destructiveHint/).selectOption('false');
    await tool.getByLabel(/openWorldHint/).selectOption('false');
    expect(await tool.getByTestId('tool-docs-search_docs-needs-hints').count()).toBe(0);
    await tool.getByRole('button', { name: 'Preview before publishing' }).click();

    await p.getByRole('heading', { name: 'Preview — draft', level: 1 }).waitFor();
    await p.getByTestId('draft-bar').getByText('Draft — not live yet').waitFor();
    await p.getByTestId('preview-search_docs').getByText('New in this draft').waitFor();
    expect(await p.getByText('Live: the gateway serves exactly this').count()).toBe(0);
    await expectSurfaceRules();
    await b.shot('preview-draft');
    // Nothing is live: the gateway serves no catalog for the tenant yet.
    const before = await fetch(`${gateway.url}/t/acme/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    const listed = before.status === 200 ? ((await before.json()) as { result?: { tools?: unknown[] } }).result?.tools : [];
    expect(listed ?? []).toEqual([]);
    await expectIntact(b);
  });

  it('publishes the draft from the preview, which then shows it as live', async () => {
    const p = page();
    await p.getByTestId('draft-bar').getByRole('button', { name: 'Publish', exact: true }).click();
    await p
      .getByTestId('preview-notice')
      .getByText(/Published search_docs/)
      .waitFor();
    await p.getByRole('heading', { name: 'Preview', exact: true, level: 1 }).waitFor();
    await p.getByText('Live: the gateway serves exactly this').waitFor();
    expect(await p.getByTestId('draft-bar').count()).toBe(0);
    await expectSurfaceRules();
    await b.shot('preview');
    await nav('Tools');
    await openTool(p, 'docs', 'search_docs');
    await p.getByTestId('tool-docs-search_docs').getByText('Published as search_docs').first().waitFor();
    expect(await p.getByTestId('tool-docs-search_docs').getByLabel('Title', { exact: true }).inputValue()).toBe('Search docs');
    await b.shot('tools');
    await expectIntact(b);
  });

  it('the real gateway serves it: an MCP tools/list shows the overridden title', async () => {
    const tools = await until('the gateway lists search_docs', async () => {
      const list = await gatewayTools().catch(() => []);
      return list.length ? list : undefined;
    });
    expect(tools.map((t) => [t.name, t.title, t.annotations?.destructiveHint])).toEqual([['search_docs', 'Search docs', false]]);
  });

  it('shows the MCP URL and the claude mcp add line', async () => {
    await nav('Connect');
    await page().getByTestId('mcp-url').getByText(`${gateway.url}/t/acme/mcp`).waitFor();
    expect(await page().getByTestId('claude-command').textContent()).toBe(`claude mcp add --transport http acme ${gateway.url}/t/acme/mcp`);
    await page().getByTestId('chatgpt-steps').waitFor();
    await b.shot('connect');
  });

  it('runs the readiness check against the published tenant: every check passes', async () => {
    const p = page();
    await nav('Readiness');
    await p.getByRole('button', { name: 'Run readiness check' }).click();
    const report = p.getByTestId('readiness-report');
    await report.getByText(`Results for ${gateway.url}/t/acme/mcp`).waitFor({ timeout: 30_000 });
    const statuses = await report
      .locator('[data-testid^="check-"][data-status]')
      .evaluateAll((els) => els.map((e) => `${e.getAttribute('data-testid')}=${e.getAttribute('data-status')}`));
    expect(statuses.length).toBeGreaterThan(10);
    // The OAuth challenge does not apply to an open tenant: skipped, not passed.
    expect(statuses.filter((s) => !s.endsWith('=pass'))).toEqual(['check-auth-challenge=skip']);
    await p.getByTestId('readiness-summary').getByText('0 failed').waitFor();
    await b.shot('readiness');
  });

  it('shows an upstream change held for review (count in the navigation, before/after diff) and approves it', async () => {
    const p = page();
    await registerAndDiscover(registry.url, key, { id: 'notes', name: 'Notes', url: notes.url });
    const published = await api(registry.url, key, 'POST', '/v1/publications', {
      serverId: 'notes',
      items: [{ kind: 'tool', name: 'list_notes' }],
    });
    expect(published.status).toBe(200);
    notes.setDescription('List every note, newest first');
    expect((await api(registry.url, key, 'POST', '/v1/servers/notes/discover')).status).toBe(202);
    await until('the changed description is held for review', async () => {
      const res = await api(registry.url, key, 'GET', '/v1/changes');
      return (res.body.changes as unknown[] | undefined)?.length === 1;
    });

    await p
      .getByRole('navigation', { name: 'Console pages' })
      .getByRole('link', { name: /^Review/ })
      .click();
    await p.getByRole('heading', { name: 'Review', level: 1 }).waitFor();
    expect(await p.getByTestId('review-count').textContent()).toMatch(/^1/);
    const card = p.getByTestId('change-notes-list_notes');
    await card.getByText('Changed upstream').waitFor();
    const row = card.locator('tr[data-path$="description"]');
    expect(await row.locator('td.before').textContent()).toBe('"List the notes"');
    expect(await row.locator('td.after').textContent()).toBe('"List every note, newest first"');
    expect(await card.locator('tr[data-path$="title"]').count()).toBe(0);
    await b.shot('review');

    await card.getByRole('button', { name: 'Approve change' }).click();
    await p
      .getByTestId('review-notice')
      .getByText(/list_notes now serves the new definition/)
      .waitFor();
    await p.getByText('Nothing awaiting review').waitFor();
    await until('the Review count is gone', async () => (await p.getByTestId('review-count').count()) === 0);
    expect(((await api(registry.url, key, 'GET', '/v1/changes')).body.changes as unknown[]).length).toBe(0);
    await expectIntact(b);
  });

  it('Team: lists the signed-in admin, puts the API refusals beside the fields, adds an admin', async () => {
    const p = page();
    await nav('Team');
    const table = p.getByTestId('admins-table');
    await table.getByText('(you)').waitFor();
    expect(await table.locator('tbody tr').count()).toBe(1);
    // No way to lock yourself out: another owner removes you.
    expect(await table.getByRole('button', { name: /^Remove access/ }).count()).toBe(0);
    await table.getByText('Another owner can remove you').waitFor();
    await p.getByLabel('Username').fill('grace');
    await p.getByLabel('Password').fill('too short');
    await p.getByRole('button', { name: 'Add administrator' }).click();
    await expectFieldError(p, 'adm-password', /at least 12 characters/);
    expect(await focusedId(p, 'adm-password')).toBe('adm-password');
    await p.getByLabel('Username').fill(ADA.username);
    await p.getByLabel('Password').fill('a long enough password');
    await p.getByRole('button', { name: 'Add administrator' }).click();
    await expectFieldError(p, 'adm-username', /admin "ada" already exists/);
    await b.shot('team-errors');
    await p.getByLabel('Username').fill('grace');
    await p.getByLabel('Name (optional)').fill('Grace Hopper');
    await p.getByRole('button', { name: 'Add administrator' }).click();
    await p.getByText('Added grace.', { exact: false }).waitFor();
    await table.getByText('Grace Hopper').waitFor();
    await table.getByRole('button', { name: 'Remove access of grace' }).waitFor();
    expect(await p.locator('[id="adm-username-error"]').count()).toBe(0);
    await b.shot('team');
    await expectIntact(b);
  });

  it('Activity lists what the signed-in admin did, under their name', async () => {
    const p = page();
    await nav('Activity');
    const table = p.getByTestId('audit-table');
    await table.getByText('publication.publish').first().waitFor();
    // Done through the console session: the actor is the platform user, not a key.
    await table.locator('tr', { hasText: 'server.create' }).filter({ hasText: 'docs' }).getByText('user:ada').waitFor();
    await table.locator('tr', { hasText: 'admin.create' }).filter({ hasText: 'grace' }).getByText('user:ada').waitFor();
    await table.getByText('change.approve').waitFor();
    await table.getByText('readiness.run').waitFor();
    await b.shot('activity');
    await expectIntact(b);
  });
});

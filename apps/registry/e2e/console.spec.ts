// Browser tests of the tenant console (issue 7): Debian's Chromium driven by playwright-core against
// the real registry (built; serving apps/console/dist), a real SDK-built upstream and a spawned gateway.
// Prerequisites: `npx tsc -b tsconfig.build.json`, `npx vite build apps/console`, scripts/ensure-chromium.sh.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { startDocsUpstream } from './support/docs-upstream';
import { api, cleanRedis, createDatabase, createTenant, registerAndDiscover, REPO_ROOT, startGateway, startRegistry, testEnv, until, type Proc } from './support/harness';

jest.setTimeout(90_000);

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = path.join(REPO_ROOT, 'test-artifacts/console');

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** An SDK-built upstream whose one tool's description can change between discoveries (a change held for review). */
async function startNotesUpstream(): Promise<{ url: string; setDescription(d: string): void; close(): Promise<void> }> {
  let description = 'List the notes';
  const http: HttpServer = createHttpServer((req, res) => {
    const server = new McpServer({ name: 'notes', version: '1.0.0' });
    server.registerTool(
      'list_notes',
      { title: 'List notes', description, inputSchema: {}, annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false } },
      async () => ({ content: [{ type: 'text', text: 'no notes' }] }),
    );
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    void server.connect(transport).then(() => transport.handleRequest(req, res));
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

describe('tenant console in Chromium', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let gateway: Proc;
  let upstream: Awaited<ReturnType<typeof startDocsUpstream>>;
  let notes: Awaited<ReturnType<typeof startNotesUpstream>>;
  let key: string;
  let context: BrowserContext;
  let page: Page;
  let profile: string;
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run scripts/ensure-chromium.sh (installs Debian's chromium) before the console browser tests`);
    if (!existsSync(path.join(REPO_ROOT, 'apps/console/dist/index.html'))) throw new Error('apps/console/dist is missing: run `npx vite build apps/console` first');
    await mkdir(SHOTS, { recursive: true });
    db = await createDatabase();
    upstream = await startDocsUpstream();
    notes = await startNotesUpstream();
    // The gateway needs the registry's URL and the registry the gateway's public URL: reserve the gateway's port first.
    const gatewayPort = await freePort();
    registry = await startRegistry(env, db.url, { GATEWAY_PUBLIC_URL: `http://127.0.0.1:${gatewayPort}`, REGISTRY_ALLOW_HTTP_HOSTS: 'localhost,127.0.0.1' });
    key = await createTenant(registry.url, env.operatorKey, 'acme');
    gateway = await startGateway(env, registry.url, { GATEWAY_PORT: String(gatewayPort) });
    profile = await mkdtemp(path.join(tmpdir(), 'sb-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      chromiumSandbox: false,
      viewport: { width: 1280, height: 800 },
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (err) => consoleErrors.push(err.message));
  });

  afterAll(async () => {
    await context?.close();
    if (profile) await rm(profile, { recursive: true, force: true });
    await gateway?.stop();
    await registry?.stop();
    await upstream?.close();
    await notes?.close();
    await db?.drop();
    await cleanRedis(env);
  });

  const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  const nav = (label: string) => page.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: label, exact: true }).click();

  it('signs in with the tenant API key (a wrong key is refused beside the field)', async () => {
    await page.goto(`${registry.url}/console/`);
    await page.getByRole('heading', { name: 'Sign in to the Switchboard console' }).waitFor();
    // With platform OAuth offered (GET /console/auth.json), the key form is the secondary option.
    const useKey = page.getByRole('button', { name: 'Use an API key instead' });
    if ((await useKey.count()) > 0) await useKey.click();
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByTestId('apiKey-error').getByText(/Enter your tenant API key/).waitFor();
    // Focus lands on the field to fix.
    expect(await page.locator(':focus').getAttribute('id')).toBe('apiKey');
    await page.getByLabel('Tenant API key').fill('sbk_wrong');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByTestId('apiKey-error').getByText(/not accepted/).waitFor();
    await shot('sign-in');
    await page.getByLabel('Tenant API key').fill(key);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByTestId('tenant-name').getByText('Tenant acme').waitFor();
    await page.getByTestId('signed-in-as').getByText('Signed in with an API key').waitFor();
  });

  it('shows "Nothing awaiting review" on the Review page when no upstream change is held', async () => {
    await nav('Review');
    await page.getByRole('heading', { name: 'Review', level: 1 }).waitFor();
    await page.getByText('Nothing awaiting review').waitFor();
    expect(await page.getByTestId('review-count').count()).toBe(0);
    await shot('review-empty');
    await nav('Servers');
  });

  it('shows SSRF and validation errors beside the fields, then registers the upstream and watches discovery finish', async () => {
    await page.getByRole('heading', { name: 'Servers', level: 1 }).waitFor();
    await page.getByText('No servers yet').waitFor();
    const focused = () => page.locator(':focus').getAttribute('id');
    // The SSRF guard refuses the cloud metadata address: the message sits under the URL field, which gets focus.
    await page.getByLabel('Server id').fill('docs');
    await page.getByLabel('MCP URL').fill('http://169.254.169.254/mcp');
    await page.getByRole('button', { name: 'Register and discover' }).click();
    await page.getByTestId('srv-url-error').getByText(/169\.254\.169\.254/).waitFor();
    expect(await page.getByTestId('srv-url-error').textContent()).toMatch(/not allowed|blocked/);
    expect(await focused()).toBe('srv-url');
    expect(await page.getByTestId('srv-id-error').count()).toBe(0);
    // An invalid id: its message under the id field; a bearer mode without its token is caught before sending.
    await page.getByLabel('Server id').fill('Bad Id!');
    await page.getByLabel('MCP URL').fill(upstream.url);
    await page.getByRole('button', { name: 'Register and discover' }).click();
    await page.getByTestId('srv-id-error').getByText(/must be 1-32 chars/).waitFor();
    expect(await focused()).toBe('srv-id');
    expect(await page.getByTestId('srv-url-error').count()).toBe(0);
    await page.getByLabel('Authentication').selectOption('bearer');
    await page.getByRole('button', { name: 'Register and discover' }).click();
    await page.getByTestId('srv-auth-token-error').getByText(/Enter the token/).waitFor();
    await shot('servers-errors');
    await page.getByLabel('Authentication').selectOption('none');

    await page.getByLabel('Server id').fill('docs');
    await page.getByLabel('Display name').fill('Docs');
    await page.getByRole('button', { name: 'Register and discover' }).click();
    await page.getByTestId('server-docs-status').getByText('Healthy').waitFor({ timeout: 20_000 });
    await shot('servers');
  });

  it('edits a server: a refused URL is shown under the edit form\'s URL field, and nothing is saved', async () => {
    const card = page.getByTestId('server-docs');
    await card.getByRole('button', { name: 'Edit' }).click();
    const form = page.getByTestId('edit-docs');
    await form.getByLabel('MCP URL').fill('http://169.254.169.254/mcp');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await form.getByTestId('edit-docs-url-error').getByText(/169\.254\.169\.254/).waitFor();
    expect(await page.locator(':focus').getAttribute('id')).toBe('edit-docs-url');
    await form.getByLabel('Timeout in ms (optional)').fill('soon');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await form.getByTestId('edit-docs-timeoutMs-error').getByText(/whole number/).waitFor();
    await shot('servers-edit-errors');
    await form.getByRole('button', { name: 'Cancel' }).click();
    expect(await page.getByTestId('edit-docs').count()).toBe(0);
    expect(await card.locator('dd.mono').textContent()).toBe(upstream.url);
  });

  const gatewayTools = async (): Promise<Array<{ name: string; title?: string }> | undefined> => {
    const res = await fetch(`${gateway.url}/t/acme/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    if (res.status !== 200) return undefined;
    const body = (await res.json()) as { result?: { tools: Array<{ name: string; title?: string }> } };
    return body.result?.tools;
  };
  const cell = (p: string, surface: string) => page.locator(`td[data-tool="search_docs"][data-path="${p}"][data-surface="${surface}"]`);
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
    await expect(page.locator('tr.differs[data-path="_meta.securitySchemes"]').count()).resolves.toBe(1);
  };

  it('flags a tool that lacks behaviour hints before publishing, and puts a refusal next to the hint', async () => {
    await nav('Tools');
    const tool = page.getByTestId('tool-docs-search_docs');
    await tool.getByText('Not published', { exact: true }).waitFor();
    // Upstream states readOnlyHint only: destructiveHint and openWorldHint are flagged before any publish attempt.
    await tool.getByTestId('tool-docs-search_docs-needs-hints').getByText(/Destructive, Open world/).waitFor();
    await tool.getByTestId('tool-docs-search_docs-destructiveHint-warning').waitFor();
    expect(await tool.getByTestId('tool-docs-search_docs-readOnlyHint-warning').count()).toBe(0);
    await page.getByTestId('hints-summary').waitFor();
    await shot('tools-needs-hints');
    // A registry that enforces hints refuses the draft, beside the hint control; one that does not yet compiles it.
    await tool.getByRole('button', { name: 'Preview before publishing' }).click();
    const refusal = tool.getByTestId('tool-docs-search_docs-destructiveHint-error');
    const draft = page.getByRole('heading', { name: 'Preview — draft', level: 1 });
    await refusal.or(draft).waitFor();
    if ((await refusal.count()) > 0) {
      expect(await page.locator(':focus').getAttribute('id')).toMatch(/^tool-docs-search_docs-(readOnly|destructive|openWorld)Hint$/);
      await tool.getByTestId('tool-docs-search_docs-openWorldHint-error').waitFor();
      await shot('tools-hints-refused');
    } else {
      await page.getByTestId('draft-bar').getByRole('button', { name: 'Discard draft' }).click();
      await page.getByRole('heading', { name: 'Tools', level: 1 }).waitFor();
    }
  });

  it('overrides a title and previews the draft: claude vs openai differ as the surface rules say, marked "not live yet"', async () => {
    const tool = page.getByTestId('tool-docs-search_docs');
    await tool.getByText('Not published', { exact: true }).waitFor();
    await tool.getByLabel('Title', { exact: true }).fill('Search docs');
    // What a user must do anyway: state all three required hints (tri-state controls: inherit / true / false).
    await tool.getByLabel(/readOnlyHint/).selectOption('true');
    await tool.getByLabel(/destructiveHint/).selectOption('false');
    await tool.getByLabel(/openWorldHint/).selectOption('false');
    expect(await tool.getByTestId('tool-docs-search_docs-needs-hints').count()).toBe(0);
    // Bad input first: the draft preview refuses an exposed name the way publish does, beside that field.
    await tool.getByLabel('Exposed name').fill('no spaces allowed');
    await tool.getByRole('button', { name: 'Preview before publishing' }).click();
    await tool.getByTestId('tool-docs-search_docs-name-error').waitFor();
    await tool.getByLabel('Exposed name').fill('');
    await tool.getByRole('button', { name: 'Preview before publishing' }).click();

    await page.getByRole('heading', { name: 'Preview — draft', level: 1 }).waitFor();
    await page.getByTestId('draft-bar').getByText('Draft — not live yet').waitFor();
    await page.getByTestId('preview-search_docs').getByText('New in this draft').waitFor();
    expect(await page.getByText('Live: the gateway serves exactly this').count()).toBe(0);
    await expectSurfaceRules();
    await shot('preview-draft');
    // Nothing is live: the gateway serves no catalog for the tenant yet.
    expect((await gatewayTools()) ?? []).toEqual([]);
  });

  it('publishes the draft from the preview, which then shows it as live', async () => {
    await page.getByTestId('draft-bar').getByRole('button', { name: 'Publish', exact: true }).click();
    await page.getByTestId('preview-notice').getByText(/Published search_docs/).waitFor();
    await page.getByRole('heading', { name: 'Preview', exact: true, level: 1 }).waitFor();
    await page.getByText('Live: the gateway serves exactly this').waitFor();
    expect(await page.getByTestId('draft-bar').count()).toBe(0);
    await expectSurfaceRules();
    await shot('preview');
    await nav('Tools');
    await page.getByTestId('tool-docs-search_docs').getByText('Published as search_docs').first().waitFor();
    await shot('tools');
  });

  it('the gateway serves the published tool with the overridden title', async () => {
    const tools = await until('gateway serves search_docs', async () => {
      const list = await gatewayTools();
      return list?.length ? list : undefined;
    });
    expect(tools.map((t) => [t.name, t.title])).toEqual([['search_docs', 'Search docs']]);
  });

  it('shows the MCP URL and the claude mcp add line', async () => {
    await nav('Connect');
    await page.getByTestId('mcp-url').getByText(`${gateway.url}/t/acme/mcp`).waitFor();
    expect(await page.getByTestId('claude-command').textContent()).toBe(`claude mcp add --transport http acme ${gateway.url}/t/acme/mcp`);
    await shot('connect');
  });

  it('runs the readiness check and shows each result with its reason', async () => {
    await nav('Readiness');
    await page.getByLabel('URL to check (optional)').fill('not a url');
    await page.getByRole('button', { name: 'Run readiness check' }).click();
    await page.getByTestId('rd-url-error').waitFor();
    await page.getByLabel('URL to check (optional)').fill('');
    await page.getByRole('button', { name: 'Run readiness check' }).click();
    await page.getByTestId('readiness-report').waitFor({ timeout: 30_000 });
    const checks = page.locator('[data-testid^="check-"][data-status]');
    expect(await checks.count()).toBeGreaterThan(5);
    const statuses = await checks.evaluateAll((els) => els.map((e) => `${e.getAttribute('data-testid')}=${e.getAttribute('data-status')}`));
    expect(statuses.filter((s) => s.endsWith('=fail'))).toEqual([]);
    await expect(page.getByTestId('check-tool-titles').getAttribute('data-status')).resolves.toBe('pass');
    await shot('readiness');
  });

  it('shows an upstream change held for review (count in the navigation, before/after diff) and approves it', async () => {
    await registerAndDiscover(registry.url, key, { id: 'notes', name: 'Notes', url: notes.url });
    const published = await api(registry.url, key, 'POST', '/v1/publications', { serverId: 'notes', items: [{ kind: 'tool', name: 'list_notes' }] });
    expect(published.status).toBe(200);
    notes.setDescription('List every note, newest first');
    expect((await api(registry.url, key, 'POST', '/v1/servers/notes/discover')).status).toBe(202);
    await until('the changed description is held for review', async () => {
      const res = await api(registry.url, key, 'GET', '/v1/changes');
      return (res.body.changes as unknown[] | undefined)?.length === 1;
    });

    await page.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: /^Review/ }).click();
    await page.getByRole('heading', { name: 'Review', level: 1 }).waitFor();
    expect(await page.getByTestId('review-count').textContent()).toMatch(/^1/);
    const card = page.getByTestId('change-notes-list_notes');
    await card.getByText('Changed upstream').waitFor();
    // The diff: the registry's (JSON pointer paths) or the console's own comparison (dotted paths).
    const row = card.locator('tr[data-path$="description"]');
    expect(await row.locator('td.before').textContent()).toBe('"List the notes"');
    expect(await row.locator('td.after').textContent()).toBe('"List every note, newest first"');
    expect(await card.locator('tr[data-path$="title"]').count()).toBe(0);
    await shot('review');

    await card.getByRole('button', { name: 'Approve change' }).click();
    await page.getByTestId('review-notice').getByText(/list_notes now serves the new definition/).waitFor();
    await page.getByText('Nothing awaiting review').waitFor();
    await until('the Review count is gone', async () => (await page.getByTestId('review-count').count()) === 0);
    expect(((await api(registry.url, key, 'GET', '/v1/changes')).body.changes as unknown[]).length).toBe(0);
  });

  it('lists the activity log, and no page threw', async () => {
    await nav('Activity');
    const table = page.getByTestId('audit-table');
    await table.getByText('publication.publish').first().waitFor();
    await table.getByText('server.create').first().waitFor();
    await table.getByText('change.approve').waitFor();
    await table.getByText('readiness.run').waitFor();
    await shot('activity');
    expect(consoleErrors).toEqual([]);
  });
});

// The console's Usage, Calls and Limits pages in Chromium, on real data: calls go through a built
// gateway, are metered into the registry's rollups and call log, and the pages render them. An
// admin edits the plan (a bad value is refused beside its field); a viewer sees the plan but no
// form, and the registry refuses the viewer's PUT either way. Run `npx tsc -b tsconfig.build.json`
// and `npx vite build apps/console` first.
import type { Page } from 'playwright-core';
import { expectFieldError, expectIntact, openConsoleBrowser, type ConsoleBrowser } from './support/console-browser';
import {
  api,
  cleanRedis,
  createDatabase,
  createTenant,
  READ_ONLY_HINTS,
  registerAndDiscover,
  startGateway,
  startRegistry,
  startUpstream,
  testEnv,
  until,
  type Proc,
  type TestUpstream,
} from './support/harness';

jest.setTimeout(180_000);

type Json = Record<string, unknown>;

describe('console Usage, Calls and Limits in Chromium', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let gateway: Proc;
  let crm: TestUpstream;
  let key: string;
  let viewerKey: string;
  let betaKey: string;
  let b: ConsoleBrowser;
  let p: Page;
  let nextId = 1;

  const call = async (tenant: string, name: string) => {
    const res = await fetch(`${gateway.url}/t/${tenant}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: { text: 'x' } } }),
    });
    return (await res.json()) as { result?: Json; error?: { code: number } };
  };

  beforeAll(async () => {
    b = await openConsoleBrowser();
    p = b.page;
    db = await createDatabase();
    crm = await startUpstream('crm', [
      { name: 'lookup', annotations: READ_ONLY_HINTS },
      { name: 'search', annotations: READ_ONLY_HINTS },
    ]);
    registry = await startRegistry(env, db.url);
    key = await createTenant(registry.url, env.operatorKey, 'acme');
    betaKey = await createTenant(registry.url, env.operatorKey, 'beta');
    viewerKey = String((await api(registry.url, key, 'POST', '/v1/keys', { name: 'viewer', role: 'viewer' })).body.apiKey);
    for (const k of [key, betaKey]) {
      await registerAndDiscover(registry.url, k, { id: 'crm', name: 'CRM', url: crm.url });
      expect(
        (await api(registry.url, k, 'POST', '/v1/publications', { serverId: 'crm', items: [{ name: 'lookup' }, { name: 'search' }] }))
          .status,
      ).toBe(200);
    }
    gateway = await startGateway(env, registry.url, { USAGE_FLUSH_MS: '50' });
    // Acme: 3 searches, 2 lookups; beta: 4 lookups (never shown to acme).
    for (const name of ['search', 'search', 'search', 'lookup', 'lookup']) expect((await call('acme', name)).result).toBeDefined();
    for (let i = 0; i < 4; i++) expect((await call('beta', 'lookup')).result).toBeDefined();
    await until(
      'usage drained',
      async () => {
        const rows = (await api(registry.url, key, 'GET', '/v1/usage?groupBy=tool')).body.usage as Json[] | undefined;
        const calls = (await api(registry.url, key, 'GET', '/v1/calls?limit=200')).body.calls as Json[] | undefined;
        return (
          rows?.find((r) => r.tool === 'search' && r.calls === 3) &&
          rows.find((r) => r.tool === 'lookup' && r.calls === 2) &&
          calls?.length === 5
        );
      },
      60_000,
      200,
    );
  });

  afterAll(async () => {
    await b?.close();
    await gateway?.stop();
    await registry?.stop();
    await crm?.close();
    await db?.drop();
    await cleanRedis(env);
  });

  const signIn = async (apiKey: string, page: string) => {
    await p.goto(`${registry.url}/console/`);
    const signInForm = p.getByLabel('Tenant API key');
    const signOut = p.getByRole('button', { name: 'Sign out', exact: true });
    await signInForm.or(signOut).first().waitFor();
    if (await signOut.isVisible()) {
      await signOut.click();
      await signInForm.waitFor();
    }
    await signInForm.fill(apiKey);
    await p.getByRole('button', { name: 'Sign in', exact: true }).click();
    await p.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: page, exact: true }).click();
    await p.getByRole('heading', { name: page, exact: true, level: 1 }).waitFor();
  };

  it("renders the tenant's usage per tool with charts, the limits beside it, and exports CSV", async () => {
    await signIn(key, 'Usage');
    const table = p.getByTestId('usage-tools');
    await table.waitFor();
    const rows = await table.locator('tbody tr').allInnerTexts();
    expect(rows).toHaveLength(2);
    expect(rows.find((r) => r.includes('search'))).toMatch(/crm\s+search\s+3\s+0\s+0\s+0/);
    expect(rows.find((r) => r.includes('lookup'))).toMatch(/crm\s+lookup\s+2\s+/);
    // uPlot drew canvases for the daily and latency charts; the per-tool chart is bars, most-called first.
    for (const id of ['chart-daily', 'chart-latency']) expect(await p.getByTestId(id).locator('canvas').count()).toBeGreaterThan(0);
    expect(await p.getByTestId('chart-tools').locator('li').allTextContents()).toEqual(['search3', 'lookup2']);
    expect(await p.getByTestId('plan-summary').innerText()).toContain('Operator defaults');

    // A filter narrows the table to one tool.
    await p.getByLabel('Tool', { exact: true }).fill('lookup');
    await p.getByRole('button', { name: 'Apply filters' }).click();
    await until('filtered', async () => ((await table.locator('tbody tr').count()) === 1 ? true : undefined));
    expect(await table.innerText()).not.toContain('search');

    const download = p.waitForEvent('download');
    await p.getByTestId('usage-csv').click();
    const file = await download;
    const stream = await file.createReadStream();
    let csv = '';
    for await (const chunk of stream) csv += String(chunk);
    const lines = csv.trim().split('\r\n');
    expect(lines[0]).toBe('day,server,tool,subject,calls,errors,toolErrors,rateLimited,bytesIn,bytesOut,avgMs');
    expect(lines.slice(1).length).toBeGreaterThan(0);
    expect(lines.slice(1).every((l) => l.includes(',crm,lookup,'))).toBe(true);
    await expectIntact(b);
    await b.shot('usage-page');
  });

  it('lists the call log with filters and cursor paging', async () => {
    await signIn(key, 'Calls');
    const table = p.getByTestId('calls-table');
    await table.waitFor();
    expect(await table.locator('tbody tr').count()).toBe(5);
    expect(await table.innerText()).toContain('tools/call');
    await p.getByLabel('Tool', { exact: true }).fill('search');
    await p.getByRole('button', { name: 'Apply filters' }).click();
    await until('filtered calls', async () => ((await table.locator('tbody tr').count()) === 3 ? true : undefined));
    expect(await table.innerText()).not.toContain('lookup');
    await expectIntact(b);
    await b.shot('calls-page');
  });

  it('a viewer sees the call log without captures, and is told they are for admins', async () => {
    await signIn(viewerKey, 'Calls');
    const table = p.getByTestId('calls-table');
    await table.waitFor();
    expect(await table.locator('tbody tr').count()).toBeGreaterThanOrEqual(5);
    expect(await p.getByTestId('captures-withheld').innerText()).toContain('admin and owner roles only');
    await expectIntact(b);
    await signIn(key, 'Calls');
    await p.getByTestId('calls-table').waitFor();
    expect(await p.getByTestId('captures-withheld').count()).toBe(0);
  });

  it('pages through more calls than one page with Older / Newer', async () => {
    for (let i = 0; i < 26; i++) expect((await call('acme', 'lookup')).result).toBeDefined();
    await until(
      '26 more calls',
      async () =>
        ((await api(registry.url, key, 'GET', '/v1/calls?tool=lookup&limit=200')).body.calls as Json[]).length === 28 ? true : undefined,
      60_000,
      200,
    );
    await signIn(key, 'Calls');
    await p.getByLabel('Tool', { exact: true }).fill('lookup');
    await p.getByRole('button', { name: 'Apply filters' }).click();
    const table = p.getByTestId('calls-table');
    await until('first page', async () => ((await table.locator('tbody tr').count()) === 25 ? true : undefined));
    await p.getByRole('button', { name: 'Older' }).click();
    await until('second page', async () => ((await table.locator('tbody tr').count()) === 3 ? true : undefined));
    expect(await p.getByRole('button', { name: 'Older' }).isDisabled()).toBe(true);
    await p.getByRole('button', { name: 'Newer' }).click();
    await until('back to the first page', async () => ((await table.locator('tbody tr').count()) === 25 ? true : undefined));
    await expectIntact(b);
  });

  it('an admin edits the plan: a bad burst is refused beside its field, a good plan is saved and shown on Usage', async () => {
    await signIn(key, 'Limits');
    // An empty field means the operator's default, and says so.
    expect(await p.getByLabel('Burst', { exact: true }).getAttribute('placeholder')).toBe("Operator's default");
    await p.getByLabel('Requests per second', { exact: true }).fill('50');
    await p.getByRole('button', { name: 'Save limits' }).click();
    // A rate without its burst: said in words, beside the burst, never the validator's text.
    const text = await expectFieldError(p, 'lim-tenant-burst', /Enter a burst too, or leave both empty for the operator's default/);
    expect(text).not.toMatch(/expected|received|null/);
    await p.getByLabel('Per-tool overrides').fill('search two 10');
    await p.getByLabel('Burst', { exact: true }).fill('100');
    await p.getByRole('button', { name: 'Save limits' }).click();
    expect(await expectFieldError(p, 'lim-tools', /search/)).not.toMatch(/expected|received|null/);
    await p.getByLabel('Per-tool overrides').fill('');
    await p.getByLabel('Burst', { exact: true }).fill('0');
    await p.getByRole('button', { name: 'Save limits' }).click();
    await expectFieldError(p, 'lim-tenant-burst', /./);
    await p.getByLabel('Burst', { exact: true }).fill('100');
    await p.getByLabel('Per-tool overrides').fill('search 2 abc');
    await p.getByRole('button', { name: 'Save limits' }).click();
    expect(await expectFieldError(p, 'lim-tools', /search/)).toContain('search');
    await p.getByLabel('Per-tool overrides').fill('search 2 10');
    await p.getByLabel('Daily quota of tool calls').fill('5000');
    await p.getByRole('button', { name: 'Save limits' }).click();
    await p.getByTestId('limits-saved').waitFor();
    expect((await api(registry.url, key, 'GET', '/v1/limits')).body.rate).toEqual({
      tenant: { requestsPerSecond: 50, burst: 100 },
      tools: { search: { requestsPerSecond: 2, burst: 10 } },
      dailyCalls: 5000,
    });
    await expectIntact(b);
    await b.shot('limits-page');
    await p.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: 'Usage', exact: true }).click();
    const summary = p.getByTestId('plan-summary');
    await summary.waitFor();
    expect(await summary.innerText()).toMatch(/50 req\/s, burst 100[\s\S]*5000[\s\S]*search: 2 req\/s, burst 10/);
  });

  it('a viewer sees the plan but cannot edit it (no form; the registry refuses the PUT)', async () => {
    await signIn(viewerKey, 'Limits');
    await p.getByText('Your role (viewer) can view this; changing the limits needs the admin role.').waitFor();
    expect(await p.getByRole('button', { name: 'Save limits' }).count()).toBe(0);
    expect(await p.getByLabel('Burst', { exact: true }).count()).toBe(0);
    expect(await p.getByTestId('plan-summary').innerText()).toContain('50 req/s, burst 100');
    const put = await api(registry.url, viewerKey, 'PUT', '/v1/limits', { rate: null });
    expect(put.status).toBe(403);
    expect((await api(registry.url, key, 'GET', '/v1/limits')).body.rate).toMatchObject({ dailyCalls: 5000 });
    await expectIntact(b);
    await b.shot('limits-page-viewer');
  });
});

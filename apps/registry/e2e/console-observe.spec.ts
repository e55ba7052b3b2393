// Logs and charts of the console (issue 47), in Chromium against a built registry and gateway: the
// Activity log pages by cursor, collapses system events and opens a row in a drawer; GET /v1/audit
// pages by a bounded, validated cursor; the usage charts span the chosen window (24 h, 7 d, 30 d)
// for one day and for thirty days of calls, their legend reads values, the top tools are sorted,
// and protocol traffic (initialize, tools/list, notifications, calls of unknown tools) is apart.
import { Client as PgClient } from 'pg';
import { expectIntact } from './support/console-browser';
import { pageHelpers, signInOnHome, startProductStack, type ProductStack } from './support/console-product';
import {
  api,
  createTenant,
  mcpClient,
  READ_ONLY_HINTS,
  registerAndDiscover,
  startUpstream,
  until,
  type TestUpstream,
} from './support/harness';

jest.setTimeout(240_000);

describe('console logs and charts, in Chromium', () => {
  let s: ProductStack;
  let weather: TestUpstream;
  let p: ProductStack['p'];
  let registry: ProductStack['registry'];
  let key: string;
  let b: ProductStack['b'];
  let h: ReturnType<typeof pageHelpers>;
  const env = () => s.env;

  beforeAll(async () => {
    weather = await startUpstream('weather', [{ name: 'get_forecast', annotations: READ_ONLY_HINTS }]);
    s = await startProductStack();
    ({ p, registry, key, b } = s);
    h = pageHelpers(p);
    await registerAndDiscover(registry.url, key, { id: 'weather', name: 'Weather', url: weather.url });
    const published = await api(registry.url, key, 'POST', '/v1/publications', {
      serverId: 'weather',
      items: [{ kind: 'tool', name: 'get_forecast' }],
    });
    if (published.status !== 200) throw new Error(`publish: ${published.status} ${JSON.stringify(published.body)}`);
    await signInOnHome(s);
  });

  afterAll(async () => {
    await s?.close();
    await weather?.close();
  });

  const nav = (label: string) => h.nav(label);
  const heading = (name: string) => h.heading(name);

  it('pages the Activity log by cursor, hides system events unless asked, and opens a row in a drawer', async () => {
    for (let i = 0; i < 55; i++)
      expect((await api(registry.url, key, 'PATCH', '/v1/tenant', { description: `take ${i}` })).status).toBe(200);
    await nav('Activity');
    await heading('Activity');
    const rows = p.getByTestId('audit-table').locator('tbody tr');
    await p.getByTestId('page-number').getByText('Page 1').waitFor();
    // The pager shows before the first page has loaded: wait for a full page of rows.
    await rows.nth(49).waitFor();
    expect(await rows.count()).toBe(50);
    expect(await p.getByTestId('audit-table').locator('tr[data-action="server.discovered"]').count()).toBe(0);
    const ids = () => rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-id')));
    const firstPage = await ids();
    await p.getByRole('button', { name: 'Older' }).click();
    await p.getByTestId('page-number').getByText('Page 2').waitFor();
    // The old rows stay up while the next page loads: wait for the new ones.
    const secondPage = await until(
      'page 2',
      async () => {
        const now = await ids();
        return now[0] !== firstPage[0] && now;
      },
      10_000,
      50,
    );
    expect(secondPage.length).toBeGreaterThan(0);
    expect(secondPage.some((r) => firstPage.includes(r))).toBe(false);
    await p.getByRole('button', { name: 'Newer' }).click();
    await p.getByTestId('page-number').getByText('Page 1').waitFor();
    await until('page 1 again', async () => (await ids())[0] === firstPage[0], 10_000, 50);
    expect(await ids()).toEqual(firstPage);
    expect(Math.min(...firstPage.map(Number))).toBeGreaterThan(Math.max(...secondPage.map(Number)));

    // Servers only: what people did, then the registry's own discovery runs too.
    await p.getByLabel('Show').selectOption('server.*');
    await p.getByTestId('audit-table').locator('tr[data-action="server.create"]').first().waitFor();
    expect(await p.getByTestId('audit-table').locator('tr[data-action="server.discovered"]').count()).toBe(0);
    await p.getByLabel(/Include system events/).check();
    await p.getByTestId('audit-table').locator('tr[data-action="server.discovered"]').first().waitFor();
    const actions = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-action') ?? ''));
    expect(actions.every((a) => a.startsWith('server.'))).toBe(true);
    await p
      .getByTestId('audit-table')
      .locator('tr[data-action="server.create"]')
      .filter({ hasText: 'Registered server weather.' })
      .getByRole('button', { name: /Details/ })
      .click();
    await p.getByTestId('detail-drawer').getByRole('heading', { name: 'Registered server weather.' }).waitFor();
    await p.getByTestId('detail-drawer').getByRole('button', { name: 'Close' }).click();
    await expectIntact(b);
  });

  it("GET /v1/audit: cursor paging is bounded, validated and confined to the caller's tenant", async () => {
    const page1 = (await api(registry.url, key, 'GET', '/v1/audit?limit=5')).body as { entries: Array<{ id: string }>; nextCursor: string };
    expect(page1.entries).toHaveLength(5);
    const page2 = (await api(registry.url, key, 'GET', `/v1/audit?limit=5&cursor=${page1.nextCursor}`)).body as {
      entries: Array<{ id: string }>;
    };
    expect(Number(page2.entries[0]!.id)).toBeLessThan(Number(page1.entries[4]!.id));
    for (const [q, field] of [
      ['cursor=abc', 'query.cursor'],
      ['limit=501', 'query.limit'],
      ['action=DROP%20TABLE', 'query.action'],
      ['system=maybe', 'query.system'],
    ]) {
      const res = await api(registry.url, key, 'GET', `/v1/audit?${q}`);
      expect({ q, status: res.status, field: (res.body.error as { field?: string } | undefined)?.field }).toEqual({
        q,
        status: 400,
        field,
      });
    }
    // Another tenant handed acme's cursor sees only its own entries.
    const betaKey = await createTenant(registry.url, env().operatorKey, 'beta');
    const beta = (await api(registry.url, betaKey, 'GET', `/v1/audit?cursor=${page1.nextCursor}`)).body as { entries: unknown[] };
    expect(JSON.stringify(beta.entries)).not.toMatch(/weather|forecast|take \d/);
  });

  it('spans the usage axis over the chosen window: one day of calls on 24 h, 7 d and 30 d axes, then 30 days of calls', async () => {
    // Through the gateway as a client does: initialize, its notification, tools/list (protocol
    // traffic), one call of the published tool, and one of a tool the catalog does not know ("?").
    const client = await mcpClient(`${s.gateway.url}/t/acme/mcp`);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['get_forecast']);
      await client.callTool({ name: 'get_forecast', arguments: { text: 'x' } });
      await client.callTool({ name: 'no_such_tool', arguments: {} }).catch(() => undefined);
    } finally {
      await client.close();
    }
    const byTool = async () =>
      ((await api(registry.url, key, 'GET', '/v1/usage?groupBy=tool')).body.usage as Array<{ tool: string; server: string }> | undefined) ??
      [];
    await until(
      'usage metered',
      async () => {
        const tools = (await byTool()).map((r) => r.tool);
        return tools.includes('get_forecast') && tools.includes('?');
      },
      30_000,
      100,
    );
    const metered = await byTool();
    expect(metered.map((r) => r.tool)).toEqual(expect.arrayContaining(['get_forecast', 'initialize', 'tools/list', '?']));

    const label = (daysAgo: number) =>
      new Intl.DateTimeFormat('en', { month: 'short', day: 'numeric', timeZone: 'UTC' }).format(
        new Date(Date.now() - daysAgo * 86_400_000),
      );
    const chart = p.getByTestId('chart-daily');
    await nav('Usage');
    await heading('Usage');
    await p.getByRole('button', { name: '24 h' }).click();
    await until(
      '24 h axis',
      async () =>
        (await chart.getAttribute('data-points')) === '2' && (await chart.getAttribute('data-ticks')) === `${label(1)}|${label(0)}`,
      10_000,
      50,
    );
    await p.getByRole('button', { name: '7 d' }).click();
    await until('7 d axis', async () => (await chart.getAttribute('data-points')) === '7', 10_000, 50);
    expect(await chart.getAttribute('data-ticks')).toBe([6, 5, 4, 3, 2, 1, 0].map(label).join('|'));
    await p.getByRole('button', { name: '30 d' }).click();
    await until('30 d axis', async () => (await chart.getAttribute('data-points')) === '30', 10_000, 50);
    expect(await chart.getAttribute('data-first')).toBe(label(29));
    expect(await chart.getAttribute('data-last')).toBe(label(0));
    const ticks = (await chart.getAttribute('data-ticks'))!.split('|');
    expect(ticks[0]).toBe(label(29));
    expect(ticks[ticks.length - 1]).toBe(label(0));
    expect(ticks.length).toBeLessThanOrEqual(9);
    // The one day of calls sits on today, every other day at zero.
    const firstCells = () =>
      p
        .getByTestId('chart-daily-data')
        .locator('tbody tr')
        .evaluateAll((trs) => trs.map((tr) => tr.querySelector('td')?.textContent ?? ''));
    const today = (await firstCells())[29];
    expect(Number(today)).toBeGreaterThanOrEqual(4);
    expect((await firstCells()).slice(0, 29)).toEqual(Array(29).fill('0'));

    // Protocol traffic is apart from the tools: only get_forecast is a tool; the rest is named by method.
    expect(await p.getByTestId('chart-tools').locator('li .bar-label').allTextContents()).toEqual(['get_forecast']);
    const protocol = (await p.getByTestId('protocol-traffic').textContent()) ?? '';
    for (const m of ['initialize', 'tools/list', 'unknown tool']) expect(protocol).toContain(m);
    expect(await p.getByTestId('usage-tools').locator('tr[data-protocol="true"]').count()).toBeGreaterThanOrEqual(3);
    expect(await p.getByTestId('usage-tools').locator('td', { hasText: /^\?$/ }).count()).toBe(0);

    // Thirty days of metered calls (rolled-up rows, as the gateway's flush writes them), and twelve more tools.
    const pg = new PgClient({ connectionString: s.db.url });
    await pg.connect();
    try {
      const insert = (day: number, tool: string, calls: number) =>
        pg.query(
          `INSERT INTO registry.usage_daily (tenant_id, day, server_id, tool, subject, calls, latency) VALUES ('acme', (now() AT TIME ZONE 'UTC')::date - $1::int, 'weather', $2, 'anonymous', $3, '{}')`,
          [day, tool, calls],
        );
      for (let d = 1; d < 30; d++) await insert(d, 'get_forecast', d);
      for (let i = 1; i <= 12; i++) await insert(0, `tool_${String(i).padStart(2, '0')}`, i * 10);
    } finally {
      await pg.end();
    }
    await p.getByRole('button', { name: 'Refresh' }).click();
    await until('30 days plotted', async () => (await firstCells())[0] === '29', 10_000, 50);
    expect(await chart.getAttribute('data-first')).toBe(label(29));
    expect(await chart.getAttribute('data-last')).toBe(label(0));
    // The top ten tools, most called first (get_forecast, called on every day of the window, first).
    await p.getByTestId('chart-tools').getByText('Top 10 tools by calls').waitFor();
    const bars = await p.getByTestId('chart-tools').locator('li .bar-label').allTextContents();
    expect(bars).toEqual([
      'get_forecast',
      'tool_12',
      'tool_11',
      'tool_10',
      'tool_09',
      'tool_08',
      'tool_07',
      'tool_06',
      'tool_05',
      'tool_04',
    ]);
    const values = (await p.getByTestId('chart-tools').locator('li .bar-value').allTextContents()).map(Number);
    expect(values).toEqual([...values].sort((x, y) => y - x));
    // The legend (the chart's tooltip) reads the latest day, not "--", before the cursor moves...
    const legend = () => chart.locator('.u-legend .u-value').allTextContents();
    expect((await legend())[0]).toBe(label(0));
    expect((await legend()).some((v) => v.includes('--'))).toBe(false);
    // ...and the day under the cursor when it does: the oldest day, 29 calls.
    const plot = chart.locator('.u-over');
    const box = (await plot.boundingBox())!;
    await plot.hover({ position: { x: box.width / 60, y: box.height / 2 } });
    await until('the legend reads the oldest day', async () => (await legend())[0] === label(29), 10_000, 50);
    expect((await legend()).slice(0, 2)).toEqual([label(29), '29']);
    // ...and the latest day again once the cursor leaves the plot, never "--".
    await p.getByRole('heading', { name: 'Usage', level: 1 }).hover();
    await until('the legend reads the latest day again', async () => (await legend())[0] === label(0), 10_000, 50);
    expect((await legend()).some((v) => v.includes('--'))).toBe(false);
    await h.shots('usage');
    await expectIntact(b);
  });
});

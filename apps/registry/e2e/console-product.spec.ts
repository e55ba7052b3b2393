// The console as a product (issue 47), in Chromium against a built registry and gateway: the
// first-run checklist follows the tenant's state, unknown routes are a 404, the register form warns
// about a URL already registered, colliding tool names are shown before publishing (and the name
// shown is the name served), form errors clear when fixed, a loopback MCP URL raises the
// reachability blocker, the Tools table stays quick at 1,000 tools, and a draft previews as each
// client shows it. Logs and charts: console-observe.spec.ts. Screenshots: support/console-product.ts.
import { expectFieldError, expectIntact, expectNoFieldError, freePort, openTool } from './support/console-browser';
import { pageHelpers, startProductStack, type ProductStack } from './support/console-product';
import { api, READ_ONLY_HINTS, registerAndDiscover, startUpstream, until, type TestUpstream } from './support/harness';

jest.setTimeout(240_000);

const FULL_HINTS = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };
/** Tools in the big server: every tenth lacks its hints (needs attention). */
const BIG = 1000;

describe('the console as a product, in Chromium', () => {
  let s: ProductStack;
  let weather: TestUpstream;
  let big: TestUpstream;
  let p: ProductStack['p'];
  let registry: ProductStack['registry'];
  let key: string;
  let b: ProductStack['b'];
  let h: ReturnType<typeof pageHelpers>;

  beforeAll(async () => {
    weather = await startUpstream('weather', [
      { name: 'get_forecast', annotations: READ_ONLY_HINTS },
      { name: 'delete_city', annotations: FULL_HINTS },
    ]);
    big = await startUpstream(
      'big',
      Array.from({ length: BIG }, (_, i) => ({
        name: `op_${String(i).padStart(4, '0')}`,
        ...(i % 10 === 0 ? {} : { annotations: READ_ONLY_HINTS }),
      })),
    );
    s = await startProductStack();
    ({ p, registry, key, b } = s);
    h = pageHelpers(p);
  });

  afterAll(async () => {
    await s?.close();
    await weather?.close();
    await big?.close();
  });

  const nav = (label: string) => h.nav(label);
  const heading = (name: string) => h.heading(name);
  const step = (id: string) => h.step(id);
  const shots = (name: string, fullPage = true) => h.shots(name, fullPage);
  const register = async (id: string, url: string) => {
    await p.getByLabel('Server id').fill(id);
    await p.getByLabel('MCP URL').fill(url);
    await p.getByRole('button', { name: 'Register and discover', exact: true }).click();
  };

  it('signs in onto Home: a checklist with nothing done, register next, and the loopback blocker', async () => {
    await p.goto(`${registry.url}/console/`);
    await p.getByLabel('Tenant API key').fill(key);
    await p.getByRole('button', { name: 'Sign in', exact: true }).click();
    await heading('Home');
    await p.getByTestId('checklist').waitFor();
    for (const id of ['register', 'review', 'publish', 'connect', 'readiness'])
      expect(await step(id).getAttribute('data-done')).toBe('false');
    expect(await step('register').getAttribute('aria-current')).toBe('step');
    const banner = p.getByTestId('reachability-banner');
    expect(await banner.textContent()).toMatch(/claude\.ai and ChatGPT cannot reach this endpoint.*127\.0\.0\.1 is a loopback address/);
    // The nav is grouped.
    for (const group of ['Build', 'Ship', 'Observe', 'Configure'])
      await p.getByRole('navigation', { name: 'Console pages' }).getByRole('list', { name: group }).waitFor();
    await expectIntact(b);
  });

  it('answers an unknown route with a 404 page, not another page', async () => {
    await p.goto(`${registry.url}/console/no-such-page`);
    await heading('Page not found');
    expect(await p.title()).toMatch(/^Page not found/);
    await p.getByRole('link', { name: 'Go to Home' }).click();
    await heading('Home');
    await expectIntact(b);
  });

  it('clears a stale error as soon as its field is edited, and words the API refusal for people', async () => {
    await nav('Servers');
    await heading('Servers');
    await p.getByRole('button', { name: 'Register and discover', exact: true }).click();
    await expectFieldError(p, 'srv-id', /Enter an id/);
    await expectFieldError(p, 'srv-url', /Enter the URL/);
    await p.getByLabel('Server id').fill('weather');
    // Fixed: its message goes at once, the other field's stays.
    await expectNoFieldError(p, 'srv-id');
    await expectFieldError(p, 'srv-url', /Enter the URL/);
    await p.getByLabel('MCP URL').fill('127.0.0.1:4710/mcp');
    await expectNoFieldError(p, 'srv-url');
    await p.getByRole('button', { name: 'Register and discover', exact: true }).click();
    // The API's reason ("Invalid URL"), in words that say what to type.
    const text = await expectFieldError(p, 'srv-url', /Enter a full URL with its scheme, e\.g\. https:\/\/mcp\.example\.com\/mcp\./);
    expect(text).not.toMatch(/Enter the URL of your MCP server/);
    await expectNoFieldError(p, 'srv-id');
    await expectIntact(b);
  });

  it('registers a server and jumps to its tools; the checklist follows', async () => {
    await register('weather', weather.url);
    await p.getByTestId('server-weather-status').getByText('Healthy').waitFor({ timeout: 20_000 });
    await p.getByTestId('review-new-tools').click();
    await heading('Tools');
    expect(new URL(p.url()).searchParams.get('server')).toBe('weather');
    await p.getByTestId('row-tool-weather-get_forecast').waitFor();
    await nav('Home');
    await p.getByTestId('checklist').waitFor();
    expect(await step('register').getAttribute('data-done')).toBe('true');
    expect(await step('review').getAttribute('data-done')).toBe('true');
    expect(await step('publish').getAttribute('aria-current')).toBe('step');
    await expectIntact(b);
  });

  it('says what to do when a server refuses connections (ECONNREFUSED), not just the error', async () => {
    const closed = new URL(weather.url);
    closed.port = String(await freePort());
    expect((await api(registry.url, key, 'POST', '/v1/servers', { id: 'down', name: 'Down', url: closed.href })).status).toBe(201);
    await nav('Servers');
    await p.getByTestId('server-down-status').getByText('Discovery failed').waitFor({ timeout: 20_000 });
    expect(await p.getByTestId('server-down-error').textContent()).toMatch(/ECONNREFUSED|refused/i);
    expect(await p.getByTestId('server-down-next-step').textContent()).toBe(
      "What to do: Nothing is listening at that address. Start the server, or check the URL's host and port (Edit).",
    );
    await expectIntact(b);
    expect((await api(registry.url, key, 'DELETE', '/v1/servers/down')).status).toBeLessThan(300);
  });

  it('warns that a URL is already registered, before submitting', async () => {
    await nav('Servers');
    await p.getByLabel('Server id').fill('forecast');
    await p.getByLabel('MCP URL').fill(weather.url.replace(/\/mcp$/, '/mcp/'));
    expect(await p.getByTestId('url-duplicate').textContent()).toMatch(/already registered as “weather” \(weather\)/);
    await p.getByRole('button', { name: 'Register and discover', exact: true }).click();
    // The registry says it too, in its answer.
    expect(await p.getByTestId('register-warning').textContent()).toMatch(
      /already registered as server "weather".*published as forecast_<name>/,
    );
    await p.getByTestId('server-forecast-status').getByText('Healthy').waitFor({ timeout: 20_000 });
    // Editing it, "Check URL" asks the registry, which names the other server at that URL (not this one).
    await p.getByTestId('server-forecast').getByRole('button', { name: 'Edit' }).click();
    const edit = p.getByTestId('edit-forecast');
    await edit.getByRole('button', { name: 'Check URL' }).click();
    const warning = p.getByTestId('edit-forecast-url-check-warning');
    await warning.waitFor();
    expect(await warning.textContent()).toMatch(/This URL is already registered as server "weather" \(weather\)/);
    expect(await warning.textContent()).not.toMatch(/body\.url|"forecast"/);
    await edit.getByRole('button', { name: 'Cancel' }).click();
    await expectIntact(b);
  });

  it("publishes all ready tools of the first server, then shows the second server's collisions and the names they will get", async () => {
    await nav('Tools');
    await p
      .getByTestId('tools-server-weather')
      .getByRole('button', { name: /Publish all ready \(2\)/ })
      .click();
    const panel = p.getByTestId('publish-ready-weather');
    await panel.getByRole('button', { name: 'Publish 2 tools' }).click();
    await p.getByText('Published 2 tools of weather.').waitFor();
    expect(await p.getByTestId('name-tool-weather-get_forecast').textContent()).toBe('get_forecast');

    // The second copy's tools would be renamed: the table says so before anything is published.
    expect(await p.getByTestId('name-tool-forecast-get_forecast').textContent()).toMatch(/^forecast_get_forecast.*“get_forecast” is taken/);
    await p
      .getByTestId('tools-server-forecast')
      .getByRole('button', { name: /Publish all ready \(2\)/ })
      .click();
    const second = p.getByTestId('publish-ready-forecast');
    await second
      .getByTestId('collisions-forecast')
      .getByText(/2 names are already taken/)
      .waitFor();
    await second.getByTestId('pub-forecast-get_forecast').getByText('renamed to forecast_get_forecast').waitFor();
    await shots('tools-collisions');
    // A name chosen here is the name served.
    await second.getByLabel('Name for delete_city').fill('remove_city_forecast');
    await second.getByRole('button', { name: 'Publish 2 tools' }).click();
    await p.getByText('Published 2 tools of forecast.').waitFor();
    expect(await p.getByTestId('name-tool-forecast-delete_city').textContent()).toBe('remove_city_forecast');
    expect(await p.getByTestId('name-tool-forecast-get_forecast').textContent()).toBe('forecast_get_forecast');
    const pubs = (await api(registry.url, key, 'GET', '/v1/publications')).body.publications as Array<{
      serverId: string;
      upstreamName: string;
      exposedName: string;
    }>;
    expect(
      pubs
        .filter((x) => x.serverId === 'forecast')
        .map((x) => `${x.upstreamName}=${x.exposedName}`)
        .sort(),
    ).toEqual(['delete_city=remove_city_forecast', 'get_forecast=forecast_get_forecast']);
    await expectIntact(b);
  });

  it('opens a row in the editor drawer and closes it with Escape', async () => {
    await p.getByRole('link', { name: 'Edit delete_city (weather)' }).click();
    const drawer = p.getByTestId('tool-drawer');
    await drawer.getByTestId('tool-weather-delete_city').waitFor();
    expect(await drawer.getByLabel('Exposed name').inputValue()).toBe('delete_city');
    await p.keyboard.press('Escape');
    await drawer.waitFor({ state: 'detached' });
    await expectIntact(b);
  });

  it('keeps the Tools table quick at 1,000 tools: render, search and the needs-attention filter', async () => {
    await registerAndDiscover(registry.url, key, { id: 'big', name: 'Big', url: big.url });
    await nav('Home');
    await heading('Home');
    let t0 = Date.now();
    await nav('Tools');
    await p
      .getByTestId('tools-count')
      .getByText(`${BIG + 4} tools`)
      .waitFor({ timeout: 30_000 });
    const render = Date.now() - t0;
    // A page of rows, not a thousand editors.
    expect(await p.getByTestId('tools-table').locator('tbody tr').count()).toBe(200);

    t0 = Date.now();
    await p.getByRole('searchbox', { name: 'Search' }).fill('op_0999');
    await p
      .getByTestId('tools-count')
      .getByText(`1 of ${BIG + 4} tools`)
      .waitFor();
    const search = Date.now() - t0;

    await p.getByRole('searchbox', { name: 'Search' }).fill('');
    t0 = Date.now();
    await p.getByLabel('Show').selectOption('attention');
    // Every tenth big tool lacks hints; the four published weather tools lack a title (Readiness fails them).
    await p
      .getByTestId('tools-count')
      .getByText(`${BIG / 10 + 4} of ${BIG + 4} tools`)
      .waitFor();
    const filter = Date.now() - t0;
    expect(await p.getByTestId('row-tool-big-op_0000').textContent()).toMatch(
      /op_0000.*Needs hints.*Missing: Read-only, Destructive, Open world/,
    );
    expect(await p.getByTestId('row-tool-weather-get_forecast').textContent()).toMatch(/Published.*No title/);
    expect(await p.getByTestId('row-tool-big-op_0001').count()).toBe(0);
    // Each problem links to the field that fixes it: the editor opens with focus there.
    const focusOn = (id: string) => p.locator(`#${id}:focus`).waitFor({ timeout: 10_000 });
    await p.getByTestId('row-tool-big-op_0000').getByRole('link', { name: 'Destructive' }).click();
    await focusOn('tool-big-op_0000-destructiveHint');
    await p.keyboard.press('Escape');
    await p.getByTestId('tool-drawer').waitFor({ state: 'detached' });
    await p.getByTestId('row-tool-weather-get_forecast').getByRole('link', { name: 'No title' }).click();
    await focusOn('tool-weather-get_forecast-title');
    await p.keyboard.press('Escape');
    await p.getByTestId('tool-drawer').waitFor({ state: 'detached' });
    await p
      .getByTestId('hints-summary')
      .getByText(`${BIG / 10 + 4} tools need attention`, { exact: false })
      .waitFor();
    // Generous bounds for a shared 2-core machine, far below what one editor per tool took.
    expect(render).toBeLessThan(5_000);
    expect(search).toBeLessThan(1_000);
    expect(filter).toBeLessThan(1_000);
    process.stdout.write(`tools table at ${BIG + 4} tools: render ${render} ms, search ${search} ms, filter ${filter} ms\n`);
    await p.getByLabel('Show').selectOption('');
    await shots('tools', false);
    await expectIntact(b);
  });

  it('shows the reachability blocker on Connect, over the hosted-client steps', async () => {
    await nav('Connect');
    await heading('Connect');
    await p
      .getByTestId('reachability-banner')
      .getByText(/127\.0\.0\.1 is a loopback address/)
      .waitFor();
    await p.getByText(/ChatGPT connects from OpenAI's servers: it cannot reach this URL/).waitFor();
    await expectIntact(b);
  });

  it('Home counts a connected client once calls arrive; screenshots of Home and Preview', async () => {
    // One real call through the gateway: the checklist's "connect" step.
    const res = await fetch(`${s.gateway.url}/t/acme/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_forecast', arguments: { text: 'x' } } }),
    });
    expect(res.status).toBe(200);
    await until(
      'usage metered',
      async () => ((await api(registry.url, key, 'GET', '/v1/usage?groupBy=day')).body.usage as unknown[] | undefined)?.length === 1,
      30_000,
      100,
    );
    await nav('Home');
    await p.getByTestId('checklist').waitFor();
    expect(await step('publish').getAttribute('data-done')).toBe('true');
    expect(await step('connect').getAttribute('data-done')).toBe('true');
    expect(await step('readiness').getAttribute('data-done')).toBe('false');
    // The big server's hint-less tools hold the review step open: it is the next one again.
    expect(await step('review').getAttribute('aria-current')).toBe('step');
    expect(await step('review').textContent()).toMatch(/104 of 1004 tools need attention/);
    await shots('home');
    await expectIntact(b);
  });

  it('previews a draft as Claude and ChatGPT present it, what the draft changes first', async () => {
    await nav('Tools');
    await p.getByRole('searchbox', { name: 'Search' }).fill('weather get_forecast');
    const tool = await openTool(p, 'weather', 'get_forecast');
    await tool.getByLabel('Title', { exact: true }).fill('Get the forecast');
    await tool.getByRole('button', { name: 'Preview before publishing' }).click();
    await heading('Preview — draft');
    const changes = p.getByTestId('draft-changes');
    await changes.waitFor();
    // The draft-vs-live diff comes before the per-tool detail.
    const order = await p
      .locator('[data-testid="draft-changes"], [data-testid^="cards-"]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')));
    expect(order[0]).toBe('draft-changes');
    expect(await changes.locator('tr', { hasText: 'title' }).first().textContent()).toMatch(/^title—"Get the forecast"$/);
    const cards = p.getByTestId('cards-get_forecast');
    for (const client of ['Claude', 'ChatGPT']) {
      const card = cards.locator(`[data-client="${client}"]`);
      expect(await card.textContent()).toMatch(/Get the forecast.*get_forecast/);
      expect(await card.textContent()).toContain('Read-only: can run without asking');
      expect(await card.textContent()).toMatch(/text\s*string/);
    }
    await shots('preview');
    await p.getByRole('button', { name: 'Discard draft' }).click();
    await heading('Tools');
    await expectIntact(b);
  });
});

// The Readiness page in Chromium (issue 7): run against a correctly configured tenant on the real
// gateway it shows every check passing; pointed (its "URL to check" field, the API's body.url) at
// a deliberately broken connector it shows exactly the failing check with its reason and fix, for
// each of the five breakages; and for a tenant whose published catalog is itself broken (its
// surface rules leak securitySchemes to Claude / drop annotations.title) it names that failure on
// the tenant's own URL, and passes again once the title is fixed from the Tools page.
import type { Locator } from 'playwright-core';
import { startFakeConnector, type Breakage, type FakeConnector } from './support/fake-connector';
import { expectIntact, freePort, openConsoleBrowser, type ConsoleBrowser } from './support/console-browser';
import { startDocsUpstream } from './support/docs-upstream';
import {
  api,
  cleanRedis,
  createDatabase,
  createTenant,
  registerAndDiscover,
  startGateway,
  startRegistry,
  testEnv,
  until,
  type Proc,
} from './support/harness';

jest.setTimeout(90_000);

/** A surface rule change reaches the gateway through Redis: poll tools/list as Claude until `ok`. */
async function claudeToolsUntil(mcpUrl: string, what: string, ok: (tool: Record<string, unknown>) => boolean): Promise<void> {
  await until(what, async () => {
    const res = await fetch(mcpUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
        'user-agent': 'Claude-User/1.0 (+https://claude.ai)',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    if (res.status !== 200) return false;
    const tool = ((await res.json()) as { result?: { tools?: Array<Record<string, unknown>> } }).result?.tools?.[0];
    return tool !== undefined && ok(tool);
  });
}

describe('Readiness page in Chromium', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let gateway: Proc;
  let upstream: Awaited<ReturnType<typeof startDocsUpstream>>;
  let key: string;
  let mcpUrl: string;
  let b: ConsoleBrowser;
  const fakes: FakeConnector[] = [];

  beforeAll(async () => {
    b = await openConsoleBrowser();
    db = await createDatabase();
    upstream = await startDocsUpstream({ hints: 'all' });
    const gatewayPort = await freePort();
    // Fake connectors listen on 127.0.0.1 over plain http: the operator allow-list lets the check reach them.
    registry = await startRegistry(env, db.url, {
      GATEWAY_PUBLIC_URL: `http://127.0.0.1:${gatewayPort}`,
      REGISTRY_ALLOW_HTTP_HOSTS: 'localhost,127.0.0.1',
    });
    key = await createTenant(registry.url, env.operatorKey, 'acme');
    gateway = await startGateway(env, registry.url, { GATEWAY_PORT: String(gatewayPort) });
    mcpUrl = `${gateway.url}/t/acme/mcp`;
    // A correctly configured tenant: one titled, fully hinted tool published.
    await registerAndDiscover(registry.url, key, { id: 'docs', name: 'Docs', url: upstream.url });
    const published = await api(registry.url, key, 'POST', '/v1/publications', {
      serverId: 'docs',
      items: [{ kind: 'tool', name: 'search_docs', overrides: { title: 'Search docs' } }],
    });
    if (published.status !== 200) throw new Error(`publish: ${published.status} ${JSON.stringify(published.body)}`);
    await claudeToolsUntil(mcpUrl, 'the gateway serves search_docs', (t) => t.title === 'Search docs');

    const p = b.page;
    await p.goto(`${registry.url}/console/readiness`);
    await p.getByLabel('Tenant API key').fill(key);
    await p.getByRole('button', { name: 'Sign in', exact: true }).click();
    await p.getByRole('heading', { name: 'Readiness', level: 1 }).waitFor();
  });

  afterAll(async () => {
    await b?.close();
    for (const f of fakes) await f.close();
    await gateway?.stop();
    await registry?.stop();
    await upstream?.close();
    await db?.drop();
    await cleanRedis(env);
  });

  /** Runs the check from a fresh Readiness page (no earlier report on it) and waits for the report of `url`. */
  async function runFromPage(url: string | undefined, token?: string) {
    const p = b.page;
    await p.reload();
    await p.getByRole('heading', { name: 'Readiness', level: 1 }).waitFor();
    expect(await p.getByTestId('readiness-report').count()).toBe(0);
    if (url) await p.getByLabel('URL to check (optional)').fill(url);
    if (token) await p.getByLabel('Access token (optional)').fill(token);
    await p.getByRole('button', { name: 'Run readiness check' }).click();
    const report = p.getByTestId('readiness-report');
    await report.getByRole('heading', { name: `Results for ${url ?? mcpUrl}` }).waitFor({ timeout: 30_000 });
    return report;
  }

  /** `check-<id>=<status>` of every check shown, in page order. */
  const statuses = (report: Locator) =>
    report
      .locator('[data-testid^="check-"][data-status]')
      .evaluateAll((els) =>
        els.map((e) => `${(e.getAttribute('data-testid') ?? '').slice('check-'.length)}=${e.getAttribute('data-status')}`),
      );

  it("passes every check against the tenant's own MCP URL (real gateway)", async () => {
    const report = await runFromPage(undefined);
    const all = await statuses(report);
    // Discovery, version headers, event stream, the Claude and ChatGPT tool lists, the 401 probe.
    for (const id of [
      'modern-discover',
      'version-header-quirk',
      'legacy-initialize',
      'newer-version-header',
      'event-stream',
      'claude-no-security-schemes',
      'tool-titles',
      'tool-hints',
      'chatgpt-tools',
    ]) {
      expect(all).toContain(`${id}=pass`);
    }
    // The OAuth challenge does not apply to an open tenant: skipped, not passed.
    expect(all.filter((s) => !s.endsWith('=pass'))).toEqual(['auth-challenge=skip']);
    await b.page.getByTestId('readiness-summary').getByText('0 failed').waitFor();
    await b.page.getByTestId('readiness-summary').getByText('1 skipped (not applicable)').waitFor();
    // The tenant's URL is on 127.0.0.1: a pass here does not mean claude.ai can connect, and the page says so first.
    expect(await b.page.getByTestId('reachability-banner').textContent()).toMatch(
      /claude\.ai and ChatGPT cannot reach this endpoint.*127\.0\.0\.1 is a loopback address/,
    );
    await b.shot('readiness-pass');
    await expectIntact(b);
  });

  it('passes every check, the OAuth chain included, for the unbroken fake connector given its access token', async () => {
    const fake = await startFakeConnector({ protectedBy: 'good-token' });
    fakes.push(fake);
    const report = await runFromPage(fake.url, 'good-token');
    const all = await statuses(report);
    for (const id of ['auth-challenge', 'prm-resource']) expect(all).toContain(`${id}=pass`);
    expect(all.filter((s) => !s.endsWith('=pass'))).toEqual([]);
  });

  const broken: Array<[string, Breakage, string, (url: string) => RegExp, RegExp]> = [
    [
      'PRM resource mismatch',
      { protectedBy: 'good-token', prmResource: 'https://api.example.com/mcp' },
      'prm-resource',
      (url) =>
        new RegExp(
          `PRM resource is https://api\\.example\\.com/mcp but the connector URL is ${url.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`,
        ),
      /resource to exactly http:\/\/127\.0\.0\.1:\d+\/mcp/,
    ],
    [
      'GET answered 405',
      { get405: true },
      'event-stream',
      () => /GET with Accept: text\/event-stream answered 405; Claude treats the server as dead/,
      /200 and Content-Type text\/event-stream/,
    ],
    [
      'no annotations.title',
      { noAnnotationTitle: true },
      'tool-titles',
      () => /^no annotations\.title on 1 tool\(s\): "search_docs"/,
      /Set a title override \(and annotations\.title\)/,
    ],
    [
      'securitySchemes leaking to Claude',
      { securitySchemesToClaude: true },
      'claude-no-security-schemes',
      () => /^securitySchemes leak to Claude on 1 tool\(s\): "search_docs"$/,
      /send it only to ChatGPT/,
    ],
    [
      'a rejected protocol-version header',
      { strictVersionHeader: true },
      'version-header-quirk',
      () => /MCP-Protocol-Version 2025-11-25 and _meta protocolVersion 2026-07-28 got HTTP 400 with JSON-RPC error -32020/,
      /do not answer −32020/,
    ],
  ];

  it.each(broken)(
    'names %s on a connector broken that way: exactly that check fails, with its reason and fix',
    async (_label, breakage, id, reason, fix) => {
      const fake = await startFakeConnector(breakage);
      fakes.push(fake);
      const report = await runFromPage(fake.url, breakage.protectedBy);
      const all = await statuses(report);
      expect(all.filter((s) => s.endsWith('=fail'))).toEqual([`${id}=fail`]);
      // Failures are listed first, each with what went wrong and how to fix it.
      expect(all[0]).toBe(`${id}=fail`);
      const item = report.getByTestId(`check-${id}`);
      expect(await item.locator('.badge').first().textContent()).toBe('Fail');
      expect(await item.locator('p').first().textContent()).toMatch(reason(fake.url));
      expect(await item.locator('p.fix').textContent()).toMatch(fix);
      await b.page.getByTestId('readiness-summary').getByText('1 failed').waitFor();
      await b.shot(`readiness-fail-${id}`);
      await expectIntact(b);
    },
  );

  it("names securitySchemes leaking to Claude on the tenant's own URL when its surface rules publish them there", async () => {
    const patched = await api(registry.url, key, 'PATCH', '/v1/tenant', {
      surfaceRules: { surfaces: { claude: { publishSecuritySchemes: true, keepMetaKeys: ['securitySchemes'] } } },
    });
    expect(patched.status).toBe(200);
    await claudeToolsUntil(
      mcpUrl,
      'Claude receives securitySchemes',
      (t) => 'securitySchemes' in ((t._meta as Record<string, unknown> | undefined) ?? {}),
    );
    const report = await runFromPage(undefined);
    expect((await statuses(report)).filter((s) => s.endsWith('=fail'))).toEqual(['claude-no-security-schemes=fail']);
    expect(await report.getByTestId('check-claude-no-security-schemes').locator('p').first().textContent()).toBe(
      'securitySchemes leak to Claude on 1 tool(s): "search_docs"',
    );
    await b.shot('readiness-tenant-security-schemes');
  });

  it("names a missing annotations.title on the tenant's own URL, and passes once the title is set on the Tools page", async () => {
    const patched = await api(registry.url, key, 'PATCH', '/v1/tenant', {
      surfaceRules: { surfaces: { claude: { mirrorTitleToAnnotations: false } } },
    });
    expect(patched.status).toBe(200);
    await claudeToolsUntil(
      mcpUrl,
      'Claude receives no annotations.title',
      (t) => t._meta === undefined && typeof (t.annotations as Record<string, unknown> | undefined)?.title !== 'string',
    );
    let report = await runFromPage(undefined);
    expect((await statuses(report)).filter((s) => s.endsWith('=fail'))).toEqual(['tool-titles=fail']);
    expect(await report.getByTestId('check-tool-titles').locator('p').first().textContent()).toMatch(
      /^no annotations\.title on 1 tool\(s\): "search_docs"/,
    );
    await b.shot('readiness-tenant-no-annotation-title');

    // The fix the check names, done in the console: an annotations.title override, published.
    const p = b.page;
    // The fix links to the field that fixes it: the tool's editor opens with focus on its annotation title.
    await report.getByTestId('fix-tool-titles').getByText('Fix search_docs in Tools').click();
    await p.getByRole('heading', { name: 'Tools', level: 1 }).waitFor();
    const tool = p.getByTestId('tool-drawer').getByTestId('tool-docs-search_docs');
    await p.locator('#tool-docs-search_docs-annotations-title:focus').waitFor({ timeout: 10_000 });
    await tool.getByText('Published as search_docs').first().waitFor();
    await tool.getByLabel('Annotation title (annotations.title)').fill('Search docs');
    await tool.getByRole('button', { name: 'Save and publish' }).click();
    await tool.getByText('Published as search_docs.').waitFor();
    await claudeToolsUntil(
      mcpUrl,
      'Claude receives annotations.title',
      (t) => (t.annotations as Record<string, unknown> | undefined)?.title === 'Search docs',
    );
    await p.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: 'Readiness', exact: true }).click();
    report = await runFromPage(undefined);
    expect((await statuses(report)).filter((s) => !s.endsWith('=pass'))).toEqual(['auth-challenge=skip']);
    await expectIntact(b);
  });

  it('links a tool ChatGPT does not list to the Explain panel, which names the rule hiding it', async () => {
    const patched = await api(registry.url, key, 'PATCH', '/v1/tenant', { surfaceRules: { surfaces: { openai: { maxNameLength: 5 } } } });
    expect(patched.status).toBe(200);
    await until('ChatGPT lists no tool', async () => {
      const res = await fetch(mcpUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
          'user-agent': 'openai-mcp/1.0',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      return res.status === 200 && ((await res.json()) as { result?: { tools?: unknown[] } }).result?.tools?.length === 0;
    });
    const report = await runFromPage(undefined);
    expect((await statuses(report)).filter((s) => s.endsWith('=fail'))).toEqual(['chatgpt-tools=fail']);
    await report.getByTestId('explain-chatgpt-tools').click();
    const p = b.page;
    await p.getByRole('heading', { name: 'Tools', level: 1 }).waitFor();
    const row = p.getByTestId('explain-rules-search_docs').locator('tr[data-rule="name-length"]');
    await row.waitFor();
    expect(await row.innerText()).toMatch(/hide[\s\S]*more than openai accepts \(5\)/);
    await expectIntact(b);
  });
});

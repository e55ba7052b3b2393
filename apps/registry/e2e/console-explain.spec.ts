// The Explain API (issue 45 item 4) against the built registry, and the Tools page's "Why not
// visible?" panel in Chromium: a tool hidden by discovery mode on Claude names the rule and links
// to where it changes; an unpublished tool says so from its editor drawer.
// Run `npx tsc -b tsconfig.build.json` and `npx vite build apps/console` first.
import { expectIntact, openConsoleBrowser, openTool, signInWithKey, type ConsoleBrowser } from './support/console-browser';
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
  type Proc,
  type TestUpstream,
} from './support/harness';

jest.setTimeout(120_000);

interface Step {
  rule: string;
  verdict: string;
  fix?: { href: string };
}
interface Explained {
  tool: string;
  listed: boolean;
  callable: string;
  rules: Step[];
}

describe('GET /v1/explain and the Tools page panel', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let billing: TestUpstream;
  let key: string;
  let b: ConsoleBrowser;

  const explain = async (query: string) => api(registry.url, key, 'GET', `/v1/explain?${query}`);
  const rule = (t: Explained, id: string) => t.rules.find((s) => s.rule === id);

  beforeAll(async () => {
    b = await openConsoleBrowser();
    db = await createDatabase();
    billing = await startUpstream('billing', [
      { name: 'create_invoice', annotations: READ_ONLY_HINTS },
      { name: 'list_invoices', annotations: READ_ONLY_HINTS },
      { name: 'void_invoice' },
    ]);
    registry = await startRegistry(env, db.url);
    key = await createTenant(registry.url, env.operatorKey, 'acme');
    await registerAndDiscover(registry.url, key, { id: 'billing', name: 'Billing', url: billing.url });
    const pub = await api(registry.url, key, 'POST', '/v1/publications', {
      serverId: 'billing',
      items: [{ name: 'create_invoice' }, { name: 'list_invoices' }],
    });
    if (pub.status !== 200) throw new Error(`publish: ${pub.status} ${JSON.stringify(pub.body)}`);
    const put = await api(registry.url, key, 'PUT', '/v1/discovery', {
      mode: 'off',
      pinned: ['list_invoices'],
      surfaces: { claude: { mode: 'on' } },
    });
    if (put.status !== 200) throw new Error(`discovery: ${put.status} ${JSON.stringify(put.body)}`);
  });

  afterAll(async () => {
    await b?.close();
    await registry?.stop();
    await billing?.close();
    await db?.drop();
    await cleanRedis(env);
  });

  it('explains a tool hidden by discovery mode on Claude and listed on the generic surface', async () => {
    const claude = await explain('tool=create_invoice&surface=claude');
    expect(claude.status).toBe(200);
    const [t] = claude.body.tools as Explained[];
    expect(t).toMatchObject({ tool: 'create_invoice', listed: false, callable: 'yes' });
    expect(rule(t!, 'discovery')).toMatchObject({ verdict: 'hide', fix: { href: '/console/preview' } });
    expect(rule(t!, 'listed')?.verdict).toBe('hide');
    const generic = (await explain('tool=create_invoice&surface=generic')).body.tools as Explained[];
    expect(generic[0]).toMatchObject({ listed: true, callable: 'yes' });
  });

  it('lists every tool a surface does not list when no tool is named', async () => {
    const all = await explain('surface=claude');
    const names = (all.body.tools as Explained[]).map((t) => t.tool).sort();
    expect(names).toEqual(['create_invoice', 'void_invoice']);
    const unpublished = (all.body.tools as Explained[]).find((t) => t.tool === 'void_invoice');
    expect(rule(unpublished!, 'published')?.verdict).toBe('hide');
    expect(rule(unpublished!, 'publish-checks')?.verdict).toBe('hide');
  });

  it('judges the call rules of a protected tenant for the given subject and scopes', async () => {
    const patch = await api(registry.url, key, 'PATCH', '/v1/tenant/auth', {
      protected: true,
      scopes: ['mcp:tools', 'billing:write'],
      toolScopes: { create_invoice: ['billing:write'] },
    });
    expect(patch.status).toBe(200);
    const refused = (await explain('tool=create_invoice&surface=generic&subject=bob&scopes=mcp:tools')).body.tools as Explained[];
    expect(refused[0]).toMatchObject({ listed: true, callable: 'no' });
    expect(rule(refused[0]!, 'tool-scopes')).toMatchObject({ verdict: 'refuse', fix: { href: '/console/auth' } });
    expect(rule(refused[0]!, 'user')?.verdict).toBe('conditional');
    const allowed = (await explain('tool=create_invoice&surface=generic&scopes=mcp:tools%20billing:write')).body.tools as Explained[];
    expect(allowed[0]).toMatchObject({ callable: 'yes' });
    expect(await explain('subject=not%20a%20user')).toMatchObject({ status: 400, body: { error: { field: 'query.subject' } } });
    await api(registry.url, key, 'PATCH', '/v1/tenant/auth', { protected: false });
  });

  it('refuses bad input naming the field', async () => {
    expect(await explain('surface=nope')).toMatchObject({ status: 404, body: { error: { field: 'query.surface' } } });
    expect(await explain('version=1999-01-01')).toMatchObject({ status: 400, body: { error: { field: 'query.version' } } });
    const tooMany = Array.from({ length: 65 }, (_, i) => `s${i}`).join(' ');
    expect(await explain(`scopes=${encodeURIComponent(tooMany)}`)).toMatchObject({
      status: 400,
      body: { error: { field: 'query.scopes' } },
    });
    expect(await explain('bogus=1')).toMatchObject({ status: 400 });
  });

  it('shows the rules in the "Why not visible?" panel and follows a fix link', async () => {
    const p = b.page;
    await signInWithKey(p, registry.url, key, 'Tools');
    const panel = p.getByTestId('explain-panel');
    await panel.getByLabel('Tool name').fill('create_invoice');
    await panel.getByLabel('Client').selectOption('claude');
    await panel.getByRole('button', { name: 'Explain' }).click();
    const rules = panel.getByTestId('explain-rules-create_invoice');
    await rules.waitFor();
    expect(await panel.getByTestId('explain-create_invoice').getByRole('status').innerText()).toContain('not listed · callable on claude');
    const discovery = rules.locator('tr[data-rule="discovery"]');
    expect(await discovery.innerText()).toContain('hide');
    await expectIntact(b);
    await b.shot('tools-explain');
    await discovery.getByRole('link').click();
    await p.getByRole('heading', { name: 'Preview', exact: true, level: 1 }).waitFor();
  });

  it('opens the panel from the address Readiness links to, listing every tool the surface hides', async () => {
    const p = b.page;
    await signInWithKey(p, registry.url, key, 'Tools');
    await p.goto(`${registry.url}/console/tools?explain=&surface=claude`);
    const panel = p.getByTestId('explain-panel');
    await panel.getByTestId('explain-rules-void_invoice').waitFor();
    expect(await panel.getByTestId('explain-rules-create_invoice').count()).toBe(1);
    expect(await panel.getByTestId('explain-rules-list_invoices').count()).toBe(0);
    await expectIntact(b);
  });

  it('explains an unpublished tool from its editor drawer', async () => {
    const p = b.page;
    await signInWithKey(p, registry.url, key, 'Tools');
    await openTool(p, 'billing', 'void_invoice');
    await p.getByTestId('tool-drawer').getByRole('button', { name: 'Why not visible?' }).click();
    const published = p.getByTestId('explain-rules-void_invoice').locator('tr[data-rule="published"]');
    await published.waitFor();
    expect(await published.innerText()).toContain('Not published');
    expect(await p.getByTestId('explain-rules-void_invoice').locator('tr[data-rule="publish-checks"]').innerText()).toContain('read-only');
    await expectIntact(b);
  });
});

// The console's Preview page in Chromium (issue 45): once the tenant turns discovery mode on, a
// card names each surface in discovery mode, the tools its first tools/list carries and the
// pinned ones; with discovery off the card is absent and the page is what it was.
import { expectIntact, openConsoleBrowser, signInWithKey, type ConsoleBrowser } from './support/console-browser';
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

jest.setTimeout(90_000);

describe('Preview page: discovery mode', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let crm: TestUpstream;
  let key: string;
  let b: ConsoleBrowser;

  beforeAll(async () => {
    b = await openConsoleBrowser();
    db = await createDatabase();
    crm = await startUpstream('crm', [
      { name: 'lookup_contact', annotations: READ_ONLY_HINTS },
      { name: 'create_lead', annotations: READ_ONLY_HINTS },
    ]);
    registry = await startRegistry(env, db.url);
    key = await createTenant(registry.url, env.operatorKey, 'acme');
    await registerAndDiscover(registry.url, key, { id: 'crm', name: 'CRM', url: crm.url });
    const pub = await api(registry.url, key, 'POST', '/v1/publications', {
      serverId: 'crm',
      items: [{ name: 'lookup_contact' }, { name: 'create_lead' }],
    });
    if (pub.status !== 200) throw new Error(`publish: ${pub.status} ${JSON.stringify(pub.body)}`);
  });

  afterAll(async () => {
    await b?.close();
    await registry?.stop();
    await crm?.close();
    await db?.drop();
    await cleanRedis(env);
  });

  it('shows no discovery card while discovery is off', async () => {
    await signInWithKey(b.page, registry.url, key, 'Preview');
    await b.page.getByTestId('preview-dynamic-resources').waitFor();
    expect(await b.page.getByTestId('preview-discovery').count()).toBe(0);
    await expectIntact(b);
  });

  it('names the surfaces in discovery mode, their first list and their pinned tools', async () => {
    const put = await api(registry.url, key, 'PUT', '/v1/discovery', {
      mode: 'on',
      pinned: ['lookup_contact'],
      surfaces: { openai: { mode: 'off' } },
    });
    expect(put.status).toBe(200);
    await signInWithKey(b.page, registry.url, key, 'Preview');
    const card = b.page.getByTestId('preview-discovery');
    await card.waitFor();
    const generic = await card.getByTestId('discovery-generic').textContent();
    expect(generic).toContain('first tools/list: search_tools, describe_tools, lookup_contact');
    expect(generic).toContain('all 2 published tools');
    expect(generic).toContain('pinned: lookup_contact');
    expect(await card.getByTestId('discovery-claude').count()).toBe(1);
    expect(await card.getByTestId('discovery-openai').count()).toBe(0);
    await expectIntact(b);
    await b.shot('preview-discovery');
  });
});

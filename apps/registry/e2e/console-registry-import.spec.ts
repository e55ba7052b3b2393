// The console's "Add from the MCP Registry" form in Chromium: a name the registry does not know is
// refused beside the field; a known remote server is registered and discovered. Run
// `npx tsc -b tsconfig.build.json` and `npx vite build apps/console` first.
import type { Page } from 'playwright-core';
import { expectFieldError, expectIntact, openConsoleBrowser, type ConsoleBrowser } from './support/console-browser';
import {
  api,
  cleanRedis,
  createDatabase,
  createTenant,
  READ_ONLY_HINTS,
  startRegistry,
  startUpstream,
  testEnv,
  until,
  type Proc,
  type TestUpstream,
} from './support/harness';
import { LocalMcpRegistry } from './support/local-mcp-registry';

jest.setTimeout(180_000);

describe('console import from the MCP Registry in Chromium', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let upstream: TestUpstream;
  let key: string;
  let b: ConsoleBrowser;
  let p: Page;
  const mcpRegistry = new LocalMcpRegistry();

  beforeAll(async () => {
    b = await openConsoleBrowser();
    p = b.page;
    db = await createDatabase();
    upstream = await startUpstream('weather', [{ name: 'forecast', annotations: READ_ONLY_HINTS }]);
    await mcpRegistry.start();
    mcpRegistry.servers.set('io.example/weather', {
      name: 'io.example/weather',
      title: 'Weather',
      description: 'Forecasts',
      version: '2.0.0',
      remotes: [{ type: 'streamable-http', url: upstream.url }],
    });
    registry = await startRegistry(env, db.url, { MCP_REGISTRY_URL: mcpRegistry.url });
    key = await createTenant(registry.url, env.operatorKey, 'acme');
  });

  afterAll(async () => {
    await b?.close();
    await registry?.stop();
    await upstream?.close();
    await mcpRegistry.stop();
    await db?.drop();
    await cleanRedis(env);
  });

  it('refuses an unknown name beside its field, then registers a known server and discovers it', async () => {
    await p.goto(`${registry.url}/console/`);
    await p.getByLabel('Tenant API key').fill(key);
    await p.getByRole('button', { name: 'Sign in', exact: true }).click();
    await p.getByRole('heading', { name: 'Home', exact: true, level: 1 }).waitFor();
    await p.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: 'Servers', exact: true }).click();
    await p.getByRole('heading', { name: 'Servers', exact: true, level: 1 }).waitFor();

    await p.getByLabel('Registry name').fill('io.example/nowhere');
    await p.getByRole('button', { name: 'Add from registry' }).click();
    await expectFieldError(p, 'imp-name', /not in the MCP registry/);

    await p.getByLabel('Registry name').fill('io.example/weather');
    await p.getByRole('button', { name: 'Add from registry' }).click();
    const server = await until('weather discovered', async () => {
      const s = await api(registry.url, key, 'GET', '/v1/servers/weather');
      return s.body.health === 'ok' ? s.body : undefined;
    });
    expect(server).toMatchObject({ name: 'Weather', url: upstream.url });
    await p.getByText('Weather', { exact: true }).first().waitFor();
    await expectIntact(b);
    await b.shot('servers-registry-import');
  });
});

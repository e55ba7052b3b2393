// What the product specs (console-product.spec.ts, console-observe.spec.ts) share: a registry and a
// gateway for tenant acme (the gateway on 127.0.0.1, so the reachability blocker shows), one
// Chromium, page helpers, and the screenshots for docs/console/.
import path from 'node:path';
import type { Page } from 'playwright-core';
import { freePort, openConsoleBrowser, SHOTS, type ConsoleBrowser } from './console-browser';
import { cleanRedis, createDatabase, createTenant, REPO_ROOT, startGateway, startRegistry, testEnv, type Proc } from './harness';

/** The committed screenshots of the product (docs/console/README.md names them). */
export const DOCS_SHOTS = path.join(REPO_ROOT, 'docs/console');

export interface ProductStack {
  env: ReturnType<typeof testEnv>;
  db: Awaited<ReturnType<typeof createDatabase>>;
  registry: Proc;
  gateway: Proc;
  key: string;
  b: ConsoleBrowser;
  p: Page;
  close(): Promise<void>;
}

export async function startProductStack(): Promise<ProductStack> {
  const env = testEnv();
  const b = await openConsoleBrowser();
  const db = await createDatabase();
  const gatewayPort = await freePort();
  const registry = await startRegistry(env, db.url, { GATEWAY_PUBLIC_URL: `http://127.0.0.1:${gatewayPort}` });
  const key = await createTenant(registry.url, env.operatorKey, 'acme');
  const gateway = await startGateway(env, registry.url, { GATEWAY_PORT: String(gatewayPort), USAGE_FLUSH_MS: '50' });
  return {
    env,
    db,
    registry,
    gateway,
    key,
    b,
    p: b.page,
    close: async () => {
      await b.close();
      await gateway.stop();
      await registry.stop();
      await db.drop();
      await cleanRedis(env);
    },
  };
}

/** The page helpers every product test uses. */
export function pageHelpers(p: Page) {
  return {
    nav: (label: string) => p.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: label, exact: true }).click(),
    heading: (name: string) => p.getByRole('heading', { name, exact: true, level: 1 }).waitFor(),
    step: (id: string) => p.getByTestId(`step-${id}`),
    /**
     * Both widths the console is laid out for, into <name>-<width>.png: under docs/console/ when
     * CONSOLE_DOCS_SHOTS=1 (run on purpose, then looked at and committed), else under
     * test-artifacts/console/docs/ so a normal run never rewrites the committed pictures.
     */
    shots: async (name: string, fullPage = true) => {
      const dir = process.env.CONSOLE_DOCS_SHOTS === '1' ? DOCS_SHOTS : path.join(SHOTS, 'docs');
      for (const width of [1280, 800]) {
        await p.setViewportSize({ width, height: 800 });
        // A first-screen shot starts at the top, wherever the test left the page scrolled.
        if (!fullPage) await p.evaluate('window.scrollTo(0, 0)');
        await p.screenshot({ path: path.join(dir, `${name}-${width}.png`), fullPage });
      }
      await p.setViewportSize({ width: 1280, height: 800 });
    },
  };
}

/** Signs in with the tenant's API key onto Home. */
export async function signInOnHome(s: ProductStack): Promise<void> {
  await s.p.goto(`${s.registry.url}/console/`);
  await s.p.getByLabel('Tenant API key').fill(s.key);
  await s.p.getByRole('button', { name: 'Sign in', exact: true }).click();
  await s.p.getByRole('heading', { name: 'Home', exact: true, level: 1 }).waitFor();
}

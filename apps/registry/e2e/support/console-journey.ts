// The stack the console journey specs share (console.spec.ts, console-sign-in.spec.ts): a Chromium,
// the real apps/auth platform issuer in-process, a registry whose console signs in through it, and a
// gateway. Each side needs another's URL, so the ports are reserved first.
import type { Page } from 'playwright-core';
import { freePort, openConsoleBrowser, type ConsoleBrowser } from './console-browser';
import { cleanRedis, createDatabase, createTenant, startGateway, startRegistry, testEnv, type Proc } from './harness';

/** The real auth service's in-process starter (apps/auth/e2e/support/auth-harness.ts), passed in by the spec: only specs may import another app. */
export type StartAuth = (o: { tenants: []; env: Record<string, string> }) => Promise<TestAuth>;
export interface TestAuth {
  baseUrl: string;
  close(): Promise<void>;
}

/** The tenant's first admin, created with the tenant; signs in at the platform issuer. */
export const ADA = { username: 'ada', password: 'correct horse battery', name: 'Ada Lovelace' };

export interface ConsoleJourney {
  b: ConsoleBrowser;
  auth: TestAuth;
  registry: Proc;
  gateway: Proc;
  /** The tenant acme's API key. */
  key: string;
  close(): Promise<void>;
}

/** Boots the stack with tenant `acme` (admin ADA). `registryEnv` adds to the registry's environment. */
export async function startConsoleJourney(startAuth: StartAuth, registryEnv: Record<string, string> = {}): Promise<ConsoleJourney> {
  const env = testEnv();
  const b = await openConsoleBrowser();
  const db = await createDatabase();
  const [registryPort, gatewayPort] = [await freePort(), await freePort()];
  const base = `http://127.0.0.1:${registryPort}`;
  const auth = await startAuth({
    tenants: [],
    env: {
      CONSOLE_REDIRECT_URI: `${base}/console/callback`,
      CONSOLE_AUDIENCE: `${base}/v1`,
      REGISTRY_INTERNAL_URL: base,
      INTERNAL_TOKEN: env.internalToken,
    },
  });
  const registry = await startRegistry(env, db.url, {
    REGISTRY_PORT: String(registryPort),
    CONSOLE_ISSUER: `${auth.baseUrl}/platform`,
    GATEWAY_PUBLIC_URL: `http://127.0.0.1:${gatewayPort}`,
    REGISTRY_ALLOW_HTTP_HOSTS: 'localhost,127.0.0.1',
    ...registryEnv,
  });
  const key = await createTenant(registry.url, env.operatorKey, 'acme', ADA);
  const gateway = await startGateway(env, registry.url, { GATEWAY_PORT: String(gatewayPort) });
  return {
    b,
    auth,
    registry,
    gateway,
    key,
    close: async () => {
      await b.close();
      await gateway.stop();
      await registry.stop();
      await auth.close();
      await db.drop();
      await cleanRedis(env);
    },
  };
}

/** Signs ADA in from the console's sign-in page through the issuer's form; resolves on Home. */
export async function platformSignIn(p: Page, j: ConsoleJourney): Promise<void> {
  await p.goto(`${j.registry.url}/console/`);
  await p.getByLabel('Workspace').fill('acme');
  await p.getByRole('button', { name: 'Sign in', exact: true }).click();
  await p.waitForURL((u) => u.href.startsWith(`${j.auth.baseUrl}/platform/interaction/`));
  await p.getByLabel('User name').fill(ADA.username);
  await p.getByLabel('Password').fill(ADA.password);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.waitForURL(`${j.registry.url}/console/home`);
  await p.getByTestId('signed-in-as').getByText(`Signed in as ${ADA.name}`).waitFor();
}

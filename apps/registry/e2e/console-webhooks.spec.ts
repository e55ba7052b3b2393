// The console's Webhooks page in Chromium against the built registry: an admin adds an endpoint
// (a bad URL is refused beside its field), sees the secret once, sends a test event that a
// verifying receiver accepts, and reads it in the delivery log; a viewer sees no controls.
// Run `npx tsc -b tsconfig.build.json` and `npx vite build apps/console` first.
import type { Page } from 'playwright-core';
import { expectFieldError, expectIntact, openConsoleBrowser, type ConsoleBrowser } from './support/console-browser';
import { api, cleanRedis, createDatabase, createTenant, startRegistry, testEnv, until, type Proc } from './support/harness';
import { WebhookReceiver } from './support/webhook-receiver';

jest.setTimeout(180_000);

describe('console Webhooks in Chromium', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let key: string;
  let viewerKey: string;
  let b: ConsoleBrowser;
  let p: Page;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    b = await openConsoleBrowser();
    p = b.page;
    db = await createDatabase();
    await receiver.start();
    registry = await startRegistry(env, db.url, { WEBHOOK_DISPATCH_MS: '50', WEBHOOK_BACKOFF_MS: '100' });
    key = await createTenant(registry.url, env.operatorKey, 'acme');
    viewerKey = String((await api(registry.url, key, 'POST', '/v1/keys', { name: 'viewer', role: 'viewer' })).body.apiKey);
  });

  afterAll(async () => {
    await b?.close();
    await registry?.stop();
    await receiver.stop();
    await db?.drop();
    await cleanRedis(env);
  });

  const signIn = async (apiKey: string) => {
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
    await p.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: 'Webhooks', exact: true }).click();
    await p.getByRole('heading', { name: 'Webhooks', exact: true, level: 1 }).waitFor();
  };

  it('adds an endpoint, shows the secret once, sends a test event and logs its delivery', async () => {
    await signIn(key);
    await p.getByLabel('Endpoint URL').fill('http://10.0.0.5/hook');
    await p.getByLabel(/Publish done/).check();
    await p.getByRole('button', { name: 'Add webhook' }).click();
    await expectFieldError(p, 'wh-url', /private|loopback|refused|not allowed|https/i);

    await p.getByLabel('Endpoint URL').fill(receiver.url);
    await p.getByRole('button', { name: 'Add webhook' }).click();
    const secret = (await p.locator('#webhook-secret-value').innerText()).trim();
    expect(secret).toMatch(/^whsec_/);
    receiver.secrets = [secret];
    const table = p.getByTestId('webhooks-table');
    expect(await table.innerText()).toContain(receiver.url);

    await table.getByRole('button', { name: 'Send test event' }).click();
    await until('the receiver verified the test event', () => receiver.delivered('webhook.test')[0]);
    const log = p.getByTestId('deliveries-table');
    await until('the log shows it delivered', async () => {
      await p.getByRole('button', { name: 'Refresh log' }).click();
      return (await log.innerText().catch(() => '')).includes('delivered');
    });
    expect(await log.innerText()).toContain(receiver.delivered('webhook.test')[0]?.id);
    // Reloaded, the page never shows the secret again.
    await p.reload();
    await p.getByTestId('webhooks-table').waitFor();
    expect(await p.content()).not.toContain(secret.slice(6));
    await expectIntact(b);
    await b.shot('webhooks-page');
  });

  it('shows a viewer the subscriptions and log but no controls', async () => {
    await signIn(viewerKey);
    const table = p.getByTestId('webhooks-table');
    await table.waitFor();
    expect(await table.getByRole('button', { name: 'Send test event' }).count()).toBe(0);
    expect(await p.getByRole('button', { name: 'Add webhook' }).count()).toBe(0);
    await table.getByRole('button', { name: 'Delivery log' }).click();
    await p.getByTestId('deliveries-table').waitFor();
    await expectIntact(b);
  });
});

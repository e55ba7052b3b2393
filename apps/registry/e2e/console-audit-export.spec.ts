// The console's audit export settings (Activity page) in Chromium against the built registry and a
// real local S3-compatible server: an owner saves a sink (a refused endpoint is shown beside its
// field), the export's state turns ok once objects land, and a viewer sees the state but no form.
// Run `npx tsc -b tsconfig.build.json` and `npx vite build apps/console` first.
import type { Page } from 'playwright-core';
import { expectFieldError, expectIntact, openConsoleBrowser, signInWithKey, type ConsoleBrowser } from './support/console-browser';
import { api, cleanRedis, createDatabase, createTenant, startRegistry, testEnv, until, type Proc } from './support/harness';
import { startLocalS3, type LocalS3 } from './support/local-s3';

jest.setTimeout(180_000);

describe('console audit export settings in Chromium', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let s3: LocalS3;
  let key: string;
  let viewerKey: string;
  let b: ConsoleBrowser;
  let p: Page;

  beforeAll(async () => {
    b = await openConsoleBrowser();
    p = b.page;
    db = await createDatabase();
    s3 = await startLocalS3(['console-audit']);
    registry = await startRegistry(env, db.url, { AUDIT_EXPORT_INTERVAL_MS: '100' });
    key = await createTenant(registry.url, env.operatorKey, 'acme');
    viewerKey = String((await api(registry.url, key, 'POST', '/v1/keys', { name: 'viewer', role: 'viewer' })).body.apiKey);
  });

  afterAll(async () => {
    await b?.close();
    await registry?.stop();
    await s3?.close();
    await db?.drop();
    await cleanRedis(env);
  });

  const signIn = (apiKey: string) => signInWithKey(p, registry.url, apiKey, 'Activity');

  it('saves a sink, shows a refused endpoint beside its field, and the export turning ok', async () => {
    await signIn(key);
    const form = p.getByRole('form', { name: 'Audit export' });
    await form.getByLabel('Endpoint').fill('https://10.0.0.7:9000');
    await form.getByLabel('Bucket').fill('console-audit');
    await form.getByLabel('Access key id').fill(s3.credential.accessKeyId);
    await form.getByLabel('Secret access key').fill(s3.credential.secretAccessKey);
    await form.getByRole('button', { name: 'Save export' }).click();
    await expectFieldError(p, 'ae-endpoint', /blocked address range/);

    await form.getByLabel('Endpoint').fill(s3.endpoint);
    await form.getByRole('button', { name: 'Save export' }).click();
    await p.getByTestId('audit-export-saved').waitFor();
    // The secret is write-only: the field is empty again after saving.
    expect(await form.getByLabel('Secret access key').inputValue()).toBe('');
    await until('objects in the bucket', async () => ((await s3.list('console-audit', 'tenant=acme/')).length > 0 ? true : undefined));
    await until('the state shows ok', async () => {
      await p.getByRole('button', { name: 'Export now' }).click();
      return /\bok\b/.test(await p.getByTestId('audit-export-state').innerText()) ? true : undefined;
    });
    expect(await p.getByTestId('audit-export-state').innerText()).toContain('console-audit/');
    await expectIntact(b);
    await b.shot('audit-export');
  });

  it('shows a viewer the state but no form', async () => {
    await signIn(viewerKey);
    await p.getByTestId('audit-export-state').waitFor();
    expect(await p.getByRole('form', { name: 'Audit export' }).count()).toBe(0);
    expect(await p.getByRole('button', { name: 'Stop exporting' }).count()).toBe(0);
    expect(await p.getByText('changing the audit export needs the owner role').count()).toBe(1);
    await expectIntact(b);
  });
});

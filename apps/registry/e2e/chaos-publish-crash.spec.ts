// Chaos (issue 12): the registry dies (SIGKILL) at every step of a publish. The test-only hook
// REGISTRY_CRASH_AT=<step> makes the process kill itself with SIGKILL at that step (as `kill -9`
// would, with no chance to clean up), so each step is hit exactly rather than by timing. After a
// restart, Postgres (publications, current snapshot), Redis and a gateway that ran throughout agree
// on one version within seconds. The registry runs on its *embedded* Postgres in a temp dir, so
// every restart also exercises the takeover of the orphaned Postgres the killed process left behind.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import {
  api,
  cleanRedis,
  createTenant,
  READ_ONLY_HINTS,
  REDIS_URL,
  registerAndDiscover,
  registryEnv,
  spawnApp,
  startGateway,
  startUpstream,
  testEnv,
  type Proc,
  type TestUpstream,
} from './support/harness';
import { freePort, poll } from './support/private-services';

jest.setTimeout(180_000);

const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
};
const TOOLS = ['t0', 't1', 't2', 't3', 't4', 't5'];

describe('chaos: kill -9 of the registry at each step of a publish', () => {
  const env = testEnv();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sb-chaos-embedded-'));
  let pgPort: number;
  let port: number;
  let registry: Proc | undefined;
  let gateway: Proc;
  let upstream: TestUpstream;
  let key: string;
  const redis = new Redis(REDIS_URL);
  const recoveries: Array<{ step: string; expected: string; listenMs: number; agreeMs: number }> = [];

  const spawnRegistry = (crashAt?: string) =>
    spawnApp(
      'registry',
      'apps/registry/dist/main.js',
      {
        ...registryEnv(env),
        REGISTRY_PORT: String(port),
        REGISTRY_EMBEDDED_PG_DIR: dataDir,
        REGISTRY_EMBEDDED_PG_PORT: String(pgPort),
        LOG_LEVEL: 'info',
        ...(crashAt ? { REGISTRY_CRASH_AT: crashAt } : {}),
      },
      /registry listening on (http:\/\/\S+)/,
      60_000,
    );

  const killed = (p: Proc) =>
    new Promise<void>((resolve) =>
      p.child.exitCode !== null || p.child.signalCode !== null ? resolve() : p.child.once('exit', () => resolve()),
    );

  const servedNames = async (): Promise<string[] | undefined> => {
    const res = await fetch(`${gateway.url}/t/acme/mcp`, {
      method: 'POST',
      headers: MCP_HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    if (res.status !== 200) return undefined;
    return ((await res.json()) as { result?: { tools: Array<{ name: string }> } }).result?.tools.map((t) => t.name).sort();
  };
  const servedInstructions = async (): Promise<string | undefined> => {
    const res = await fetch(`${gateway.url}/t/acme/mcp`, {
      method: 'POST',
      headers: MCP_HEADERS,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'chaos', version: '1' } },
      }),
    });
    return ((await res.json()) as { result?: { instructions?: string } }).result?.instructions;
  };

  /** Postgres (publications and the current snapshot), Redis and the gateway all say the same thing. */
  const agreement = async (base: string) => {
    const preview = await api(base, key, 'GET', '/v1/preview');
    if (preview.status !== 200 || preview.body.live !== true) return undefined; // publications differ from the current snapshot
    const pubs = await api(base, key, 'GET', '/v1/publications');
    const published = (pubs.body.publications as Array<{ exposedName: string }>).map((p) => p.exposedName).sort();
    const raw = await redis.get(`${env.namespace}sb:catalog:acme`);
    const inRedis = raw
      ? (JSON.parse(raw) as { snapshot: { version: string; tools: Array<{ definition: { name: string } }> } }).snapshot
      : undefined;
    if (!inRedis || inRedis.version !== preview.body.version) return undefined;
    const served = await servedNames();
    if (
      served?.join() !== published.join() ||
      inRedis.tools
        .map((t) => t.definition.name)
        .sort()
        .join() !== published.join()
    )
      return undefined;
    return { version: String(preview.body.version), published };
  };

  beforeAll(async () => {
    rmSync(dataDir, { recursive: true, force: true });
    pgPort = await freePort();
    port = await freePort();
    upstream = await startUpstream(
      'crm',
      TOOLS.map((name) => ({ name, annotations: READ_ONLY_HINTS })),
    );
    registry = await spawnRegistry();
    key = await createTenant(registry.url, env.operatorKey, 'acme');
    await registerAndDiscover(registry.url, key, { id: 'crm', name: 'CRM', url: upstream.url });
    expect((await api(registry.url, key, 'POST', '/v1/publications', { serverId: 'crm', items: [{ name: 't0' }] })).status).toBe(200);
    gateway = await startGateway(env, `http://127.0.0.1:${port}`, { REGISTRY_RESYNC_MS: '1000' });
    await poll('gateway serves t0', async () => (await servedNames())?.join() === 't0');
  });

  afterAll(async () => {
    await gateway?.stop();
    // A registry that died by a signal has nothing left to stop.
    if (registry && registry.child.exitCode === null && registry.child.signalCode === null) await registry.stop();
    await upstream?.close();
    redis.disconnect();
    await cleanRedis(env);
    // A failed run may have left the killed registry's embedded Postgres behind: stop it too.
    const pid = Number(
      (existsSync(path.join(dataDir, 'postmaster.pid')) ? readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8') : '').split('\n')[0],
    );
    if (pid > 0) {
      try {
        process.kill(pid, 'SIGQUIT');
      } catch {
        // already gone
      }
    }
    rmSync(dataDir, { recursive: true, force: true });
    if (recoveries.length)
      console.log(
        `registry kill -9 during publish, recovery after restart:\n${recoveries.map((r) => `  ${r.step.padEnd(15)} → ${r.expected.padEnd(4)} version agreed ${r.agreeMs} ms after spawn (listening after ${r.listenMs} ms)`).join('\n')}`,
      );
  });

  /** Kills the running registry, starts one that crashes at `step`, triggers it, and restarts a healthy one; returns what the restarted one agrees on. */
  const crashAndRecover = async (step: string, trigger: (base: string) => Promise<unknown>, expected: 'old' | 'new') => {
    if (registry) {
      registry.child.kill('SIGKILL');
      await killed(registry);
    }
    const crashing = await spawnRegistry(step);
    const exited = killed(crashing);
    await trigger(crashing.url).then(
      (r) => {
        throw new Error(`the request survived REGISTRY_CRASH_AT=${step}: ${JSON.stringify(r)}`);
      },
      () => undefined,
    );
    await exited;
    expect(crashing.child.signalCode).toBe('SIGKILL');
    expect(crashing.output()).toContain('REGISTRY_CRASH_AT: killing the process');
    const spawned = Date.now();
    registry = await spawnRegistry();
    const listenMs = Date.now() - spawned;
    // The killed registry's Postgres outlived it; the new one took it over instead of failing.
    expect(registry.output()).toMatch(/embedded Postgres of a previous run is still running; shutting it down to take over/);
    const agreed = await poll(`one agreed version after a crash at ${step}`, () => agreement(registry!.url), 30_000, 100);
    recoveries.push({ step, expected, listenMs, agreeMs: Date.now() - spawned });
    return agreed;
  };

  const publish = (tool: string) => (base: string) =>
    api(base, key, 'POST', '/v1/publications', { serverId: 'crm', items: [{ name: tool }] });

  it.each([
    ['after-rows', 't1', 'old'],
    ['after-snapshot', 't2', 'old'],
    ['after-commit', 't3', 'new'],
    ['after-push', 't4', 'new'],
  ] as const)('a crash at %s of POST /v1/publications (adding %s) converges on the %s version', async (step, tool, expected) => {
    const before = (await api(`http://127.0.0.1:${port}`, key, 'GET', '/v1/publications').catch(() => undefined))?.body.publications as
      Array<{ exposedName: string }> | undefined;
    const { published } = await crashAndRecover(step, publish(tool), expected);
    // Rows and snapshot commit together: an uncommitted publish leaves no publication rows behind either.
    if (expected === 'old') expect(published).not.toContain(tool);
    else expect(published).toContain(tool);
    if (before) expect(published.length).toBe(before.length + (expected === 'new' ? 1 : 0));
  });

  it('a crash between a committed settings change and its publish is finished from the outbox at boot', async () => {
    const instructions = `chaos instructions ${Date.now()}`;
    await crashAndRecover('before-publish', (base) => api(base, key, 'PATCH', '/v1/tenant', { instructions }), 'new');
    await poll('the gateway serves the new instructions', async () => (await servedInstructions()) === instructions, 15_000);
    expect(registry!.output()).toMatch(/finished a publication left half-done \(outbox\)/);
  });
});

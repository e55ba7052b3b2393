// The CLI's commands one by one through the built bin against a real registry and gateway (real
// Postgres, Redis, BullMQ; an SDK upstream): servers add|list|show|discover|rm, publish, preview
// --surface claude, changes / approve, usage, calls tail, limits, with --output json and the
// documented exit codes. Build first: `npx tsc -b tsconfig.build.json`.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { cleanRedis, createDatabase, createTenant, pollUntil, startGateway, startRegistry, testEnv, type Proc } from '@switchboard/testing';
import { startChangingUpstream, type ChangingUpstream } from './support/changing-upstream';
import { runCli } from './support/run-cli';

jest.setTimeout(180_000);

describe('switchboard commands against a live registry', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let gateway: Proc;
  let upstream: ChangingUpstream;
  let cliEnv: Record<string, string>;
  const json = async (args: string[], extra: Record<string, string | undefined> = {}) => {
    const run = await runCli([...args, '--output', 'json'], { ...cliEnv, ...extra });
    return { ...run, body: run.stdout ? JSON.parse(run.stdout) : undefined, error: run.stderr ? JSON.parse(run.stderr).error : undefined };
  };

  beforeAll(async () => {
    db = await createDatabase();
    upstream = await startChangingUpstream();
    registry = await startRegistry(env, db.url);
    const key = await createTenant(registry.url, env.operatorKey, 'beta');
    gateway = await startGateway(env, registry.url, { USAGE_FLUSH_MS: '100' });
    cliEnv = { SWITCHBOARD_URL: registry.url, SWITCHBOARD_API_KEY: key, CRM_TOKEN: 'crm-secret' };
  });

  afterAll(async () => {
    await gateway?.stop();
    await registry?.stop();
    await upstream?.stop();
    await db?.drop();
    await cleanRedis(env);
  });

  it('adds a server with its secret from the environment, waits for discovery, lists and shows it', async () => {
    const add = await json(['servers', 'add', 'crm', '--url', upstream.url, '--auth', 'bearer', '--secret-env', 'CRM_TOKEN', '--wait']);
    expect(add.code).toBe(0);
    expect(add.body).toMatchObject({ id: 'crm', health: 'ok', auth: { mode: 'bearer', hasSecret: true }, discovery: { state: 'ok' } });
    expect(add.stdout).not.toContain('crm-secret');
    const list = await json(['servers', 'list']);
    expect(list.body.map((s: { id: string }) => s.id)).toEqual(['crm']);
    const show = await runCli(['servers', 'show', 'crm'], cliEnv);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/tool\s+lookup/);
  });

  it('refuses with the exit code and the field the API names', async () => {
    const bad = await json(['servers', 'add', 'evil', '--url', 'http://169.254.169.254/latest']);
    expect(bad.code).toBe(5);
    expect(bad.error.field).toBe('body.url');
    const missing = await json(['servers', 'show', 'nope']);
    expect(missing.code).toBe(4);
    const wrongKey = await json(['servers', 'list'], { SWITCHBOARD_API_KEY: 'sbk_not_a_key' });
    expect(wrongKey).toMatchObject({ code: 3, error: { code: 'UNAUTHENTICATED', field: 'authorization' } });
  });

  it('publishes, previews the Claude surface and serves the tool through the gateway', async () => {
    const pub = await json(['publish', 'crm', 'lookup']);
    expect(pub.code).toBe(0);
    expect(pub.body.items).toEqual([expect.objectContaining({ exposedName: 'lookup' })]);
    const preview = await json(['preview', '--surface', 'claude']);
    expect(Object.keys(preview.body.surfaces)).toEqual(['claude']);
    expect(preview.body.surfaces.claude.tools.map((t: { name: string }) => t.name)).toEqual(['lookup']);
    const client = new Client({ name: 'cli-e2e', version: '1.0.0' });
    await pollUntil('the gateway serves lookup', async () => {
      await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/t/beta/mcp`)));
      return true;
    });
    try {
      const res = (await client.callTool({ name: 'lookup', arguments: { id: 'c1' } })) as { content: Array<{ text?: string }> };
      expect(res.content[0].text).toBe('customer c1');
    } finally {
      await client.close();
    }
  });

  it('tails the call log and shows usage and limits', async () => {
    const calls = await pollUntil('the call is logged', async () => {
      const run = await json(['calls', 'tail', '--limit', '5']);
      return run.body?.length > 0 ? run.body : undefined;
    });
    expect(calls.at(-1)).toMatchObject({ tool: 'lookup', server: 'crm', outcome: 'ok' });
    const usage = await pollUntil('the call is in the usage rollup', async () => {
      const run = await json(['usage', '--group-by', 'tool']);
      return run.body?.usage?.find((u: { tool: string }) => u.tool === 'lookup');
    });
    expect(usage).toMatchObject({ tool: 'lookup', calls: 1, errors: 0 });
    const limits = await json(['limits']);
    expect(limits).toMatchObject({ code: 0, body: { rate: null } });
  });

  it('holds an upstream change for review, lists it with changes and publishes it with approve', async () => {
    upstream.description = 'Looks a customer up by id.';
    expect((await json(['servers', 'discover', 'crm', '--wait'])).code).toBe(0);
    const changes = await json(['changes']);
    expect(changes.body).toEqual([expect.objectContaining({ serverId: 'crm', name: 'lookup', change: 'modified' })]);
    const approve = await json(['approve', 'crm', 'lookup']);
    expect(approve.code).toBe(0);
    expect((await json(['changes'])).body).toEqual([]);
  });

  it('removes the server', async () => {
    expect((await json(['servers', 'rm', 'crm'])).code).toBe(0);
    expect((await json(['servers', 'list'])).body).toEqual([]);
  });
});

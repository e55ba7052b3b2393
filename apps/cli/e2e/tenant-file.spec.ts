// End-to-end through the built CLI (bin/switchboard.cjs), registry and gateway with real Postgres,
// Redis and BullMQ, and two SDK-built upstreams: apply a tenant file to a fresh tenant, see the
// gateway serve it, plan shows nothing to do, an edit shows exactly that change, export round-trips,
// and a refused step part-way is reported step by step. Build first: `npx tsc -b tsconfig.build.json`.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  cleanRedis,
  createDatabase,
  createTenant,
  pollUntil,
  startGateway,
  startRegistry,
  testEnv,
  TestUpstream,
  type Proc,
} from '@switchboard/testing';
import { parse } from 'yaml';
import { runCli } from './support/run-cli';
import { tenantYaml } from './support/tenant-yaml';

jest.setTimeout(180_000);

type Tool = { name: string; title?: string; description?: string };

describe('switchboard apply / plan / export against a fresh tenant', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let gateway: Proc;
  let alpha: TestUpstream;
  let beta: TestUpstream;
  let dir: string;
  let cliEnv: Record<string, string>;
  let file: string;
  let urls: { alphaUrl: string; betaUrl: string };

  beforeAll(async () => {
    db = await createDatabase();
    alpha = await TestUpstream.start({ stateful: false, name: 'alpha' });
    beta = await TestUpstream.start({ stateful: false, name: 'beta' });
    // localhost is the test allow-list for plain-http upstreams.
    urls = { alphaUrl: alpha.url.replace('127.0.0.1', 'localhost'), betaUrl: beta.url.replace('127.0.0.1', 'localhost') };
    registry = await startRegistry(env, db.url);
    const key = await createTenant(registry.url, env.operatorKey, 'acme');
    gateway = await startGateway(env, registry.url);
    dir = await mkdtemp(path.join(tmpdir(), 'switchboard-cli-'));
    file = path.join(dir, 'tenant.yaml');
    cliEnv = { SWITCHBOARD_URL: registry.url, SWITCHBOARD_API_KEY: key, ALPHA_TOKEN: 'alpha-secret-token', BETA_KEY: 'beta-secret-key' };
  });

  afterAll(async () => {
    await gateway?.stop();
    await registry?.stop();
    await alpha?.stop();
    await beta?.stop();
    await db?.drop();
    await cleanRedis(env);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const toolsList = async (userAgent?: string): Promise<Tool[]> => {
    const res = await fetch(`${gateway.url}/t/acme/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
        ...(userAgent ? { 'user-agent': userAgent } : {}),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    if (res.status !== 200) return [];
    const body = (await res.json()) as { result?: { tools: Tool[] } };
    return (body.result?.tools ?? []).sort((a, b) => a.name.localeCompare(b.name));
  };

  it('refuses to apply when a referenced secret is missing, naming the field, and changes nothing', async () => {
    await writeFile(file, tenantYaml(urls));
    const run = await runCli(['apply', '-f', file], { ...cliEnv, ALPHA_TOKEN: undefined });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('servers.0.auth.token: environment variable ALPHA_TOKEN is not set');
    const plan = await runCli(['plan', '-f', file, '--output', 'json'], cliEnv);
    expect(JSON.parse(plan.stdout).summary.create).toBeGreaterThan(0);
  });

  it('applies two servers with overrides and surface rules, and the gateway serves them with the upstream credentials', async () => {
    const plan = await runCli(['plan', '-f', file], cliEnv);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('+ server alpha (discovery will run)');
    expect(plan.stdout).toContain('(secret from env ALPHA_TOKEN)');
    expect(plan.stdout).toMatch(/discoveries: alpha, beta\./);

    const run = await runCli(['apply', '-f', file], cliEnv);
    expect({ code: run.code, stderr: run.stderr.includes('error') ? run.stderr : '' }).toEqual({ code: 0, stderr: '' });
    expect(run.stdout).toContain('Apply complete');
    for (const out of [plan.stdout, run.stdout, run.stderr]) {
      expect(out).not.toContain('alpha-secret-token');
      expect(out).not.toContain('beta-secret-key');
    }

    const tools = await pollUntil('the gateway serves the applied tools', async () => {
      const list = await toolsList();
      return list.map((t) => t.name).join() === 'loud,shout,whoami' ? list : undefined;
    });
    expect(tools.find((t) => t.name === 'loud')?.title).toBe('Loud');
    expect(tools.find((t) => t.name === 'shout')?.description).toBe('Shouts from the beta server');
    // The surface rule: Claude's descriptions are cut to 12 characters, the generic surface keeps them.
    const claude = await pollUntil('the claude surface rule', async () => {
      const list = await toolsList('claude-code/2.0');
      const d = list.find((t) => t.name === 'shout')?.description;
      return d !== undefined && d.length <= 12 ? list : undefined;
    });
    expect(claude.find((t) => t.name === 'shout')?.description).not.toBe('Shouts from the beta server');

    const client = new Client({ name: 'cli-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/t/acme/mcp`)));
    try {
      const res = (await client.callTool({ name: 'whoami', arguments: {} })) as { content: Array<{ text?: string }> };
      expect(res.content[0].text).toBe('authorization=Bearer alpha-secret-token');
      await client.callTool({ name: 'shout', arguments: { text: 'hi' } });
      expect(beta.requests('tools/call').at(-1)?.headers['x-api-key']).toBe('beta-secret-key');
    } finally {
      await client.close();
    }
  });

  it('then plans no changes, and a second apply is a no-op', async () => {
    const plan = await runCli(['plan', '-f', file, '--detailed-exitcode'], cliEnv);
    expect(plan).toMatchObject({ code: 0 });
    expect(plan.stdout).toContain('No changes: tenant acme matches the file.');
    const again = await runCli(['apply', '-f', file, '--output', 'json'], cliEnv);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ tenant: 'acme', applied: [], notRun: [] });
  });

  it('shows exactly an edited override as the one change, and applies it', async () => {
    await writeFile(file, tenantYaml({ ...urls, betaDescription: 'Beta shouts' }));
    const plan = await runCli(['plan', '-f', file, '--output', 'json', '--detailed-exitcode'], cliEnv);
    expect(plan.code).toBe(8);
    expect(JSON.parse(plan.stdout)).toEqual({
      tenant: 'acme',
      changes: [
        {
          action: 'update',
          target: 'publications of beta',
          fields: [{ field: 'tool:shout.overrides.description', before: 'Shouts from the beta server', after: 'Beta shouts' }],
        },
      ],
      summary: { create: 0, update: 1, delete: 0 },
      discoveries: [],
    });
    expect((await runCli(['apply', '-f', file], cliEnv)).code).toBe(0);
    await pollUntil(
      'the gateway serves the new description',
      async () => (await toolsList()).find((t) => t.name === 'shout')?.description === 'Beta shouts',
    );
    expect((await runCli(['plan', '-f', file, '--detailed-exitcode'], cliEnv)).code).toBe(0);
  });

  it('exports the tenant as a file without secrets that plans no changes against it', async () => {
    const out = path.join(dir, 'exported.yaml');
    const run = await runCli(['export', '-f', out], cliEnv);
    expect(run.code).toBe(0);
    const text = await readFile(out, 'utf8');
    expect(text).not.toContain('alpha-secret-token');
    expect(text).not.toContain('beta-secret-key');
    const exported = parse(text) as {
      servers: Array<{ id: string; auth: unknown; publish: unknown[] }>;
      surfaceRules: unknown;
      limits: unknown;
    };
    expect(exported.servers.map((s) => s.id)).toEqual(['alpha', 'beta']);
    expect(exported.servers[0].auth).toEqual({ mode: 'bearer', token: { fromEnv: 'SWITCHBOARD_SECRET_ALPHA_TOKEN' } });
    expect(exported.servers[1].publish).toEqual([
      {
        name: 'shout',
        overrides: { description: 'Beta shouts', annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false } },
      },
    ]);
    expect(exported.surfaceRules).toEqual({ surfaces: { claude: { maxDescriptionLength: 12 } } });
    // Round trip: the export plans no change, and applies as a no-op without any secret in the environment.
    const plan = await runCli(['plan', '-f', out, '--detailed-exitcode'], cliEnv);
    expect({ code: plan.code, stdout: plan.stdout }).toEqual({ code: 0, stdout: 'No changes: tenant acme matches the file.\n' });
    const apply = await runCli(['apply', '-f', out, '--output', 'json'], { ...cliEnv, ALPHA_TOKEN: undefined, BETA_KEY: undefined });
    expect(JSON.parse(apply.stdout).applied).toEqual([]);
  });

  it('reports a refusal part-way: what was applied, the failed step with the field the API names, and what did not run', async () => {
    const gamma = `  - id: gamma\n    name: Gamma\n    url: ${urls.alphaUrl}\n    publish:\n      - name: no_such_tool\n`;
    await writeFile(file, tenantYaml({ ...urls, betaDescription: 'Beta shouts', extraServers: gamma }));
    const run = await runCli(['apply', '-f', file, '--output', 'json'], cliEnv);
    expect(run.code).toBe(7);
    const report = JSON.parse(run.stdout);
    expect(report.applied).toEqual(['server gamma']);
    expect(report.failed).toMatchObject({ target: 'publications of gamma', error: { code: 'NOT_FOUND', field: 'body.items.0.name' } });
    expect(report.failed.error.message).toContain('no_such_tool');
    expect(report.notRun).toEqual([]);
  });

  it('manages the OAuth settings section: plans exactly the scopes added, applies them, exports them', async () => {
    const withAuth = tenantYaml({ ...urls, betaDescription: 'Beta shouts' }).replace(
      'limits:\n',
      'auth:\n  protected: false\n  scopes: [crm.read, crm.write]\nlimits:\n',
    );
    await writeFile(file, withAuth);
    const plan = await runCli(['plan', '-f', file, '--output', 'json'], cliEnv);
    const authChange = JSON.parse(plan.stdout).changes.find((c: { target: string }) => c.target === 'auth');
    expect(authChange.fields).toEqual([expect.objectContaining({ field: 'auth.scopes', after: ['crm.read', 'crm.write'] })]);
    const apply = await runCli(['apply', '-f', file, '--output', 'json'], cliEnv);
    expect(JSON.parse(apply.stdout).applied).toContain('auth');
    const again = await runCli(['plan', '-f', file, '--output', 'json'], cliEnv);
    expect(JSON.parse(again.stdout).changes.filter((c: { target: string }) => c.target === 'auth')).toEqual([]);
    const exported = parse((await runCli(['export'], cliEnv)).stdout) as { auth?: { scopes?: string[] } };
    expect(exported.auth?.scopes).toEqual(['crm.read', 'crm.write']);
  });

  it('answers --help for every command through the installed bin', async () => {
    const top = await runCli(['--help'], {});
    expect(top.code).toBe(0);
    const names = [...top.stdout.matchAll(/^ {2}([a-z]+(?: [a-z]+)?) {2,}/gm)].map((m) => m[1]);
    expect(names).toEqual(
      expect.arrayContaining([
        'servers add',
        'servers list',
        'servers show',
        'servers discover',
        'servers rm',
        'publish',
        'preview',
        'changes',
        'approve',
        'usage',
        'calls tail',
        'limits',
        'plan',
        'apply',
        'export',
      ]),
    );
    for (const name of names) {
      const run = await runCli([...name.split(' '), '--help'], {});
      expect({ name, code: run.code, head: run.stdout.split('\n')[0].startsWith(`Usage: switchboard ${name}`) }).toEqual({
        name,
        code: 0,
        head: true,
      });
    }
  });
});

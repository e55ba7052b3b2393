// The MCP Registry API end to end (issue 48): importing upstreams from a local registry serving the
// official format, and each tenant's read-only `/v0.1/servers` checked against the official
// server.json JSON Schema (vendored in apps/registry/src/model/schemas) with ajv.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import {
  api,
  cleanRedis,
  createDatabase,
  createTenant,
  READ_ONLY_HINTS,
  REPO_ROOT,
  startRegistry,
  startUpstream,
  testEnv,
  until,
  type Proc,
  type TestUpstream,
} from './support/harness';
import { LocalMcpRegistry } from './support/local-mcp-registry';

jest.setTimeout(120_000);

const SCHEMA_FILE = path.join(REPO_ROOT, 'apps/registry/src/model/schemas/server.schema.json');

describe('MCP Registry API', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let key: string;
  let upstream: TestUpstream;
  const mcpRegistry = new LocalMcpRegistry();
  const ajv = new Ajv({ strict: false });
  addFormats(ajv);
  const validServerJson = ajv.compile(JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')));

  const remoteDoc = (name: string, remotes: unknown[], extra: Record<string, unknown> = {}) => ({
    $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
    name,
    description: 'A test server',
    version: '1.2.0',
    remotes,
    ...extra,
  });

  beforeAll(async () => {
    db = await createDatabase();
    upstream = await startUpstream('crm', [{ name: 'lookup', annotations: READ_ONLY_HINTS }]);
    await mcpRegistry.start();
    mcpRegistry.servers.set(
      'io.example/crm',
      remoteDoc('io.example/crm', [{ type: 'streamable-http', url: upstream.url }], { title: 'Example CRM' }),
    );
    mcpRegistry.servers.set(
      'io.example/templated',
      remoteDoc('io.example/templated', [
        { type: 'streamable-http', url: 'http://localhost:{port}/mcp', variables: { port: { isRequired: true } } },
      ]),
    );
    mcpRegistry.servers.set(
      'io.example/secret',
      remoteDoc('io.example/secret', [
        { type: 'sse', url: 'http://localhost:1/sse' },
        { type: 'streamable-http', url: upstream.url, headers: [{ name: 'Authorization', isRequired: true, isSecret: true }] },
      ]),
    );
    mcpRegistry.servers.set('io.example/local-only', {
      name: 'io.example/local-only',
      description: 'stdio only',
      version: '1.0.0',
      packages: [{ registryType: 'npm', identifier: '@example/x', version: '1.0.0', transport: { type: 'stdio' } }],
    });
    mcpRegistry.servers.set(
      'io.example/too-long',
      remoteDoc('io.example/too-long', [{ type: 'streamable-http', url: upstream.url }], { description: 'd'.repeat(101) }),
    );
    mcpRegistry.servers.set('io.example/no-type', remoteDoc('io.example/no-type', [{ url: upstream.url }]));
    mcpRegistry.servers.set(
      'io.example/private',
      remoteDoc('io.example/private', [{ type: 'streamable-http', url: 'http://10.1.2.3/mcp' }]),
    );
    registry = await startRegistry(env, db.url, {
      MCP_REGISTRY_URL: mcpRegistry.url,
      MCP_REGISTRY_TIMEOUT_MS: '1000',
      GATEWAY_PUBLIC_URL: 'https://mcp.example.com',
    });
    key = await createTenant(registry.url, env.operatorKey, 'acme');
  });

  afterAll(async () => {
    await registry?.stop();
    await upstream?.close();
    await mcpRegistry.stop();
    await db?.drop();
    await cleanRedis(env);
  });

  const importServer = (body: Record<string, unknown>) => api(registry.url, key, 'POST', '/v1/servers/import', body);

  it('imports a remote server from the registry and discovers it', async () => {
    const res = await importServer({ name: 'io.example/crm' });
    expect(res.status).toBe(201);
    expect(res.body.registry).toEqual({ name: 'io.example/crm', version: '1.2.0', remote: 0, url: upstream.url });
    expect(res.body.server).toMatchObject({ id: 'crm', name: 'Example CRM', url: upstream.url });
    expect(mcpRegistry.requests).toContain('/v0.1/servers/io.example%2Fcrm/versions/latest');
    const discovered = await until('discovery of crm', async () => {
      const s = await api(registry.url, key, 'GET', '/v1/servers/crm');
      return s.body.health === 'ok' ? s.body : undefined;
    });
    expect(discovered.id).toBe('crm');
    expect(
      ((await api(registry.url, key, 'GET', '/v1/servers/crm/items')).body.items as Array<{ name: string }>).map((i) => i.name),
    ).toEqual(['lookup']);
  });

  /** The built `switchboard` CLI against this registry, signed in with the tenant's API key. */
  const cli = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      const env = { PATH: process.env.PATH, SWITCHBOARD_URL: registry.url, SWITCHBOARD_API_KEY: key };
      execFile(
        process.execPath,
        [path.join(REPO_ROOT, 'apps/cli/bin/switchboard.cjs'), ...args],
        { env, timeout: 60_000 },
        (err, stdout, stderr) => {
          resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
        },
      );
    });

  it('the CLI registers from the registry: servers add --from-registry, with --var for URL variables', async () => {
    const missing = await cli(['servers', 'add', 'tpl-cli', '--from-registry', 'io.example/templated', '--output', 'json']);
    expect(missing.code).toBe(5);
    expect(JSON.parse(missing.stderr)).toMatchObject({ error: { field: 'body.variables.port' } });
    const ok = await cli([
      'servers',
      'add',
      'tpl-cli',
      '--from-registry',
      'io.example/templated',
      '--var',
      `port=${new URL(upstream.url).port}`,
      '--output',
      'json',
    ]);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({
      server: { id: 'tpl-cli', url: upstream.url },
      registry: { name: 'io.example/templated', version: '1.2.0' },
    });
    expect((await api(registry.url, key, 'GET', '/v1/servers/tpl-cli')).body.url).toBe(upstream.url);
    expect((await api(registry.url, key, 'DELETE', '/v1/servers/tpl-cli')).status).toBeLessThan(300);
  });

  it('fills URL variables, and names the variable when it is missing', async () => {
    const missing = await importServer({ name: 'io.example/templated' });
    expect([missing.status, missing.body.error?.field]).toEqual([400, 'body.variables.port']);
    const ok = await importServer({ name: 'io.example/templated', variables: { port: new URL(upstream.url).port } });
    expect(ok.status).toBe(201);
    expect((ok.body.server as { url: string }).url).toBe(upstream.url);
  });

  it('asks for the credential a remote declares, and picks the requested transport', async () => {
    const noAuth = await importServer({ name: 'io.example/secret', transport: 'streamable-http' });
    expect([noAuth.status, noAuth.body.error?.field]).toEqual([400, 'body.auth']);
    const ok = await importServer({
      name: 'io.example/secret',
      id: 'secret-crm',
      transport: 'streamable-http',
      auth: { mode: 'bearer', token: 'registry-imported-token' },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.registry).toMatchObject({ remote: 1 });
    await until('discovery with the credential', () => upstream.authorizations.includes('Bearer registry-imported-token'));
    expect(JSON.stringify(ok.body)).not.toContain('registry-imported-token');
  });

  it('refuses what it cannot register, naming the field', async () => {
    const cases: Array<[Record<string, unknown>, number, string | undefined]> = [
      [{ name: 'io.example/local-only' }, 422, 'registry.server.remotes'],
      [{ name: 'io.example/too-long' }, 422, 'registry.server.description'],
      [{ name: 'io.example/no-type' }, 422, 'registry.server.remotes.0.type'],
      [{ name: 'io.example/private' }, 422, 'registry.server.remotes.0.url'],
      [{ name: 'io.example/nothing-here' }, 404, 'body.name'],
      [{ name: 'not a name' }, 400, 'body.name'],
      [{ name: 'io.example/crm', extra: 1 }, 400, 'body'],
      [{ name: 'io.example/huge' }, 502, undefined],
      [{ name: 'io.example/slow' }, 502, undefined],
    ];
    for (const [body, status, field] of cases) {
      const res = await importServer(body);
      expect({ name: body.name, status: res.status, field: res.body.error?.field }).toEqual({ name: body.name, status, field });
    }
    expect((await importServer({ name: 'io.example/huge' })).body.error?.message).toContain('larger than');
    expect((await importServer({ name: 'io.example/slow' })).body.error?.message).toContain('timed out');
    const again = await importServer({ name: 'io.example/crm' });
    expect([again.status, again.body.error?.field]).toEqual([409, 'body.id']);
  });

  it("serves the tenant's published endpoint at /t/<tenant>/v0.1/servers, valid against the official schema", async () => {
    expect((await api(registry.url, undefined, 'GET', '/t/acme/v0.1/servers')).body).toEqual({ servers: [], metadata: { count: 0 } });
    expect((await api(registry.url, key, 'POST', '/v1/publications', { serverId: 'crm', items: [{ name: 'lookup' }] })).status).toBe(200);
    const list = await api(registry.url, undefined, 'GET', '/t/acme/v0.1/servers');
    expect(list.status).toBe(200);
    expect(list.headers.get('cache-control')).toBe('public, max-age=60');
    const servers = list.body.servers as Array<{
      server: Record<string, unknown>;
      _meta: Record<string, { isLatest: boolean; status: string }>;
    }>;
    expect(servers).toHaveLength(1);
    const entry = servers[0];
    const valid = validServerJson(entry.server);
    expect(validServerJson.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
    expect(entry.server).toMatchObject({
      name: 'com.example.mcp/acme',
      remotes: [{ type: 'streamable-http', url: 'https://mcp.example.com/t/acme/mcp' }],
    });
    expect((entry.server.remotes as Array<{ headers?: unknown }>)[0].headers).toBeUndefined();
    expect(entry._meta['io.modelcontextprotocol.registry/official']).toMatchObject({ status: 'active', isLatest: true });

    const one = await api(
      registry.url,
      undefined,
      'GET',
      `/t/acme/v0.1/servers/${encodeURIComponent('com.example.mcp/acme')}/versions/latest`,
    );
    expect(one.status).toBe(200);
    expect(one.body.server).toEqual(entry.server);
    const versions = await api(
      registry.url,
      undefined,
      'GET',
      `/t/acme/v0.1/servers/${encodeURIComponent('com.example.mcp/acme')}/versions`,
    );
    expect(versions.body.servers).toEqual(servers);
    expect((await api(registry.url, undefined, 'GET', '/t/acme/v0.1/servers?search=nomatch')).body.servers).toEqual([]);
    expect((await api(registry.url, undefined, 'GET', '/t/nobody/v0.1/servers')).status).toBe(404);
    const badLimit = await api(registry.url, undefined, 'GET', '/t/acme/v0.1/servers?limit=0');
    expect([badLimit.status, badLimit.body.error?.field]).toEqual([400, 'query.limit']);
    expect(
      (await api(registry.url, undefined, 'GET', `/t/acme/v0.1/servers/${encodeURIComponent('com.example.mcp/acme')}/versions/9.9.9`))
        .status,
    ).toBe(404);
  });

  it('declares the Authorization header once the tenant is OAuth-protected', async () => {
    expect((await api(registry.url, key, 'PATCH', '/v1/tenant/auth', { protected: true })).status).toBe(200);
    const list = await api(registry.url, undefined, 'GET', '/t/acme/v0.1/servers');
    const server = (
      list.body.servers as Array<{
        server: { remotes: Array<{ headers?: Array<{ name: string; isRequired: boolean; isSecret: boolean }> }> };
      }>
    )[0].server;
    expect(validServerJson(server)).toBe(true);
    expect(server.remotes[0].headers).toEqual([expect.objectContaining({ name: 'Authorization', isRequired: true, isSecret: true })]);
  });
});

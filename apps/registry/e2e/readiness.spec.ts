// Connector readiness check (issue 7): the admin API replays what Claude and ChatGPT do when
// connecting, against a real gateway (+ auth service) for correctly configured tenants and
// against small deliberately broken MCP servers, and names each failure exactly.
import type { CheckResult, ReadinessReport } from '../src/readiness/check-result';
import { MCP_CHECK_IDS } from '../src/readiness/check-titles';
// Test-only cross-app imports: a real gateway and auth service, as the auth e2e tests run them.
import { obtainTokens } from '@switchboard/testing';
import { startPlatform, type Platform } from '../../auth/e2e/support/platform';
import { startFakeConnector, type Breakage, type FakeConnector } from './support/fake-connector';
import {
  api,
  cleanRedis,
  createDatabase,
  createTenant,
  startRegistry,
  startUpstream,
  testEnv,
  type Proc,
  type TestUpstream,
} from './support/harness';

jest.setTimeout(60_000);

describe('connector readiness check', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let platform: Platform;
  let registry: Proc;
  let base: string;
  let keyOpen: string;
  let keyLocked: string;
  const fakes: FakeConnector[] = [];
  let sdkUpstream: TestUpstream;

  beforeAll(async () => {
    db = await createDatabase();
    platform = await startPlatform({
      env: { DCR_RATE_LIMIT_PER_MIN: '1000' },
      tenants: [
        { id: 'open', name: 'Open' },
        { id: 'locked', name: 'Locked', auth: { scopes: ['mcp:tools'] } },
      ],
    });
    // The registry runs built (its migrations load ESM-only node-pg-migrate, which jest cannot), like the other registry e2e tests.
    registry = await startRegistry(env, db.url, {
      GATEWAY_PUBLIC_URL: platform.gateway.baseUrl,
      REGISTRY_ALLOW_HTTP_HOSTS: '127.0.0.1,localhost',
      REGISTRY_WORKER: 'false',
    });
    base = registry.url;
    keyOpen = await createTenant(base, env.operatorKey, 'open');
    keyLocked = await createTenant(base, env.operatorKey, 'locked');
  });

  afterAll(async () => {
    await registry?.stop();
    await platform?.close();
    for (const f of fakes) await f.close();
    await sdkUpstream?.close();
    await db?.drop();
    await cleanRedis(env);
  });

  async function run(key: string, tenant: string, body?: Record<string, unknown>): Promise<ReadinessReport> {
    const res = await api(base, key, 'POST', `/v1/tenants/${tenant}/readiness`, body);
    if (res.status !== 200) throw new Error(`readiness: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as unknown as ReadinessReport;
  }

  const check = (report: ReadinessReport, id: string): CheckResult => {
    const c = report.checks.find((x) => x.id === id);
    if (!c) throw new Error(`no check ${id} in ${JSON.stringify(report.checks.map((x) => x.id))}`);
    return c;
  };

  const notPassing = (report: ReadinessReport) => report.checks.filter((c) => c.status !== 'pass');

  it('passes every check for a correctly configured open tenant on the real gateway', async () => {
    const report = await run(keyOpen, 'open');
    expect(report.url).toBe(platform.gateway.mcpUrl('open'));
    // The OAuth chain does not apply to an open endpoint: skipped, not passed.
    expect(notPassing(report).map((c) => `${c.id}=${c.status}`)).toEqual(['auth-challenge=skip']);
  });

  it('passes every check for a correctly configured OAuth tenant (real gateway + auth service)', async () => {
    // Without a token the OAuth chain runs and the MCP steps are skipped, each saying why.
    const before = await run(keyLocked, 'locked');
    expect(before.checks.filter((c) => c.status === 'fail')).toEqual([]);
    expect(before.checks.filter((c) => c.status === 'skip').map((c) => c.id)).toEqual(MCP_CHECK_IDS);
    expect(check(before, 'prm-resource').status).toBe('pass');
    const url = platform.gateway.mcpUrl('locked');
    const tokens = await obtainTokens(platform.auth.issuer('locked'), { resource: url, scope: 'mcp:tools' });
    const report = await run(keyLocked, 'locked', { accessToken: String(tokens.body.access_token) });
    expect(notPassing(report)).toEqual([]);
  });

  /** Starts a fake connector (closed after the suite) and runs the check against it through the API. */
  async function runFake(breakage: Breakage): Promise<{ url: string; report: ReadinessReport }> {
    const fake = await startFakeConnector(breakage);
    fakes.push(fake);
    const report = await run(keyOpen, 'open', { url: fake.url, ...(breakage.protectedBy ? { accessToken: breakage.protectedBy } : {}) });
    expect(report.url).toBe(fake.url);
    return { url: fake.url, report };
  }

  const failing = (report: ReadinessReport) => report.checks.filter((c) => c.status === 'fail').map((c) => c.id);

  it('passes every check for the unbroken fake connector (OAuth, PRM, AS metadata, DCR)', async () => {
    const { report } = await runFake({ protectedBy: 'good-token' });
    expect(notPassing(report)).toEqual([]);
    expect(report.summary).toEqual({ pass: report.checks.length, fail: 0, warn: 0, skip: 0 });
  });

  it('names a PRM resource that differs from the connector URL, and the fix', async () => {
    const { url, report } = await runFake({ protectedBy: 'good-token', prmResource: 'https://api.example.com/mcp' });
    expect(failing(report)).toEqual(['prm-resource']);
    const c = check(report, 'prm-resource');
    expect(c.reason).toContain(`PRM resource is https://api.example.com/mcp but the connector URL is ${url}`);
    expect(c.fix).toContain(`resource to exactly ${url}`);
  });

  it('names GET answered 405 for event streams', async () => {
    const { report } = await runFake({ get405: true });
    expect(failing(report)).toEqual(['event-stream']);
    const c = check(report, 'event-stream');
    expect(c.reason).toMatch(/GET with Accept: text\/event-stream answered 405; Claude treats the server as dead/);
    expect(c.fix).toMatch(/200 and Content-Type text\/event-stream/);
  });

  it('names the tools without annotations.title', async () => {
    const { report } = await runFake({ noAnnotationTitle: true });
    expect(failing(report)).toEqual(['tool-titles']);
    expect(check(report, 'tool-titles').reason).toMatch(/^no annotations\.title on 1 tool\(s\): "search_docs"/);
  });

  it('names securitySchemes leaking to Claude', async () => {
    const { report } = await runFake({ securitySchemesToClaude: true });
    expect(failing(report)).toEqual(['claude-no-security-schemes']);
    expect(check(report, 'claude-no-security-schemes').reason).toBe('securitySchemes leak to Claude on 1 tool(s): "search_docs"');
  });

  it("names a rejected protocol-version header: −32020 on Claude's header/_meta combination", async () => {
    const { report } = await runFake({ strictVersionHeader: true });
    expect(failing(report)).toEqual(['version-header-quirk']);
    const c = check(report, 'version-header-quirk');
    expect(c.reason).toMatch(
      /MCP-Protocol-Version 2025-11-25 and _meta protocolVersion 2026-07-28 got HTTP 400 with JSON-RPC error -32020/,
    );
    expect(c.fix).toMatch(/do not answer −32020/);
  });

  it('names a rejected protocol-version header on an SDK 1.x server (and its other Claude failures)', async () => {
    sdkUpstream = await startUpstream('sdk1', [{ name: 'lookup' }]);
    const report = await run(keyOpen, 'open', { url: sdkUpstream.url });
    const c = check(report, 'newer-version-header');
    expect(c.status).toBe('fail');
    expect(c.reason).toMatch(/tools\/list with MCP-Protocol-Version 2026-07-28 after negotiating 2025-11-25 got HTTP 400/);
    expect(c.reason).toMatch(/Unsupported protocol version/i);
    expect(check(report, 'legacy-initialize').status).toBe('pass');
    expect(check(report, 'legacy-version-header').status).toBe('pass');
    expect(check(report, 'modern-discover').status).toBe('fail');
  });

  it('warns when dynamic client registration returns no registration_client_uri', async () => {
    const { report } = await runFake({ protectedBy: 'good-token', noRegistrationClientUri: true });
    expect(failing(report)).toEqual([]);
    expect(check(report, 'dcr-claude')).toMatchObject({ status: 'warn', reason: expect.stringMatching(/no registration_client_uri/) });
    expect(check(report, 'dcr-chatgpt').status).toBe('warn');
  });

  describe('API edges', () => {
    it("answers another tenant's id like an unknown one (404)", async () => {
      const res = await api(base, keyOpen, 'POST', '/v1/tenants/locked/readiness', {});
      expect(res.status).toBe(404);
      expect(res.body.error?.field).toBe('params.tenant');
    });

    it('needs a tenant API key', async () => {
      expect((await api(base, undefined, 'POST', '/v1/tenants/open/readiness', {})).status).toBe(401);
    });

    it.each([
      ['https://10.0.0.1/mcp', /private/],
      ['https://169.254.169.254/latest/meta-data/', /link-local/],
      ['http://example.com/mcp', /plain http is not allowed/],
    ])('refuses body.url %s with the SSRF reason', async (url, pattern) => {
      const res = await api(base, keyOpen, 'POST', '/v1/tenants/open/readiness', { url });
      expect(res.status).toBe(400);
      expect(res.body.error?.code).toBe('URL_REFUSED');
      expect(res.body.error?.field).toBe('body.url');
      expect(res.body.error?.message).toMatch(pattern);
    });

    it.each([
      [{ url: 'not a url' }, 'body.url'],
      [{ colour: 'red' }, 'body'],
      [{ accessToken: '' }, 'body.accessToken'],
    ])('refuses bad input %j naming the field', async (body, field) => {
      const res = await api(base, keyOpen, 'POST', '/v1/tenants/open/readiness', body);
      expect(res.status).toBe(400);
      expect(res.body.error?.field).toBe(field);
    });

    it('reports an unreachable URL as a failed check, not an API error', async () => {
      const fake = await startFakeConnector();
      await fake.close();
      const report = await run(keyOpen, 'open', { url: fake.url });
      expect(check(report, 'auth-challenge')).toMatchObject({
        status: 'fail',
        reason: expect.stringMatching(/could not be reached: connection refused/),
      });
    });

    it('is documented in the OpenAPI document', async () => {
      const doc = await api(base, undefined, 'GET', '/openapi.json');
      const op = (doc.body.paths as Record<string, Record<string, Record<string, unknown>>>)['/v1/tenants/{tenant}/readiness']?.post;
      expect(op).toBeDefined();
      expect(JSON.stringify(op)).toContain('"summary"');
      // The body is a component by reference: the schema the handler parses with.
      const ref = (op?.requestBody as { content: Record<string, { schema: { $ref: string } }> }).content['application/json']!.schema.$ref;
      const schemas = (doc.body.components as { schemas: Record<string, unknown> }).schemas;
      expect(JSON.stringify(schemas[ref.replace('#/components/schemas/', '')])).toContain('accessToken');
    });
  });
});

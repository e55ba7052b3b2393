// The tenant's interceptor chain through the registry API (issue 46 item 1): GET/PUT
// /v1/guardrails and the check endpoint, against a built registry with real Postgres and Redis.
// Refusals name the field; webhook secrets are sealed, kept when left out and never shown; the
// chain rides in the tenant document pushed to Redis.
import { Redis } from 'ioredis';
import { guardrailSecretAad } from '@switchboard/catalog';
import { SecretBox } from '@switchboard/secret-box';
import {
  api,
  cleanRedis,
  createDatabase,
  createTenant,
  READ_ONLY_HINTS,
  REDIS_URL,
  registerAndDiscover,
  startRegistry,
  startUpstream,
  testEnv,
  type Proc,
  type TestUpstream,
} from './support/harness';

jest.setTimeout(90_000);

/** An interceptor as the API shows it (enough of it for these assertions). */
interface Shown {
  name: string;
  mode: string;
  failOpen: boolean;
  use: { webhook: { secret: string } & Record<string, unknown> };
}

const SECRET = 'whsec_Z3VhcmRyYWlscy10ZXN0LXNlY3JldA==';
const pii = {
  name: 'pii',
  type: 'mutation',
  hook: { events: ['tools/call'], phase: 'response' },
  use: { builtin: 'pii', kinds: ['email', 'card'] },
};
const cel = {
  name: 'refunds',
  type: 'validation',
  hook: { events: ['tools/call'], phase: 'request' },
  match: { tools: ['refund'] },
  mode: 'audit',
  use: {
    builtin: 'cel',
    rules: [{ name: 'big-refund', expr: 'args.amount > 500 && !("finance" in caller.groups)', message: 'Refunds over 500 need finance' }],
  },
};
const hook = (extra: Record<string, unknown> = {}) => ({
  name: 'screen',
  type: 'validation',
  hook: { events: ['tools/call'], phase: 'request' },
  failOpen: true,
  use: { webhook: { url: 'http://localhost:9/screen', timeoutMs: 1500, ...extra } },
});

describe('guardrails configuration API', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let upstream: TestUpstream;
  let redis: Redis;
  let key: string;
  let otherKey: string;
  const put = (body: unknown, k = key) => api(registry.url, k, 'PUT', '/v1/guardrails', body);
  const refusal = async (body: unknown) => {
    const r = await put(body);
    return [r.status, r.body.error?.code, r.body.error?.field];
  };
  const firstIssue = (body: Record<string, unknown>) => (body.issues as Array<{ field: string }>)[0]?.field;
  const documentGuardrails = async () =>
    (JSON.parse((await redis.get(`${env.namespace}sb:catalog:acme`)) ?? '{}') as { guardrails?: { interceptors: Shown[] } }).guardrails;

  beforeAll(async () => {
    db = await createDatabase();
    redis = new Redis(REDIS_URL);
    upstream = await startUpstream('crm', [{ name: 'refund', description: 'Refunds an order.', annotations: READ_ONLY_HINTS }]);
    registry = await startRegistry(env, db.url);
    key = await createTenant(registry.url, env.operatorKey, 'acme');
    otherKey = await createTenant(registry.url, env.operatorKey, 'beta');
  });

  afterAll(async () => {
    redis?.disconnect();
    await registry?.stop();
    await upstream?.close();
    await db?.drop();
    await cleanRedis(env);
  });

  it('stores a chain in order with defaults filled in, seals the webhook secret and never shows it', async () => {
    expect((await api(registry.url, key, 'GET', '/v1/guardrails')).body).toEqual({ interceptors: [] });
    const saved = await put({ interceptors: [pii, cel, hook({ secret: SECRET })] });
    expect(saved.status).toBe(200);
    expect(saved.body.pushed).toBeUndefined();
    const view = saved.body.interceptors as Shown[];
    expect(view.map((i) => [i.name, i.mode, i.failOpen])).toEqual([
      ['pii', 'enforce', false],
      ['refunds', 'audit', false],
      ['screen', 'enforce', true],
    ]);
    expect(view[2]?.use).toEqual({ webhook: { url: 'http://localhost:9/screen', timeoutMs: 1500, maxBytes: 65_536, secretSet: true } });
    const shown = await api(registry.url, key, 'GET', '/v1/guardrails');
    expect(shown.body).toEqual({ interceptors: view });
    const audit = JSON.stringify((await api(registry.url, key, 'GET', '/v1/audit')).body);
    expect(audit).toContain('guardrails.update');
    expect(audit).not.toContain(SECRET);
    expect((await api(registry.url, otherKey, 'GET', '/v1/guardrails')).body).toEqual({ interceptors: [] });
  });

  it('keeps the stored secret when a later PUT leaves it out, and refuses a new webhook without one', async () => {
    const kept = await put({ interceptors: [hook({ timeoutMs: 800 })] });
    expect(kept.status).toBe(200);
    expect((kept.body.interceptors as Shown[])[0]?.use.webhook).toMatchObject({ timeoutMs: 800, secretSet: true });
    const renamed = await put({ interceptors: [{ ...hook(), name: 'screen-2' }] });
    expect([renamed.status, renamed.body.error?.field]).toEqual([400, 'body.interceptors.0.use.webhook.secret']);
    expect(renamed.body.error?.message).toMatch(/needs a signing secret/);
  });

  it('refuses bad input naming the field, and bounds the chain', async () => {
    expect(await refusal({ interceptors: [{ ...pii, type: 'rewrite' }] })).toEqual([400, 'VALIDATION', 'body.interceptors.0.type']);
    expect(await refusal({ interceptors: [{ ...pii, use: { builtin: 'pii', kinds: ['ssn'] } }] })).toEqual([
      400,
      'VALIDATION',
      'body.interceptors.0.use.kinds.0',
    ]);
    expect(await refusal({ interceptors: [pii, { ...pii, hook: { events: ['prompts/get'] } }] })).toEqual([
      400,
      'VALIDATION',
      'body.interceptors.1.name',
    ]);
    expect(await refusal({ interceptors: [{ ...cel, type: 'mutation' }] })).toEqual([400, 'VALIDATION', 'body.interceptors.0.type']);
    const backref = { ...pii, use: { builtin: 'pii', kinds: ['nationalId'], nationalIds: [{ name: 'x', pattern: '(\\d)\\1' }] } };
    expect(await refusal({ interceptors: [backref] })).toEqual([400, 'VALIDATION', 'body.interceptors.0.use.nationalIds.0.pattern']);
    expect(await refusal({ interceptors: [{ ...cel, use: { builtin: 'cel', rules: [] } }] })).toEqual([
      400,
      'VALIDATION',
      'body.interceptors.0.use.rules',
    ]);
    const broken = { ...cel, use: { builtin: 'cel', rules: [cel.use.rules[0], { name: 'half', expr: 'args.amount > ', message: 'm' }] } };
    const syntax = await put({ interceptors: [pii, broken] });
    expect([syntax.status, syntax.body.error?.field]).toEqual([400, 'body.interceptors.1.use.rules.1.expr']);
    expect(syntax.body.error?.message).toMatch(/^body\.interceptors\.1\.use\.rules\.1\.expr: rule "half" at line 1, column 15: /);
    const notBool = { ...cel, use: { builtin: 'cel', rules: [{ name: 'sum', expr: 'args.amount + 1', message: 'm' }] } };
    expect(await refusal({ interceptors: [notBool] })).toEqual([400, 'VALIDATION', 'body.interceptors.0.use.rules.0.expr']);
    const long = { ...cel, use: { builtin: 'cel', rules: [{ name: 'long', expr: `args.a == "${'x'.repeat(2048)}"`, message: 'm' }] } };
    expect(await refusal({ interceptors: [long] })).toEqual([400, 'VALIDATION', 'body.interceptors.0.use.rules.0.expr']);
    const rules = Array.from({ length: 17 }, (_, i) => ({ name: `r${i}`, expr: 'true', message: 'no' }));
    expect(await refusal({ interceptors: [{ ...cel, use: { builtin: 'cel', rules } }] })).toEqual([
      400,
      'VALIDATION',
      'body.interceptors.0.use.rules',
    ]);
    const many = Array.from({ length: 33 }, (_, i) => ({ ...pii, name: `pii-${i}` }));
    expect(await refusal({ interceptors: many })).toEqual([400, 'VALIDATION', 'body.interceptors']);
    expect(await refusal({ interceptors: [hook({ secret: 'short' })] })).toEqual([
      400,
      'VALIDATION',
      'body.interceptors.0.use.webhook.secret',
    ]);
    expect(await refusal({ interceptors: [hook({ secret: SECRET, url: 'http://10.0.0.7/hook' })] })).toEqual([
      400,
      'URL_REFUSED',
      'body.interceptors.0.use.webhook.url',
    ]);
    expect(await refusal({ interceptors: [hook({ secret: SECRET, url: 'https://169.254.169.254/latest' })] })).toEqual([
      400,
      'URL_REFUSED',
      'body.interceptors.0.use.webhook.url',
    ]);
    // Nothing refused was stored.
    expect(
      ((await api(registry.url, key, 'GET', '/v1/guardrails')).body.interceptors as Array<{ name: string }>).map((i) => i.name),
    ).toEqual(['screen']);
  });

  it('checks a candidate chain without saving it', async () => {
    const ok = await api(registry.url, key, 'POST', '/v1/guardrails/check', { interceptors: [cel] });
    expect([ok.status, ok.body]).toEqual([200, { valid: true, issues: [] }]);
    const dup = await api(registry.url, key, 'POST', '/v1/guardrails/check', { interceptors: [cel, cel] });
    expect([dup.status, dup.body.valid, firstIssue(dup.body)]).toEqual([200, false, 'body.interceptors.1.name']);
    const shape = await api(registry.url, key, 'POST', '/v1/guardrails/check', { interceptors: [{ ...cel, mode: 'maybe' }] });
    expect([shape.status, shape.body.valid, firstIssue(shape.body)]).toEqual([200, false, 'body.interceptors.0.mode']);
    expect(((await api(registry.url, key, 'GET', '/v1/guardrails')).body.interceptors as unknown[]).length).toBe(1);
  });

  it('lets a viewer read the chain and an admin change it', async () => {
    const keyOf = async (role: string) => String((await api(registry.url, key, 'POST', '/v1/keys', { name: role, role })).body.apiKey);
    const viewer = await keyOf('viewer');
    const admin = await keyOf('admin');
    expect((await api(registry.url, viewer, 'GET', '/v1/guardrails')).status).toBe(200);
    const refused = await put({ interceptors: [] }, viewer);
    expect([refused.status, refused.body.error?.code]).toEqual([403, 'FORBIDDEN']);
    expect((await api(registry.url, viewer, 'POST', '/v1/guardrails/check', { interceptors: [] })).status).toBe(403);
    expect((await put({ interceptors: [hook()] }, admin)).status).toBe(200);
  });

  it('pushes a change to the gateways at once once published, with the secret sealed for the tenant', async () => {
    await registerAndDiscover(registry.url, key, { id: 'crm', name: 'CRM', url: upstream.url });
    expect((await api(registry.url, key, 'POST', '/v1/publications', { serverId: 'crm', items: [{ name: 'refund' }] })).status).toBe(200);
    expect((await documentGuardrails())?.interceptors.map((i) => i.name)).toEqual(['screen']);

    const saved = await put({ interceptors: [cel, hook()] });
    expect([saved.status, saved.body.pushed]).toEqual([200, 'ok']);
    const doc = await documentGuardrails();
    expect(doc?.interceptors.map((i) => i.name)).toEqual(['refunds', 'screen']);
    const sealed = doc?.interceptors[1]?.use.webhook.secret as string;
    expect(sealed).not.toContain(SECRET);
    expect(new SecretBox(Buffer.from(env.secretsKey, 'base64')).open(sealed, guardrailSecretAad('acme', 'screen'))).toBe(SECRET);

    expect((await put({ interceptors: [] })).body).toEqual({ interceptors: [], pushed: 'ok' });
    expect(await documentGuardrails()).toBeUndefined();
  });
});

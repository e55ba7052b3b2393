// Issue 48 item 5 end to end with the built registry (run `npx tsc -b tsconfig.build.json` first):
// tenants' audit logs land in a real local S3-compatible server (s3rver, which checks every
// request's Signature V4) as gzipped JSON Lines per day, one tenant's objects never hold another's
// entries, a killed and restarted registry resumes from its Postgres cursor without gaps, and a
// refused, unreachable or hostile endpoint (production mode included) is a clear error in the API.
import { freePort, listenLoopback } from '@switchboard/testing';
import { api, cleanRedis, createDatabase, createTenant, startRegistry, testEnv, until, type Proc } from './support/harness';
import { startLocalS3, type LocalS3 } from './support/local-s3';

jest.setTimeout(180_000);

type Line = Record<string, unknown>;
const BUCKET = 'audit-bucket';
const EXPORT_ENV = { AUDIT_EXPORT_INTERVAL_MS: '100', AUDIT_EXPORT_BATCH_SIZE: '3', AUDIT_EXPORT_TIMEOUT_MS: '3000' };

describe('audit export to S3-compatible storage', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let s3: LocalS3;
  let registry: Proc;
  const keys: Record<string, string> = {};

  const auditIds = async (tenant: string): Promise<number[]> => {
    const res = await api(registry.url, keys[tenant], 'GET', '/v1/audit?limit=500');
    return (res.body.entries as Array<{ id: string }>).map((e) => Number(e.id)).sort((a, b) => a - b);
  };
  /** Every line of every object under the tenant's partition, with the key it came from. */
  const exported = async (tenant: string): Promise<Array<{ key: string; line: Line }>> => {
    const out: Array<{ key: string; line: Line }> = [];
    for (const key of await s3.list(BUCKET, `exports/tenant=${tenant}/`))
      for (const line of await s3.readJsonLines(BUCKET, key)) out.push({ key, line });
    return out;
  };
  /** Waits until every audit entry of the tenant is in its objects; returns the lines. */
  const allExported = async (tenant: string) => {
    const ids = await auditIds(tenant);
    return until(
      `${tenant}'s ${ids.length} audit entries in the bucket`,
      async () => {
        const lines = await exported(tenant);
        const seen = new Set(lines.map((l) => l.line.id));
        return ids.every((id) => seen.has(id)) ? lines : undefined;
      },
      30_000,
    );
  };
  const configure = (tenant: string, body: Record<string, unknown> = {}) =>
    api(registry.url, keys[tenant], 'PUT', '/v1/audit-export', {
      endpoint: s3.endpoint,
      bucket: BUCKET,
      prefix: 'exports',
      ...s3.credential,
      ...body,
    });
  /** Polls GET /v1/audit-export until `ok` holds for the tenant's export state; returns that state. */
  const stateWhen = (tenant: string, what: string, ok: (state: Record<string, unknown>) => boolean) =>
    until(what, async () => {
      const st = await api(registry.url, keys[tenant], 'GET', '/v1/audit-export');
      return ok(st.body) ? st.body : undefined;
    });
  const act = async (tenant: string, n: number) => {
    for (let i = 0; i < n; i++) expect((await api(registry.url, keys[tenant], 'POST', '/v1/keys', { name: `ci-${i}` })).status).toBe(201);
  };

  beforeAll(async () => {
    db = await createDatabase();
    s3 = await startLocalS3([BUCKET]);
    registry = await startRegistry(env, db.url, EXPORT_ENV);
    for (const t of ['acme', 'beta', 'gamma', 'delta', 'eps']) keys[t] = await createTenant(registry.url, env.operatorKey, t);
  });

  afterAll(async () => {
    await registry?.stop();
    await s3?.close();
    await db?.drop();
    await cleanRedis(env);
  });

  it("writes each tenant's entries, and only its own, as gzipped JSON Lines partitioned by day", async () => {
    await act('acme', 4);
    expect((await api(registry.url, keys.acme, 'PATCH', '/v1/tenant', { name: 'Acme Corp' })).status).toBe(200);
    await act('beta', 2);
    const put = await configure('acme');
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      configured: true,
      sink: 's3',
      bucket: BUCKET,
      prefix: 'exports/',
      accessKeyId: s3.credential.accessKeyId,
      secretAccessKeySet: true,
    });
    expect(JSON.stringify(put.body)).not.toContain(s3.credential.secretAccessKey);
    expect((await configure('beta')).status).toBe(200);

    const acme = await allExported('acme');
    const beta = await allExported('beta');
    const today = new Date().toISOString().slice(0, 10);
    for (const { key } of acme) expect(key).toMatch(new RegExp(`^exports/tenant=acme/date=${today}/\\d{20}\\.jsonl\\.gz$`));
    expect(new Set(acme.map((l) => l.line.tenant))).toEqual(new Set(['acme']));
    expect(new Set(beta.map((l) => l.line.tenant))).toEqual(new Set(['beta']));
    const actions = acme.map((l) => l.line.action);
    expect(actions.filter((a) => a === 'key.create')).toHaveLength(4);
    expect(actions).toEqual(expect.arrayContaining(['tenant.create', 'tenant.update', 'audit-export.update']));
    expect(acme.find((l) => l.line.action === 'tenant.update')!.line).toMatchObject({
      actor: expect.any(String),
      target: 'acme',
      details: { fields: ['name'] },
    });
    // No beta entry in acme's objects, by id either.
    const betaIds = new Set(beta.map((l) => l.line.id));
    expect(acme.filter((l) => betaIds.has(l.line.id))).toEqual([]);
    // Batches of 3: several objects, each named after its first entry's id.
    expect(new Set(acme.map((l) => l.key)).size).toBeGreaterThan(1);
    const state = await api(registry.url, keys.acme, 'GET', '/v1/audit-export');
    expect(state.body).toMatchObject({ status: 'ok', lastError: null, exported: (await auditIds('acme')).length });
  });

  it('resumes from its Postgres cursor after the registry is killed, without gaps or duplicates', async () => {
    const kill = async () => {
      const child = registry.child;
      await new Promise((resolve) => {
        child.once('exit', resolve);
        child.kill('SIGKILL');
      });
    };
    // Killed right after writing: whatever was not exported yet waits in Postgres.
    await act('acme', 3);
    await kill();
    // A registry without an exporter: new entries pile up behind the cursor, nothing moves.
    registry = await startRegistry(env, db.url, { ...EXPORT_ENV, AUDIT_EXPORT_INTERVAL_MS: '0' });
    const before = (await api(registry.url, keys.acme, 'GET', '/v1/audit-export')).body;
    await act('acme', 5);
    const pending = await auditIds('acme');
    const inBucket = new Set((await exported('acme')).map((l) => l.line.id));
    expect(pending.filter((id) => !inBucket.has(id)).length).toBeGreaterThanOrEqual(5);
    expect((await api(registry.url, keys.acme, 'GET', '/v1/audit-export')).body.cursor).toEqual(before.cursor);
    await kill();

    registry = await startRegistry(env, db.url, EXPORT_ENV);
    await act('acme', 2);
    const lines = await allExported('acme');
    const ids = lines.map((l) => l.line.id as number);
    expect([...ids].sort((a, b) => a - b)).toEqual(await auditIds('acme'));
    expect(new Set(ids).size).toBe(ids.length);
    const state = (await api(registry.url, keys.acme, 'GET', '/v1/audit-export')).body;
    expect(state).toMatchObject({ status: 'ok', exported: ids.length, cursor: { id: Math.max(...ids) } });
  });

  it("refuses an endpoint the SSRF guard blocks, and shows a failing sink's error in the API until it is fixed", async () => {
    const refused = await configure('gamma', { endpoint: 'https://10.0.0.7:9000' });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'URL_REFUSED', field: 'body.endpoint' });
    expect(refused.body.error!.message).toMatch(/blocked address range/);
    const noSecret = await configure('gamma', { secretAccessKey: undefined });
    expect(noSecret.body.error).toMatchObject({ code: 'VALIDATION', field: 'body.secretAccessKey' });
    expect((await configure('gamma', { bucket: 'Not_A_Bucket' })).body.error).toMatchObject({ code: 'VALIDATION', field: 'body.bucket' });

    expect((await configure('gamma', { secretAccessKey: 'not-the-secret' })).status).toBe(200);
    const denied = await stateWhen(
      'gamma',
      'the signature error',
      (s) => s.status === 'error' && /SignatureDoesNotMatch/.test(String(s.lastError)),
    );
    expect(denied.lastError).toMatch(/403 SignatureDoesNotMatch/);

    const closed = await freePort();
    // The secret left out is kept; only the endpoint changes.
    expect((await configure('gamma', { endpoint: `http://localhost:${closed}`, secretAccessKey: undefined })).status).toBe(200);
    const unreachable = await stateWhen(
      'gamma',
      'the connection error',
      (s) => s.status === 'error' && /ECONNREFUSED/.test(String(s.lastError)),
    );
    expect(unreachable.lastError).toMatch(/ECONNREFUSED/);
    expect(await s3.list(BUCKET, 'exports/tenant=gamma/')).toEqual([]);

    expect((await configure('gamma')).status).toBe(200);
    const lines = await allExported('gamma');
    expect(new Set(lines.map((l) => l.line.tenant))).toEqual(new Set(['gamma']));
    const ok = await stateWhen('gamma', 'status ok', (s) => s.status === 'ok');
    expect(ok.lastError).toBeNull();
  });
  it('bounds what a hostile sink controls: a silent one times out without holding up others, a huge error body is not read', async () => {
    let mode: 'hang' | 'huge' = 'hang';
    let hugeSent = 0;
    const sink = await listenLoopback(async (req, res) => {
      req.resume();
      if (mode === 'hang') return new Promise<void>(() => undefined);
      res.writeHead(500, { 'content-type': 'application/xml' });
      res.write('<Error><Code>InternalError</Code><Message>We encountered an internal error</Message>');
      const chunk = 'x'.repeat(64 * 1024);
      // 64 MB unless the client stops reading first.
      for (let i = 0; i < 1_024 && !res.destroyed; i++) {
        if (!res.write(chunk))
          await new Promise<void>((resolve) => {
            const done = () => {
              res.off('drain', done).off('close', done);
              resolve();
            };
            res.once('drain', done).once('close', done);
          });
        hugeSent += chunk.length;
      }
      res.end('</Error>');
    });
    try {
      const endpoint = `http://localhost:${sink.port}`;
      let hanging = 0;
      sink.http.on('request', () => hanging++);
      expect((await configure('delta', { endpoint })).status).toBe(200);
      // While delta's upload hangs, another tenant's entries still go out.
      await until("delta's upload hanging", () => hanging > 0);
      await act('acme', 1);
      await allExported('acme');
      expect((await api(registry.url, keys.delta, 'GET', '/v1/audit-export')).body.status).toBe('pending');
      const timedOut = await stateWhen('delta', 'the timeout error', (s) => s.status === 'error' && /no answer/.test(String(s.lastError)));
      expect(timedOut.lastError).toMatch(/no answer within 3000 ms/);

      mode = 'huge';
      expect((await configure('delta', { endpoint })).status).toBe(200);
      const refused = await stateWhen(
        'delta',
        'the server error',
        (s) => s.status === 'error' && /InternalError/.test(String(s.lastError)),
      );
      expect(refused.lastError).toMatch(/answered 500 InternalError: We encountered an internal error$/);
      expect(hugeSent).toBeLessThan(64 * 1024 * 1024);
    } finally {
      await sink.stop();
    }
  });
  it('in production mode, refuses a sink that resolves to a loopback address at connection, in the API state', async () => {
    // Saved while localhost is allow-listed (development); then the registry restarts in production without the allow-list.
    const endpoint = `https://localhost:${s3.port}`;
    expect((await configure('eps', { endpoint })).status).toBe(200);
    await registry.stop();
    registry = await startRegistry(env, db.url, { ...EXPORT_ENV, SWITCHBOARD_ENV: 'production', REGISTRY_ALLOW_HTTP_HOSTS: '' });
    expect((await api(registry.url, keys.eps, 'POST', '/v1/audit-export/run')).status).toBe(201);
    const refused = await stateWhen('eps', 'the SSRF refusal', (s) => /blocked address range/.test(String(s.lastError)));
    expect(refused).toMatchObject({ status: 'error', exported: 0 });
    expect(refused.lastError).toMatch(/host localhost \(resolves to (127\.0\.0\.1|::1)\) is in a blocked address range/);
    expect(await s3.list(BUCKET, 'exports/tenant=eps/')).toEqual([]);
    // Saving it again is refused outright.
    const again = await configure('eps', { endpoint });
    expect(again.status).toBe(400);
    expect(again.body.error).toMatchObject({ code: 'URL_REFUSED', field: 'body.endpoint' });
  });
});

import { spawnSync } from 'node:child_process';
import { createCipheriv, randomBytes } from 'node:crypto';
import path from 'node:path';
import pino from 'pino';
import { SecretBox } from '@switchboard/secret-box';
import { serverSecretAad, webhookSecretAad } from '../src/crypto/secret-aad';
import { Database } from '../src/db/database';
import { resealSecrets } from '../src/reseal/reseal-secrets';
import { createDatabase, REPO_ROOT } from './support/harness';

/** A blob in the format before key ids (`v1.<iv|tag|ct>`), as the previous registry stored them. */
function legacySeal(key: Buffer, plaintext: string, aad: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `v1.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
}

function runJob(env: Record<string, string>) {
  return spawnSync(process.execPath, [path.join(REPO_ROOT, 'apps/registry/dist/reseal.js')], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: 60_000,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env },
  });
}

describe('re-seal job (key rotation)', () => {
  const logger = pino({ level: 'silent' });
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  let database: Awaited<ReturnType<typeof createDatabase>>;
  let db: Database;

  beforeAll(async () => {
    database = await createDatabase();
    // The job migrates first (node-pg-migrate is ESM-only, so migrations run outside jest): on an empty database it has nothing to re-seal.
    const first = runJob({ DATABASE_URL: database.url, SECRETS_KEY: newKey.toString('base64') });
    expect(JSON.parse(first.stdout)).toEqual({ keyId: expect.any(String), resealed: 0, current: 0, skipped: 0 });
    db = new Database(database.url, logger);
    await db.query("INSERT INTO registry.tenants (id, name) VALUES ('acme', 'Acme'), ('globex', 'Globex')");
    const insert = (tenant: string, id: string, secret: string | null, token: string | null) =>
      db.query(
        "INSERT INTO registry.servers (tenant_id, id, name, url, transport, auth_mode, secret, token_secret) VALUES ($1, $2, $2, 'https://mcp.example.com/mcp', 'auto', 'bearer', $3, $4)",
        [tenant, id, secret, token],
      );
    const old = new SecretBox(oldKey);
    // A blob from before key ids, one under the old key with a cached token, one with no secret.
    await insert('acme', 'legacy', legacySeal(oldKey, 'legacy-secret', serverSecretAad('acme', 'legacy')), null);
    await insert(
      'globex',
      'crm',
      old.seal('crm-secret', serverSecretAad('globex', 'crm')),
      old.seal('cached-token', `${serverSecretAad('globex', 'crm')}:token`),
    );
    await insert('globex', 'open', null, null);
  });

  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  it('re-seals every secret under the newest key, so the old key can be dropped; a second run finds nothing to do', async () => {
    const ring = new SecretBox([newKey, oldKey]);
    expect(await resealSecrets(db, ring)).toEqual({ resealed: 3, current: 0, skipped: 0 });
    const onlyNew = new SecretBox(newKey);
    const rows = await db.query<{ tenant_id: string; id: string; secret: string; token_secret: string | null }>(
      'SELECT tenant_id, id, secret, token_secret FROM registry.servers WHERE secret IS NOT NULL ORDER BY tenant_id, id',
    );
    expect(
      rows.map((r) => [
        r.id,
        onlyNew.open(r.secret, serverSecretAad(r.tenant_id, r.id)),
        r.token_secret && onlyNew.open(r.token_secret, `${serverSecretAad(r.tenant_id, r.id)}:token`),
      ]),
    ).toEqual([
      ['legacy', 'legacy-secret', null],
      ['crm', 'crm-secret', 'cached-token'],
    ]);
    expect(rows.every((r) => r.secret.startsWith(`v2.${onlyNew.primaryKeyId}.`))).toBe(true);
    expect(await resealSecrets(db, ring)).toEqual({ resealed: 0, current: 3, skipped: 0 });
  });

  it('re-seals webhook signing secrets too, the current one and the one of a rotation window', async () => {
    const old = new SecretBox(oldKey);
    const aad = webhookSecretAad('acme', 'wh_0123456789ab');
    await db.query(
      "INSERT INTO registry.webhook_subscriptions (tenant_id, id, url, events, secret, previous_secret, previous_expires_at) VALUES ('acme', 'wh_0123456789ab', 'https://hooks.example.com/x', '{publish.done}', $1, $2, now() + interval '1 hour')",
      [old.seal('whsec_current', aad), old.seal('whsec_previous', aad)],
    );
    expect(await resealSecrets(db, new SecretBox([newKey, oldKey]))).toEqual({ resealed: 2, current: 3, skipped: 0 });
    const row = (
      await db.query<{ secret: string; previous_secret: string }>(
        "SELECT secret, previous_secret FROM registry.webhook_subscriptions WHERE id = 'wh_0123456789ab'",
      )
    )[0];
    const onlyNew = new SecretBox(newKey);
    expect([onlyNew.open(row!.secret, aad), onlyNew.open(row!.previous_secret, aad)]).toEqual(['whsec_current', 'whsec_previous']);
  });

  it('runs as `node apps/registry/dist/reseal.js` with the registry environment and prints a JSON report', () => {
    const run = runJob({ DATABASE_URL: database.url, SECRETS_KEY: `${randomBytes(32).toString('base64')},${newKey.toString('base64')}` });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ keyId: expect.any(String), resealed: 5, current: 0, skipped: 0 });
  });

  it('refuses to run without a database, naming the variable', () => {
    const run = runJob({});
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('DATABASE_URL: is required');
  });
});

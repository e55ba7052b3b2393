import path from 'node:path';
import { Client } from 'pg';
import { pgMigrate } from '../src/oidc/native-modules';
import { api, pollUntil } from '@switchboard/testing';
import { DATABASE_URL, startAuth, type TestAuth } from './support/auth-harness';
import { startDirectoryStack, type DirectoryStack } from './support/directory';

/**
 * Issue 41: subjects gained their identity source, so vault rows stored under the old
 * `<tenant>|<sub>` subjects are purged by a migration (no new identity can ever reach them) and
 * the purge lands in the registry's audit log.
 */
describe('vault rows of un-namespaced subjects', () => {
  let stack: DirectoryStack;
  let second: TestAuth | undefined;
  beforeAll(async () => {
    stack = await startDirectoryStack({ SWITCHBOARD_ENV: 'production' });
  });
  afterAll(async () => {
    await second?.close();
    await stack?.close();
  });

  it('are purged at migration, the admin link stays, and the registry audits the purge', async () => {
    const schema = stack.auth.schema;
    const pg = new Client({ connectionString: DATABASE_URL });
    await pg.connect();
    try {
      // The state of a database migrated before namespacing: rows under old subjects, the purge
      // migration not yet run. It and every later migration are rolled back by their own Down
      // sections (migrations run in order, so a later one cannot stay applied).
      const { rows: later } = await pg.query(`SELECT name FROM "${schema}".pgmigrations WHERE name >= '1700000000600'`);
      await pgMigrate.runner({
        dbClient: pg,
        dir: path.resolve(__dirname, '../migrations'),
        direction: 'down',
        count: later.length,
        schema,
        migrationsTable: 'pgmigrations',
        migrationLoaderStrategies: [{ extensions: ['.sql'], loader: 'sql' }],
        log: () => undefined,
      });
      expect((await pg.query(`SELECT name FROM "${schema}".pgmigrations WHERE name >= '1700000000600'`)).rows).toEqual([]);
      for (const [subject, connector] of [
        ['acme|alice', 'crm'],
        ['acme|bob', 'crm'],
        ['acme|bob', 'docs'],
        ['_tenant_admin', 'crm'],
      ]) {
        await pg.query(
          `INSERT INTO "${schema}".vault_token (tenant_id, subject, connector, sealed) VALUES ('acme', $1, $2, 'v1.sealed-placeholder-of-a-test-row')`,
          [subject, connector],
        );
      }
      // A replica boots on the same schema: the migration runs, then the purge is reported.
      second = await startAuth({
        schema,
        tenants: [{ id: 'acme', auth: {} }],
        env: { INTERNAL_TOKEN: stack.internalToken, REGISTRY_INTERNAL_URL: stack.registryUrl },
      });
      const { rows } = await pg.query<{ subject: string }>(`SELECT subject FROM "${schema}".vault_token ORDER BY subject`);
      expect(rows.map((r) => r.subject)).toEqual(['_tenant_admin']);
      const entry = await pollUntil('the purge audit entry', async () => {
        const log = await api(stack.registryUrl, stack.key, 'GET', '/v1/audit');
        return (log.body.entries as Array<{ action: string; actor: string; details: Record<string, unknown> }>).find(
          (e) => e.action === 'vault.purge-legacy-subjects',
        );
      });
      expect(entry).toMatchObject({ actor: 'auth-service', details: { rows: 3, connectors: ['crm', 'docs'] } });
      // Marked reported once the registry answered (so the next boot does not report it again).
      await pollUntil(
        'the purge marked audited',
        async () => (await pg.query(`SELECT 1 FROM "${schema}".vault_legacy_purge WHERE audited_at IS NOT NULL`)).rows.length === 1,
      );
    } finally {
      await pg.end();
    }
  });
});

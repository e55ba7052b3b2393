import { createLogger } from '@switchboard/telemetry';
import { SecretBox } from '@switchboard/secret-box';
import { ConfigError, loadRegistryConfig } from './config';
import { Database } from './db/database';
import { migrate } from './db/migrate';
import { resealSecrets } from './reseal/reseal-secrets';

/**
 * `node apps/registry/dist/reseal.js`: the key-rotation job. With SECRETS_KEY=<new>,<old> (the
 * registry's own environment, e.g. a Kubernetes Job from its Deployment), re-seals every secret
 * at rest under the new key and prints what it did as one JSON line; then drop the old key.
 */
async function main(): Promise<void> {
  const config = loadRegistryConfig();
  if (!config.DATABASE_URL) throw new ConfigError('DATABASE_URL: is required for the re-seal job');
  const logger = createLogger({ service: 'registry-reseal', level: config.LOG_LEVEL });
  await migrate(config.DATABASE_URL, logger, config.MIGRATION_LOCK_TIMEOUT_MS);
  const db = new Database(config.DATABASE_URL, logger);
  try {
    const box = new SecretBox(config.secretsKey);
    const report = await resealSecrets(db, box);
    process.stdout.write(`${JSON.stringify({ keyId: box.primaryKeyId, ...report })}\n`);
  } finally {
    await db.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(
    err instanceof ConfigError ? `${err.message}\n` : `re-seal failed: ${err instanceof Error ? err.message : String(err)}\n`,
  );
  process.exit(1);
});

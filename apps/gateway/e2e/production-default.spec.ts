import { spawn } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT, spawnApp, type Proc } from '@switchboard/testing';

/** Longest a refused app may take to exit; one still running then is stopped and the test fails. */
const EXIT_WITHIN_MS = 30_000;
/**
 * A database that does not exist: a registry or auth that wrongly starts fails to connect
 * instead of migrating a real database (or starting the registry's embedded Postgres).
 */
const NO_DATABASE = 'postgres://postgres@127.0.0.1:5432/sb_production_default_absent';

/**
 * Runs a built app until it exits: its exit code and output. One still running at
 * EXIT_WITHIN_MS gets SIGTERM (so it stops what it started: an embedded Postgres, a devnet),
 * then SIGKILL.
 */
function runUntilExit(script: string, env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, script)], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
    }, EXIT_WITHIN_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

/** How often `text` occurs in `out`. */
const count = (out: string, text: string) => out.split(text).length - 1;

/**
 * Issue 41 point 7, on the built apps: a service bound to a non-loopback address without
 * SWITCHBOARD_ENV=development runs as production, so it exits at once with one error that names
 * every development default it would otherwise have used; with SWITCHBOARD_ENV=development
 * the same address boots.
 */
describe('production is the default off loopback (built apps on 0.0.0.0, SWITCHBOARD_ENV unset)', () => {
  const procs: Proc[] = [];
  afterAll(async () => {
    await Promise.all(procs.map((p) => p.stop()));
  });

  const refusals: Array<[string, string, Record<string, string>, string, string[]]> = [
    [
      'gateway',
      'apps/gateway/dist/main.js',
      { GATEWAY_HOST: '0.0.0.0', GATEWAY_PORT: '0', REDIS_URL: 'redis://127.0.0.1:6379' },
      'Invalid gateway configuration',
      ['\n  SECRETS_KEY: ', '\n  INTERNAL_TOKEN: ', '\n  GATEWAY_STATE_KEYS: '],
    ],
    [
      'registry',
      'apps/registry/dist/main.js',
      { REGISTRY_HOST: '0.0.0.0', REGISTRY_PORT: '0', DATABASE_URL: NO_DATABASE },
      'Invalid registry configuration',
      [
        '\n  SECRETS_KEY: ',
        '\n  INTERNAL_TOKEN: ',
        '\n  REGISTRY_OPERATOR_KEY: is required in production; unset, it falls back to the development operator key "dev-operator-key"',
      ],
    ],
    [
      'auth',
      'apps/auth/dist/main.js',
      { AUTH_HOST: '0.0.0.0', AUTH_PORT: '0', DATABASE_URL: NO_DATABASE, TENANTS_FILE: '/nonexistent/tenants.yaml' },
      'Invalid auth configuration',
      ['\n  SECRETS_KEY: ', '\n  CATALOG_SECRETS_KEY: '],
    ],
    [
      'chain-reader',
      'apps/chain-reader/dist/main.js',
      { CHAIN_READER_HOST: '0.0.0.0', CHAIN_READER_PORT: '0' },
      'invalid chain-reader configuration',
      ['\n  - CHAIN_RPC_URLS_<SLUG> / CHAINS_FILE: no chain has an RPC URL, and the local devnet is a development default'],
    ],
  ];

  it.each(refusals)('%s exits 1 with one error naming each development default', async (_name, script, env, header, named) => {
    const { code, out } = await runUntilExit(script, env);
    expect({ code, out: out.slice(0, 2_000) }).toEqual({ code: 1, out: expect.stringContaining(header) });
    expect(count(out, header)).toBe(1);
    expect(out).toMatch(/is not a loopback address and SWITCHBOARD_ENV is not set; for a development run set SWITCHBOARD_ENV=development/);
    for (const n of named) expect({ named: n, found: out.includes(n) }).toEqual({ named: n, found: true });
  });

  it('boots on the same address with SWITCHBOARD_ENV=development', async () => {
    const gateway = await spawnApp(
      'gateway',
      'apps/gateway/dist/main.js',
      { LOG_LEVEL: 'warn', GATEWAY_HOST: '0.0.0.0', GATEWAY_PORT: '0', SWITCHBOARD_ENV: 'development' },
      /gateway listening on (http:\/\/\S+)/,
    );
    procs.push(gateway);
    const port = new URL(gateway.url).port;
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  });
});

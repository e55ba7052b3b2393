import { randomBytes } from 'node:crypto';
import { spawnApp, type Proc } from '@switchboard/testing';

const PG = 'postgres://postgres@127.0.0.1:5432';

/**
 * The built auth service (apps/auth/dist) as a process with its platform issuer on, trusting
 * `registry` (its public URL, for the audience and the console's password check). Its schema
 * lives in the test's database (dropped with it).
 */
export async function startPlatformIssuer(o: {
  database: string;
  port: number;
  registry: string;
  internalToken: string;
  tokenRatePerMin: number;
}): Promise<Proc & { issuer: string }> {
  const schema = `auth_cli_${randomBytes(4).toString('hex')}`;
  const base = `http://127.0.0.1:${o.port}`;
  const proc = await spawnApp(
    'auth',
    'apps/auth/dist/main.js',
    {
      DATABASE_URL: `${PG}/${o.database}`,
      AUTH_DB_SCHEMA: schema,
      AUTH_PORT: String(o.port),
      AUTH_HOST: '127.0.0.1',
      AUTH_PUBLIC_URL: base,
      GATEWAY_PUBLIC_URL: 'http://127.0.0.1:3999',
      INTERNAL_TOKEN: o.internalToken,
      SECRETS_KEY: randomBytes(32).toString('base64'),
      CONSOLE_REDIRECT_URI: `${o.registry}/console/callback`,
      CONSOLE_AUDIENCE: `${o.registry}/v1`,
      REGISTRY_INTERNAL_URL: o.registry,
      TOKEN_RATE_LIMIT_PER_MIN: String(o.tokenRatePerMin),
      LOG_LEVEL: 'warn',
    },
    /auth listening on (http:\/\/\S+)/,
  );
  return Object.assign(proc, { issuer: `${base}/platform` });
}

import { randomBytes } from 'node:crypto';
import { freePort } from '@switchboard/testing';
import {
  READ_ONLY_HINTS,
  REDIS_URL,
  api,
  cleanRedis,
  createDatabase,
  createTenant,
  registerAndDiscover,
  spawnApp,
  startGateway,
  startRegistry,
  startUpstream,
  testEnv,
  type Proc,
  type TestUpstream,
} from './harness';

/** Registry + auth + two gateways behind one public URL, and tenants acme and beta with one published tool each. */
export interface TenantOAuthStack {
  env: ReturnType<typeof testEnv>;
  databaseUrl: string;
  registry: Proc;
  auth: Proc;
  authUrl: string;
  gateways: Proc[];
  /** Both replicas serve one public URL (as behind a load balancer): the tokens' audience. */
  publicUrl: string;
  upstream: TestUpstream;
  acmeKey: string;
  betaKey: string;
  stop(): Promise<void>;
}

export async function startTenantOAuthStack(): Promise<TenantOAuthStack> {
  const env = testEnv();
  const db = await createDatabase();
  const upstream = await startUpstream('crm', [{ name: 'find_contact', annotations: READ_ONLY_HINTS }]);
  const authPort = await freePort();
  const authUrl = `http://127.0.0.1:${authPort}`;
  const registry = await startRegistry(env, db.url, { REGISTRY_ALLOW_HTTP_HOSTS: 'localhost,127.0.0.1', AUTH_INTERNAL_URL: authUrl });
  const gatewayPorts = [await freePort(), await freePort()];
  const publicUrl = `http://127.0.0.1:${gatewayPorts[0]}`;
  const auth = await spawnApp(
    'auth',
    'apps/auth/dist/main.js',
    {
      AUTH_PORT: String(authPort),
      AUTH_PUBLIC_URL: authUrl,
      DATABASE_URL: db.url,
      AUTH_DB_SCHEMA: `auth_t_${randomBytes(5).toString('hex')}`,
      SECRETS_KEY: randomBytes(32).toString('base64'),
      CATALOG_SECRETS_KEY: env.secretsKey,
      GATEWAY_PUBLIC_URL: publicUrl,
      INTERNAL_TOKEN: env.internalToken,
      REDIS_URL,
      REDIS_NAMESPACE: env.namespace,
      REGISTRY_INTERNAL_URL: registry.url,
      TENANTS_FILE: '/nonexistent/tenants.yaml',
      LOG_LEVEL: 'warn',
    },
    /auth listening on (http:\/\/\S+)/,
  );
  const gateways: Proc[] = [];
  for (const port of gatewayPorts) {
    gateways.push(
      await startGateway(env, registry.url, {
        GATEWAY_PORT: String(port),
        GATEWAY_PUBLIC_URL: publicUrl,
        AUTH_PUBLIC_URL: authUrl,
        AUTH_INTERNAL_TOKEN: env.internalToken,
      }),
    );
  }
  const keys: string[] = [];
  for (const tenant of ['acme', 'beta']) {
    const key = await createTenant(registry.url, env.operatorKey, tenant);
    keys.push(key);
    const server = await registerAndDiscover(registry.url, key, { id: 'crm', name: 'CRM', url: upstream.url });
    if (server.health !== 'ok') throw new Error(`tenant ${tenant}: crm discovered as ${String(server.health)}`);
    const published = await api(registry.url, key, 'POST', '/v1/publications', {
      serverId: 'crm',
      items: [{ kind: 'tool', name: 'find_contact' }],
    });
    if (published.status !== 200) throw new Error(`tenant ${tenant}: publish answered ${published.status}`);
  }
  return {
    env,
    databaseUrl: db.url,
    registry,
    auth,
    authUrl,
    gateways,
    publicUrl,
    upstream,
    acmeKey: keys[0]!,
    betaKey: keys[1]!,
    stop: async () => {
      await Promise.all([...gateways.map((g) => g.stop()), auth.stop(), registry.stop()]);
      await upstream.close();
      await cleanRedis(env);
      await db.drop();
    },
  };
}

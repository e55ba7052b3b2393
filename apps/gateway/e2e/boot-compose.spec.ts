import path from 'node:path';
import {
  APP_MAIN,
  freePort,
  startApp,
  startPostgres,
  startRedis,
  waitHealthy,
  type AppName,
  type Env,
  type Proc,
} from './support/boot-stack';
import { eventually, mcp, publishTenant, signIn, toolNames } from './support/boot-client';
import { containerPorts, publishedPorts, readCompose, serviceEnv } from './support/compose-env';
import { installLoopback, type LoopbackMap } from './support/loopback-net';

/**
 * `docker compose up` without Docker: every app of docker-compose.yml runs as a local process
 * with exactly that service's environment (parsed from the file, `${VAR:-default}` at its
 * default), on a loopback network where compose's service names resolve to 127.0.0.1 and each
 * service port is a free stand-in port (support/loopback-net.ts). Postgres and Redis are private
 * instances with the compose credentials. Then the README's connect path runs against the
 * published URLs (`http://localhost:3000/…`): tools/list on the documented tenant, a publish
 * through the registry reaching the gateway, and an OAuth-protected tenant's full sign-in and call.
 * SB_BOOT_COMPOSE_FILE points it at another compose file (how it was checked against the old one).
 */
const REPO_ROOT = path.resolve(__dirname, '../../..');
const COMPOSE_FILE = process.env.SB_BOOT_COMPOSE_FILE ?? path.join(REPO_ROOT, 'docker-compose.yml');
const APPS = Object.keys(APP_MAIN) as AppName[];
/** Datastores' ports inside the network (the images' defaults; compose publishes neither). */
const DATASTORE_PORTS: Record<string, number> = { postgres: 5432, redis: 6379 };

jest.setTimeout(300_000);

describe('docker-compose.yml boots and serves the README connect path', () => {
  const compose = readCompose(COMPOSE_FILE);
  const procs: Proc[] = [];
  /** compose `host:port` (inside the network) → stand-in port. */
  const standIn: Record<string, number> = {};
  /** Host side: `localhost:<published>` → stand-in port. */
  const published: Record<string, number> = {};
  let uninstall: (() => void) | undefined;
  let network: LoopbackMap;
  const env: Partial<Record<AppName, Env>> = {};

  beforeAll(async () => {
    const pgEnv = serviceEnv(compose, 'postgres');
    const pg = await startPostgres(
      pgEnv.POSTGRES_USER ?? 'postgres',
      pgEnv.POSTGRES_PASSWORD ?? 'postgres',
      pgEnv.POSTGRES_DB ?? 'postgres',
    );
    procs.push(pg.proc);
    const redis = await startRedis();
    procs.push(redis.proc);
    standIn['postgres:5432'] = pg.port;
    standIn['redis:6379'] = redis.port;
    // Telemetry goes to a port that refuses: the apps must boot and serve without a collector.
    for (const service of Object.keys(compose.services)) {
      if (DATASTORE_PORTS[service] !== undefined) continue;
      for (const port of containerPorts(compose, service)) standIn[`${service}:${port}`] = await freePort();
    }
    for (const app of APPS)
      for (const p of publishedPorts(compose, app)) published[`localhost:${p.host}`] = standIn[`${app}:${p.container}`]!;
    network = { names: Object.keys(compose.services), connect: standIn, listen: {}, strict: true };
    const order: AppName[] = ['chain-reader', 'registry', 'auth', 'gateway'];
    for (const app of order) {
      env[app] = serviceEnv(compose, app);
      // Each container listens on its own ports; inside it, 127.0.0.1 is itself only.
      const listen = Object.fromEntries(containerPorts(compose, app).map((p) => [String(p), standIn[`${app}:${p}`]!]));
      const proc = startApp(app, env[app], { ...network, listen });
      procs.push(proc);
      const port = containerPorts(compose, app)[0]!;
      await waitHealthy(`http://127.0.0.1:${standIn[`${app}:${port}`]}/healthz`, proc);
      if (app === 'registry' && env.registry?.REGISTRY_SEED_DEMO === 'true') await proc.waitFor(/registry listening on/, 120_000);
    }
    // The client side: this process sees only the published ports on localhost.
    uninstall = installLoopback({ names: [], connect: published, listen: {} });
  });

  afterAll(async () => {
    uninstall?.();
    for (const p of procs.reverse()) await p.stop();
  });

  const gatewayUrl = () => String(env.gateway?.GATEWAY_PUBLIC_URL).replace(/\/+$/, '');

  it('publishes every app port on 127.0.0.1 only, unless opted in', () => {
    for (const service of Object.keys(compose.services))
      for (const p of publishedPorts(compose, service)) expect({ service, ip: p.hostIp }).toEqual({ service, ip: '127.0.0.1' });
  });

  it('answers tools/list on the documented demo URL', async () => {
    const url = `${gatewayUrl()}/t/demo/mcp`;
    expect(url).toBe('http://localhost:3000/t/demo/mcp');
    const r = await mcp(url, 'tools/list');
    expect({ status: r.status, error: r.body.error }).toEqual({ status: 200, error: undefined });
    expect(toolNames(r).length).toBeGreaterThan(5);
  });

  it('serves the seeded registry tenant and calls its demo upstream through the gateway', async () => {
    const url = `${gatewayUrl()}/t/acme/mcp`;
    const listed = await eventually('acme published', async () => {
      const r = await mcp(url, 'tools/list');
      return toolNames(r).includes('lookup_customer') ? r : undefined;
    });
    expect(toolNames(listed)).toContain('lookup_customer');
    const call = await mcp(url, 'tools/call', { name: 'lookup_customer', arguments: { id: 'c_001' } });
    expect(JSON.stringify(call.body.result)).toContain('Globex');
  });

  it('delivers a tenant publish made through the registry API to the gateway', async () => {
    const registry = String(env.registry?.REGISTRY_PUBLIC_URL);
    const operatorKey = String(env.registry?.REGISTRY_OPERATOR_KEY);
    const upstream = { url: String(env.registry?.REGISTRY_DEMO_UPSTREAM_URL ?? ''), token: 'demo-upstream-secret' };
    const { mcpUrl, tools } = await publishTenant(registry, operatorKey, 'boot-compose', upstream);
    expect(mcpUrl).toBe(`${gatewayUrl()}/t/boot-compose/mcp`);
    const listed = await eventually('the publish reaching the gateway', async () => {
      const r = await mcp(mcpUrl, 'tools/list');
      return toolNames(r).length > 0 ? r : undefined;
    });
    expect(toolNames(listed).sort()).toEqual([...tools].sort());
    const call = await mcp(mcpUrl, 'tools/call', { name: 'lookup_customer', arguments: { id: 'c_002' } });
    expect(JSON.stringify(call.body.result)).toContain('Initech');
  });

  it('signs in to the OAuth-protected tenant from the 401 alone and calls it with the token', async () => {
    const url = `${gatewayUrl()}/t/secure/mcp`;
    const s = await signIn(url);
    expect(s.prm.resource).toBe(url);
    expect(String(s.asMetadata.issuer)).toBe(`${String(env.gateway?.AUTH_PUBLIC_URL)}/t/secure`);
    const r = await mcp(url, 'tools/list', {}, s.accessToken);
    expect({ status: r.status, error: r.body.error }).toEqual({ status: 200, error: undefined });
    expect(toolNames(r).length).toBeGreaterThan(0);
  });

  it('fails the protected call when the gateway cannot reach the authorization server internally (AUTH_INTERNAL_URL unset)', async () => {
    const url = `${gatewayUrl()}/t/secure/mcp`;
    const { accessToken } = await signIn(url);
    const brokenEnv = { ...env.gateway! };
    delete brokenEnv.AUTH_INTERNAL_URL;
    const port = await freePort();
    const proc = startApp('gateway', brokenEnv, { ...network, listen: { [String(containerPorts(compose, 'gateway')[0])]: port } });
    procs.push(proc);
    await waitHealthy(`http://127.0.0.1:${port}/healthz`, proc);
    const restore = installLoopback({ names: [], connect: { 'localhost:3000': port }, listen: {} });
    try {
      const r = await mcp(url, 'tools/list', {}, accessToken);
      expect(r.status).toBe(401);
    } finally {
      restore();
    }
  });
});

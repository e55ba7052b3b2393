import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
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
import { eventually, mcp, publishTenant, signIn, toolNames, type Json } from './support/boot-client';
import { ingressRouter, startIngressProxy } from './support/ingress-router';
import { containerEnv } from './support/k8s-env';
import { installLoopback, type LoopbackMap } from './support/loopback-net';
import { renderKustomize, type K8sObject } from './support/render-kustomize';

/**
 * The k8s dev overlay without a cluster: the overlay is rendered (the repo's renderer, checked
 * against `kubectl kustomize` by ops-manifests.spec.ts), every app runs as a local process with
 * exactly the environment its Deployment gets (ConfigMaps and Secret resolved), Service names
 * (`registry`, `registry.<ns>.svc.cluster.local`, …) resolve to loopback with a stand-in port per
 * Service port (support/loopback-net.ts), the overlay's Postgres and Redis are private instances
 * with its credentials, and a proxy implementing the rendered Ingress rules is the only way in.
 * Then the README's connect path runs against the Ingress hosts, and every URL the gateway's
 * protected-resource metadata and auth's authorization-server metadata advertise is checked to be
 * routed by the Ingress to the service that answers it.
 */
const REPO_ROOT = path.resolve(__dirname, '../../..');
const OVERLAY = path.join(REPO_ROOT, 'k8s/overlays/dev');
const APPS = Object.keys(APP_MAIN) as AppName[];

jest.setTimeout(300_000);

type Port = { name?: string; port: number; targetPort?: number | string };
const servicePorts = (o: K8sObject): Port[] => (o as unknown as { spec: { ports: Port[] } }).spec.ports;
const containerPorts = (o: K8sObject): Array<{ name?: string; containerPort: number }> =>
  (
    o as unknown as { spec: { template: { spec: { containers: Array<{ ports?: Array<{ name?: string; containerPort: number }> }> } } } }
  ).spec.template.spec.containers.flatMap((c) => c.ports ?? []);

describe('k8s dev overlay boots and is reachable through its Ingress', () => {
  const objects = renderKustomize(OVERLAY);
  const namespace = objects.find((o) => o.kind === 'Namespace')!.metadata.name;
  const services = objects.filter((o) => o.kind === 'Service');
  const procs: Proc[] = [];
  const standIn: Record<string, number> = {};
  const env: Partial<Record<AppName, Env>> = {};
  const router = ingressRouter(objects);
  let proxy: Awaited<ReturnType<typeof startIngressProxy>>;
  let uninstall: (() => void) | undefined;

  beforeAll(async () => {
    const secret = (objects.find((o) => o.kind === 'Secret') as unknown as { stringData: Record<string, string> }).stringData;
    const db = new URL(secret.DATABASE_URL!);
    const pg = await startPostgres(decodeURIComponent(db.username), decodeURIComponent(db.password), db.pathname.slice(1));
    procs.push(pg.proc);
    const redis = await startRedis();
    procs.push(redis.proc);
    const names: string[] = ['.observability'];
    for (const s of services) {
      const n = s.metadata.name;
      const aliases = [n, `${n}.${namespace}`, `${n}.${namespace}.svc`, `${n}.${namespace}.svc.cluster.local`];
      names.push(...aliases);
      for (const p of servicePorts(s)) {
        const port = n === 'postgres' ? pg.port : n === 'redis' ? redis.port : await freePort();
        for (const a of aliases) standIn[`${a}:${p.port}`] = port;
      }
    }
    const network: LoopbackMap = { names, connect: standIn, listen: {}, strict: true };
    for (const app of ['chain-reader', 'registry', 'auth', 'gateway'] as AppName[]) {
      const deployment = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === app)!;
      env[app] = containerEnv(deployment, objects);
      // The pod listens on its container ports; its Service's ports lead there (targetPort by name or number).
      const service = services.find((s) => s.metadata.name === app)!;
      const listen: Record<string, number> = {};
      for (const p of servicePorts(service)) {
        const target =
          typeof p.targetPort === 'string'
            ? containerPorts(deployment).find((c) => c.name === p.targetPort)?.containerPort
            : (p.targetPort ?? p.port);
        listen[String(target)] = standIn[`${app}:${p.port}`]!;
      }
      const proc = startApp(app, env[app], { ...network, listen });
      procs.push(proc);
      const http = servicePorts(service).find((p) => p.name === 'http')!;
      await waitHealthy(`http://127.0.0.1:${standIn[`${app}:${http.port}`]}/healthz`, proc);
      if (app === 'registry' && env.registry?.REGISTRY_SEED_DEMO === 'true') await proc.waitFor(/registry listening on/, 120_000);
    }
    proxy = await startIngressProxy(router, standIn);
    // Clients reach the Ingress hosts on port 80 only (dev has no TLS).
    uninstall = installLoopback({
      names: [],
      connect: Object.fromEntries(router.hosts.filter((h) => !h.startsWith('*')).map((h) => [`${h}:80`, proxy.port])),
      listen: {},
    });
  });

  afterAll(async () => {
    uninstall?.();
    await proxy?.close();
    for (const p of procs.reverse()) await p.stop();
  });

  const gatewayUrl = () => String(env.gateway?.GATEWAY_PUBLIC_URL).replace(/\/+$/, '');

  it('answers tools/list on the demo tenant through the Ingress', async () => {
    const r = await mcp(`${gatewayUrl()}/t/demo/mcp`, 'tools/list');
    expect({ status: r.status, error: r.body.error }).toEqual({ status: 200, error: undefined });
    expect(toolNames(r).length).toBeGreaterThan(5);
  });

  it('delivers a publish made through the console host to the gateway and calls the upstream', async () => {
    const upstream = { url: String(env.registry?.REGISTRY_DEMO_UPSTREAM_URL), token: 'demo-upstream-secret' };
    const { mcpUrl, tools } = await publishTenant(
      String(env.registry?.REGISTRY_PUBLIC_URL),
      String(env.registry?.REGISTRY_OPERATOR_KEY),
      'boot-k8s',
      upstream,
    );
    expect(mcpUrl).toBe(`${gatewayUrl()}/t/boot-k8s/mcp`);
    const listed = await eventually('the publish reaching the gateway', async () => {
      const r = await mcp(mcpUrl, 'tools/list');
      return toolNames(r).length > 0 ? r : undefined;
    });
    expect(toolNames(listed).sort()).toEqual([...tools].sort());
    const call = await mcp(mcpUrl, 'tools/call', { name: 'lookup_customer', arguments: { id: 'c_003' } });
    expect(JSON.stringify(call.body.result)).toContain('Umbrella');
  });

  it('signs in to the OAuth-protected tenant through the routed URLs, and every advertised URL reaches the service that answers it', async () => {
    const url = `${gatewayUrl()}/t/secure/mcp`;
    const s = await signIn(url);
    const r = await mcp(url, 'tools/list', {}, s.accessToken);
    expect({ status: r.status, error: r.body.error }).toEqual({ status: 200, error: undefined });

    // Every absolute URL of the PRM and the AS metadata, by field, with the service the Ingress sends it to.
    const fields = (doc: Json): Array<[string, string]> =>
      Object.entries(doc).flatMap(([k, v]) =>
        (Array.isArray(v) ? v : [v])
          .filter((x): x is string => typeof x === 'string' && /^https?:\/\//.test(x))
          .map((x): [string, string] => [k, x]),
      );
    const advertised: Array<[string, string]> = [['(AS metadata)', s.asMetadataUrl], ...fields(s.prm), ...fields(s.asMetadata)];
    const gatewayOrigin = new URL(gatewayUrl()).origin;
    const answeredBy = (u: URL): string => (u.origin === gatewayOrigin ? 'gateway' : 'auth');
    /** Identifiers (compared, never fetched) are only routed; endpoints must also answer. */
    const IDENTIFIERS = new Set(['issuer', 'authorization_servers', 'resource']);
    const POSTED = /^(token|registration|revocation|introspection|pushed_authorization_request)_endpoint$/;
    const problems: string[] = [];
    for (const [field, a] of advertised) {
      const u = new URL(a);
      const backend = router.route(u.host, u.pathname);
      if (backend?.service !== answeredBy(u)) {
        problems.push(`${field} ${a}: routed to ${backend?.service ?? 'nothing'}, answered by ${answeredBy(u)}`);
        continue;
      }
      if (IDENTIFIERS.has(field)) continue;
      // Answered: anything but the default backend's or the app's 404 (a 400 for a bare request is an answer).
      const res = await fetch(
        a,
        POSTED.test(field)
          ? { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' }
          : { redirect: 'manual' },
      );
      await res.arrayBuffer();
      if (res.status === 404 || res.status >= 500)
        problems.push(`${field} ${a}: ${res.status} from ${res.headers.get('x-ingress-backend') ?? 'the default backend'}`);
    }
    expect(advertised.length).toBeGreaterThan(5);
    expect(problems).toEqual([]);
  });

  it('prod overlay (host-based tenants): every URL a tenant origin advertises is routed to the service that answers it', async () => {
    const prod = renderKustomize(path.join(REPO_ROOT, 'k8s/overlays/prod'));
    const prodRouter = ingressRouter(prod);
    const domain = (
      prod.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'gateway-config') as unknown as { data: Record<string, string> }
    ).data.GATEWAY_DOMAIN;
    expect(domain).toBeDefined();
    // The prod auth Deployment's environment, on this test's private Postgres (its own schema), with
    // random secrets where a secret manager replaces the base Secret's placeholders (production mode refuses those).
    const prodSecretsKey = randomBytes(32).toString('base64');
    // Alone (no registry feed), auth serves the seed file's file-seeded tenants: `secure` as one.
    const seedFile = path.join(mkdtempSync(path.join(tmpdir(), 'sb-k8s-prod-')), 'tenants.yaml');
    writeFileSync(
      seedFile,
      'tenants:\n  - id: secure\n    name: Protected demo\n    catalogs: [{ builtin: demo }]\n    auth: { protected: true, scopes: [mcp:tools], idp: { kind: local } }\n',
    );
    const prodEnv = {
      ...containerEnv(
        prod.find((o) => o.kind === 'Deployment' && o.metadata.name === 'auth')!,
        prod,
      ),
      DATABASE_URL: String(env.auth?.DATABASE_URL),
      AUTH_DB_SCHEMA: 'auth_prod_routing',
      SECRETS_KEY: prodSecretsKey,
      // The same Secret key (k8s/base/auth.yaml): the registry's SECRETS_KEY opens tenant documents' secrets.
      CATALOG_SECRETS_KEY: prodSecretsKey,
      TENANTS_FILE: seedFile,
      INTERNAL_TOKEN: randomBytes(32).toString('base64url'),
    };
    const port = await freePort();
    const proc = startApp('auth', prodEnv, { names: [], connect: standIn, listen: { '3200': port }, strict: true });
    procs.push(proc);
    await waitHealthy(`http://127.0.0.1:${port}/healthz`, proc);
    const host = `secure.${domain}`;
    // As the Ingress hands it over: the tenant's Host (fetch cannot set Host, node:http can), TLS ended at the edge.
    const metadata = await new Promise<Json>((resolve, reject) => {
      http
        .get(
          { host: '127.0.0.1', port, path: '/.well-known/oauth-authorization-server', headers: { host, 'x-forwarded-proto': 'https' } },
          (r) => {
            let body = '';
            r.on('data', (c: Buffer) => (body += c.toString()));
            r.on('end', () => resolve(JSON.parse(body || '{}') as Json));
          },
        )
        .on('error', reject);
    });
    expect(metadata.issuer).toBe(`https://${host}`);
    const urls = Object.entries(metadata).flatMap(([k, v]) =>
      (Array.isArray(v) ? v : [v])
        .filter((x): x is string => typeof x === 'string' && x.startsWith('https://'))
        .map((x) => [k, x] as const),
    );
    expect(urls.length).toBeGreaterThan(4);
    const routes = [
      ...urls.map(([field, u]) => ({ field, u, expected: 'auth' })),
      { field: 'as-metadata', u: `https://${host}/.well-known/oauth-authorization-server`, expected: 'auth' },
      { field: 'openid-configuration', u: `https://${host}/.well-known/openid-configuration`, expected: 'auth' },
      { field: 'resource', u: `https://${host}/mcp`, expected: 'gateway' },
      { field: 'prm', u: `https://${host}/.well-known/oauth-protected-resource/mcp`, expected: 'gateway' },
      { field: 'prm (root)', u: `https://${host}/.well-known/oauth-protected-resource`, expected: 'gateway' },
    ];
    const wrong = routes
      .map(({ field, u, expected }) => ({ field, u, expected, got: prodRouter.route(new URL(u).host, new URL(u).pathname)?.service }))
      .filter((r) => r.field !== 'issuer' && r.got !== r.expected);
    expect(wrong).toEqual([]);
  });

  it('runs every app of the overlay', () => {
    expect(Object.keys(env).sort()).toEqual([...APPS].sort());
  });
});

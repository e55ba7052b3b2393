import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { isTelemetryEnvKey } from '@switchboard/telemetry';
import { readTenantSeed } from '@switchboard/tenant-config';
import { loadAuthConfig } from '../../auth/src/config';
import { loadConfig as loadChainReaderConfig } from '../../chain-reader/src/config';
import { loadRegistryConfig } from '../../registry/src/config';
import { loadGatewayConfig } from '../src/config/config';
import { containerEnv } from './support/k8s-env';
import { renderKustomize, type K8sObject } from './support/render-kustomize';

/**
 * Deployment artefacts stay in step with the code: the kustomize overlays render, every
 * object validates against the Kubernetes schemas, and the environment each Deployment and
 * each compose service sets is exactly what that app's config schema knows and needs.
 */
const REPO_ROOT = path.resolve(__dirname, '../../..');
type Env = Record<string, string>;

const APPS = {
  gateway: { configFile: 'apps/gateway/src/config/config.ts', load: (env: Env) => loadGatewayConfig(env), port: 3000 },
  'chain-reader': { configFile: 'apps/chain-reader/src/config.ts', load: (env: Env) => loadChainReaderConfig(env), port: 4200 },
  registry: { configFile: 'apps/registry/src/config.ts', load: (env: Env) => loadRegistryConfig(env), port: 3100 },
  auth: { configFile: 'apps/auth/src/config.ts', load: (env: Env) => loadAuthConfig(env), port: 3200 },
} as const;
type AppName = keyof typeof APPS;

/** The variables an app's zod env schema declares (keys of the `z.object({ ... })` in its config file: a zod chain, a local helper, or a lib's `…Schema()` field). */
function schemaKeys(app: AppName): Set<string> {
  const source = readFileSync(path.join(REPO_ROOT, APPS[app].configFile), 'utf8');
  return new Set([...source.matchAll(/^ {2}([A-Z][A-Z0-9_]*):\s*(z\b|intFromEnv|csv|optionalText|[a-z]\w*Schema\()/gm)].map((m) => m[1]!));
}

/** Keys an app reads by pattern rather than by name. */
function knownByPattern(app: AppName, key: string): boolean {
  return app === 'chain-reader' && /^CHAIN_RPC_URLS_[A-Z0-9_]+$/.test(key);
}

function checkEnv(app: AppName, env: Env, where: string): string[] {
  const problems: string[] = [];
  const keys = schemaKeys(app);
  expect(keys.size).toBeGreaterThan(3);
  for (const key of Object.keys(env)) {
    if (!keys.has(key) && !isTelemetryEnvKey(key) && !knownByPattern(app, key)) problems.push(`${where}: ${key} is not in ${app}'s config schema`);
  }
  try {
    APPS[app].load(env);
  } catch (err) {
    problems.push(`${where}: ${app} rejects this environment: ${(err as Error).message}`);
  }
  return problems;
}

/**
 * The gateway images scripts/build-images.sh makes: tag -> its bundle (the Dockerfile's BUNDLE)
 * and whether that bundle carries libs/fixtures (`bundle.mjs --with-fixtures`).
 */
function gatewayImages(): Map<string, { bundle: string; fixtures: boolean }> {
  const script = readFileSync(path.join(REPO_ROOT, 'scripts/build-images.sh'), 'utf8');
  const withFixtures = new Set([...script.matchAll(/bundle\.mjs --with-fixtures apps\/gateway \.image\/(\S+)/g)].map((m) => m[1]!));
  return new Map([...script.matchAll(/"(switchboard\/gateway:\S+) gateway (\S+)"/g)].map((m) => [m[1]!, { bundle: m[2]!, fixtures: withFixtures.has(m[2]!) }]));
}

/** Whether a gateway with this environment serves file tenants whose catalogs come from libs/fixtures (builtin demo/conformance, fixture files). */
function needsFixtures(env: Env): boolean {
  // Only the catalog source matters here, not the secrets: read it as a development config would.
  const c = loadGatewayConfig({ ...env, SWITCHBOARD_ENV: 'development' });
  const fileSource = c.CATALOG_SOURCES ? c.CATALOG_SOURCES.split(',').includes('file') : c.REGISTRY_URL === undefined && c.REDIS_URL === undefined;
  // The images' WORKDIR is the repository's layout, so a relative TENANTS_FILE names the repository's file.
  const tenants = fileSource ? readTenantSeed(path.resolve(REPO_ROOT, c.TENANTS_FILE)).filter((t) => t.seed === 'file') : [];
  return tenants.some((t) => (t.catalogs ?? []).some((spec) => 'fixture' in spec || ('builtin' in spec && spec.builtin !== 'chain')));
}

/** `localhost:5001/switchboard/gateway:dev` -> `switchboard/gateway:dev` (the local tag an overlay's image was pushed from). */
const localTag = (image: string): string => image.replace(/^([^/]*[.:][^/]*|localhost)\//, '');

function renderWithKubectl(dir: string): K8sObject[] | undefined {
  const probe = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8', timeout: 20_000 });
  if (probe.status !== 0) return undefined;
  const out = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8', timeout: 60_000 });
  if (out.status !== 0) throw new Error(`kubectl kustomize ${dir}: ${out.stderr}`);
  return parseAllDocuments(out.stdout).map((d) => d.toJS() as K8sObject);
}

/** What a secret manager would provide instead of the base Secret's placeholders. */
const REAL_SECRETS = { SECRETS_KEY: randomBytes(32).toString('base64'), INTERNAL_TOKEN: randomBytes(32).toString('base64url'), AUTH_INTERNAL_TOKEN: '', REGISTRY_OPERATOR_KEY: randomBytes(32).toString('base64url'), GATEWAY_STATE_KEYS: randomBytes(32).toString('base64') };
REAL_SECRETS.AUTH_INTERNAL_TOKEN = REAL_SECRETS.INTERNAL_TOKEN;
// auth's CATALOG_SECRETS_KEY is the same Secret key as SECRETS_KEY (k8s/base/auth.yaml).
const REAL_SECRETS_BY_ENV: Record<string, string> = { ...REAL_SECRETS, CATALOG_SECRETS_KEY: REAL_SECRETS.SECRETS_KEY };

const byKey = (objects: K8sObject[]) => new Map(objects.map((o) => [`${o.kind}/${o.metadata.name}`, o]));

describe.each(['dev', 'prod'])('k8s overlay %s', (overlay) => {
  const dir = path.join(REPO_ROOT, 'k8s/overlays', overlay);
  const objects = renderKustomize(dir);

  it('renders the same objects as kubectl kustomize (when kubectl is installed)', () => {
    const reference = renderWithKubectl(dir);
    if (!reference) return;
    const mine = byKey(objects);
    expect([...mine.keys()].sort()).toEqual([...byKey(reference).keys()].sort());
    for (const [key, o] of byKey(reference)) expect({ key, o: mine.get(key) }).toEqual({ key, o });
  });

  it('validates every object against the Kubernetes schemas', () => {
    const run = spawnSync(process.execPath, [path.join(__dirname, 'support/validate-k8s.mjs')], { input: JSON.stringify(objects), encoding: 'utf8', cwd: REPO_ROOT, timeout: 60_000 });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual([]);
  });

  it('has, per app, a Deployment with probes, resources and a restricted security context, a Service and a PDB; HPAs for gateway and chain-reader', () => {
    const objs = byKey(objects);
    for (const app of Object.keys(APPS)) {
      const d = objs.get(`Deployment/${app}`) as unknown as { spec: { template: { spec: { securityContext: Json; containers: Array<Json & { securityContext: Json; resources: { requests: Json; limits: Json } }> } } } } | undefined;
      expect(d).toBeDefined();
      const pod = d!.spec.template.spec;
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
      const c = pod.containers[0]!;
      expect(c).toMatchObject({ livenessProbe: { httpGet: { path: '/healthz' } }, readinessProbe: { httpGet: {} } });
      expect(c.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
      expect(Object.keys(c.resources.requests).sort()).toEqual(['cpu', 'memory']);
      expect(Object.keys(c.resources.limits).sort()).toEqual(['cpu', 'memory']);
      expect(objs.get(`Service/${app}`)).toBeDefined();
      expect(objs.get(`PodDisruptionBudget/${app}`)).toBeDefined();
      expect(objs.get(`NetworkPolicy/${app}`)).toBeDefined();
    }
    expect(objs.get('HorizontalPodAutoscaler/gateway')).toBeDefined();
    expect(objs.get('HorizontalPodAutoscaler/chain-reader')).toBeDefined();
  });

  it('routes /t/*/mcp and /.well-known/* to the gateway, /mcp on the wildcard host when tenants are host-based, /openapi.json to the registry', () => {
    const ingress = objects.find((o) => o.kind === 'Ingress') as unknown as { spec: { rules: Array<{ host: string; http: { paths: Array<{ path: string; backend: { service: { name: string } } }> } }> } };
    const routes = ingress.spec.rules.flatMap((r) => r.http.paths.map((p) => `${r.host}${p.path}->${p.backend.service.name}`));
    const hostBased = (objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'gateway-config') as unknown as { data: Record<string, string> }).data.GATEWAY_DOMAIN !== undefined;
    expect(routes).toEqual(expect.arrayContaining([expect.stringMatching(/^[^*].*\/t\/.*\/mcp->gateway$/), expect.stringMatching(/\/\.well-known\/->gateway$/), expect.stringMatching(/\/openapi\.json->registry$/)]));
    if (hostBased) expect(routes).toEqual(expect.arrayContaining([expect.stringMatching(/^\*\..*\/mcp->gateway$/), expect.stringMatching(/^\*\..*\/token->auth$/)]));
  });

  it('has its Namespace, images qualified by a registry, no replicas beside an HPA, PDBs that let a node drain', () => {
    const namespace = objects[0]!.kind === 'Namespace' ? objects[0] : objects.find((o) => o.kind === 'Namespace');
    expect(namespace?.metadata.name).toBe(objects.find((o) => o.kind === 'Deployment')?.metadata.namespace);
    const images = objects.flatMap((o) => (o.kind === 'Deployment' ? (o as unknown as { spec: { template: { spec: { containers: Array<{ image: string }> } } } }).spec.template.spec.containers.map((c) => c.image) : []));
    // A first path component with a dot, a colon or `localhost` is a registry host (else Docker Hub is implied).
    for (const image of images) expect({ image, qualified: /^([^/]*[.:][^/]*|localhost)\//.test(image) }).toEqual({ image, qualified: true });
    const scaled = new Set(objects.filter((o) => o.kind === 'HorizontalPodAutoscaler').map((o) => (o as unknown as { spec: { scaleTargetRef: { name: string } } }).spec.scaleTargetRef.name));
    for (const d of objects.filter((o) => o.kind === 'Deployment')) {
      const replicas = (d as unknown as { spec: { replicas?: number } }).spec.replicas;
      if (scaled.has(d.metadata.name)) expect({ deployment: d.metadata.name, replicas }).toEqual({ deployment: d.metadata.name, replicas: undefined });
    }
    for (const pdb of objects.filter((o) => o.kind === 'PodDisruptionBudget')) {
      const spec = (pdb as unknown as { spec: { minAvailable?: number; maxUnavailable?: number } }).spec;
      expect({ pdb: pdb.metadata.name, minAvailable: spec.minAvailable, drains: (spec.maxUnavailable ?? 0) >= 1 }).toEqual({ pdb: pdb.metadata.name, minAvailable: undefined, drains: true });
    }
  });

  it('runs the gateway image with the development fixtures in dev, whose file tenants need them, and never in prod', () => {
    const d = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'gateway')!;
    const image = (d as unknown as { spec: { template: { spec: { containers: Array<{ image: string }> } } } }).spec.template.spec.containers[0]!.image;
    const fixtures = gatewayImages().get(localTag(image))?.fixtures ?? false;
    const needed = needsFixtures(containerEnv(d, objects));
    if (overlay === 'prod') expect({ image, fixtures, needed, dev: /:dev$/.test(image) }).toEqual({ image, fixtures: false, needed: false, dev: false });
    else expect({ image, fixtures, needed }).toEqual({ image, fixtures: true, needed: true });
  });

  it('sets, per Deployment, only variables its config schema knows, and every one it requires', () => {
    const problems = Object.keys(APPS).flatMap((app) => {
      const d = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === app)!;
      const env = containerEnv(d, objects);
      // Production mode refuses the base Secret's placeholders (the next test): check the rest with real-looking secrets.
      return checkEnv(app as AppName, env.SWITCHBOARD_ENV === 'production' ? { ...env, ...Object.fromEntries(Object.entries(REAL_SECRETS_BY_ENV).filter(([k]) => k in env)) } : env, `${overlay}/Deployment/${app}`);
    });
    expect(problems).toEqual([]);
  });

  it('runs production mode in prod, development mode in dev explicitly (its Secret holds development keys); prod refuses the placeholder Secret naming each variable', () => {
    const modes = Object.fromEntries(Object.keys(APPS).map((app) => [app, containerEnv(objects.find((o) => o.kind === 'Deployment' && o.metadata.name === app)!, objects).SWITCHBOARD_ENV]));
    if (overlay !== 'prod') {
      expect(modes).toEqual({ gateway: 'development', 'chain-reader': undefined, registry: 'development', auth: 'development' });
      return;
    }
    expect(modes).toEqual({ gateway: 'production', 'chain-reader': undefined, registry: 'production', auth: 'production' });
    const refusal = (app: AppName) => {
      try {
        APPS[app].load(containerEnv(objects.find((o) => o.kind === 'Deployment' && o.metadata.name === app)!, objects));
        return 'started';
      } catch (err) {
        return (err as Error).message;
      }
    };
    expect(refusal('registry')).toEqual(expect.stringMatching(/SECRETS_KEY: the key is a development or placeholder key[\s\S]*INTERNAL_TOKEN: [\s\S]*REGISTRY_OPERATOR_KEY: /));
    expect(refusal('gateway')).toEqual(expect.stringMatching(/SECRETS_KEY: the key is a development or placeholder key[\s\S]*INTERNAL_TOKEN: /));
    expect(refusal('auth')).toEqual(expect.stringMatching(/SECRETS_KEY: the key is a development or placeholder key/));
  });
});

describe('k8s/jobs', () => {
  it('validates the re-seal Job, which runs the registry image with the registry environment', () => {
    const objects = parseAllDocuments(readFileSync(path.join(REPO_ROOT, 'k8s/jobs/reseal.yaml'), 'utf8')).map((d) => d.toJS() as K8sObject);
    const run = spawnSync(process.execPath, [path.join(__dirname, 'support/validate-k8s.mjs')], { input: JSON.stringify(objects), encoding: 'utf8', cwd: REPO_ROOT, timeout: 60_000 });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual([]);
    const container = (objects[0] as unknown as { spec: { template: { spec: { containers: Array<{ command: string[]; image: string }> } } } }).spec.template.spec.containers[0]!;
    expect(container.command).toEqual(['node', 'apps/registry/dist/reseal.js']);
    expect(existsSync(path.join(REPO_ROOT, 'apps/registry/src/reseal.ts'))).toBe(true);
  });
});

describe('docker-compose.yml', () => {
  const compose = parse(readFileSync(path.join(REPO_ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
    services: Record<string, ComposeService>;
  };
  const composeText = readFileSync(path.join(REPO_ROOT, 'docker-compose.yml'), 'utf8');

  /** `${VAR:-default}` resolves to its default (what `docker compose up` uses with nothing set). */
  const resolve = (value: string, where: string): string =>
    String(value).replace(/\$\{([A-Z0-9_]+)(:-([^}]*))?\}/g, (_m, name: string, _d, def: string | undefined) => {
      if (def === undefined) throw new Error(`${where}: \${${name}} has no default`);
      return def;
    });

  it('runs the four apps, Postgres, Redis, the collector, Tempo, Prometheus and Grafana', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['auth', 'chain-reader', 'gateway', 'grafana', 'otel-collector', 'postgres', 'prometheus', 'redis', 'registry', 'tempo'].sort());
  });

  it('sets, per app service, only variables its config schema knows, and every one it requires', () => {
    const problems = Object.keys(APPS).flatMap((app) => {
      const env = Object.fromEntries(Object.entries(compose.services[app]?.environment ?? {}).map(([k, v]) => [k, resolve(v, `${app}.${k}`)]));
      return checkEnv(app as AppName, env, `compose/${app}`);
    });
    expect(problems).toEqual([]);
  });

  it('builds each app from its Dockerfile (its bundle on the base pinned by digest, read-only app files, non-root, HEALTHCHECK) and mounts files that exist', () => {
    const bases = new Set<string>();
    for (const app of Object.keys(APPS) as AppName[]) {
      const file = compose.services[app]?.build?.dockerfile;
      expect(file).toBe(`apps/${app}/Dockerfile`);
      // Instructions only: the comments may name what the file does not do.
      const dockerfile = readFileSync(path.join(REPO_ROOT, file!), 'utf8').split('\n').filter((line) => !line.startsWith('#')).join('\n');
      // Every FROM is the BASE argument, whose default names an image by its manifest digest: a tag can move.
      const base = /^ARG BASE=(\S+)$/m.exec(dockerfile)?.[1];
      expect({ app, base }).toEqual({ app, base: expect.stringMatching(/^[a-z0-9.:/-]+@sha256:[0-9a-f]{64}$/) });
      bases.add(base!);
      expect(dockerfile.match(/^FROM .*$/gm)).toEqual(['FROM ${BASE}']);
      // The runtime tree is the app's bundle (ops/images/bundle.mjs), not the monorepo's node_modules;
      // the gateway's is chosen by BUNDLE, whose default is the production one (no fixtures).
      if (app === 'gateway') {
        expect(dockerfile).toMatch(/^ARG BUNDLE=gateway$/m);
        expect(dockerfile).toMatch(/^COPY \.image\/\$\{BUNDLE\}\/ \/app\/$/m);
      } else expect(dockerfile).toMatch(new RegExp(`^COPY \\.image/${app}/ /app/$`, 'm'));
      expect(dockerfile).not.toMatch(/node_modules|npm (ci|install)/);
      // App files belong to root: the runtime user can read them, not change them.
      expect(dockerfile).not.toMatch(/--chown|--chmod|\bchown\b|\bchmod\b/);
      expect(dockerfile).not.toMatch(/^RUN /m);
      expect(dockerfile).toMatch(/^USER node$/m);
      expect(dockerfile.indexOf('USER node')).toBeGreaterThan(dockerfile.lastIndexOf('COPY '));
      expect(dockerfile).toMatch(new RegExp(`HEALTHCHECK[\\s\\S]*127\\.0\\.0\\.1:${APPS[app].port}/healthz`));
      expect(dockerfile).toMatch(new RegExp(`^CMD \\[.*"apps/${app}/dist/main\\.js"\\]$`, 'm'));
    }
    // One base for every app, the one scripts/build-images.sh builds and compares against.
    expect(bases.size).toBe(1);
    for (const service of Object.values(compose.services)) {
      for (const volume of service.volumes ?? []) {
        const source = volume.split(':')[0]!;
        if (source.startsWith('./')) expect({ volume, exists: existsSync(path.join(REPO_ROOT, source)) }).toEqual({ volume, exists: true });
      }
    }
    // The build context leaves node_modules and dist out, except inside the bundles.
    const ignore = readFileSync(path.join(REPO_ROOT, '.dockerignore'), 'utf8').split('\n');
    expect(ignore).toEqual(expect.arrayContaining(['**/node_modules', '**/dist', '!.image/*/**']));
    expect(ignore.indexOf('!.image/*/**')).toBeGreaterThan(ignore.indexOf('**/node_modules'));
  });

  it('builds the gateway with the development fixtures its file tenants need (the dev image), and the production image without them', () => {
    const images = gatewayImages();
    expect(Object.fromEntries(images)).toEqual({ 'switchboard/gateway:prod': { bundle: 'gateway', fixtures: false }, 'switchboard/gateway:dev': { bundle: 'gateway-dev', fixtures: true } });
    const gateway = compose.services.gateway!;
    const env = Object.fromEntries(Object.entries(gateway.environment ?? {}).map(([k, v]) => [k, resolve(v, `gateway.${k}`)]));
    expect(needsFixtures(env)).toBe(true);
    // `docker compose up --build` and scripts/build-images.sh make the same image under the same tag.
    expect({ image: gateway.image, bundle: gateway.build?.args?.BUNDLE }).toEqual({ image: 'switchboard/gateway:dev', bundle: images.get('switchboard/gateway:dev')!.bundle });
  });

  it('publishes every port on 127.0.0.1 unless SWITCHBOARD_BIND opens it', () => {
    const published = Object.entries(compose.services).flatMap(([name, service]) => (service.ports ?? []).map((port) => ({ name, port })));
    expect(published.length).toBeGreaterThan(0);
    // The host side is a .env variable (its default the container port for the apps); the container side is fixed.
    for (const { name, port } of published) expect({ name, port }).toEqual({ name, port: expect.stringMatching(/^\$\{SWITCHBOARD_BIND:-127\.0\.0\.1\}:\$\{[A-Z_]+_HOST_PORT:-\d+\}:\d+$/) });
    for (const app of Object.keys(APPS) as AppName[]) {
      const variable = `${app.toUpperCase().replace(/-/g, '_')}_HOST_PORT`;
      expect(compose.services[app]?.ports).toEqual([`\${SWITCHBOARD_BIND:-127.0.0.1}:\${${variable}:-${APPS[app].port}}:${APPS[app].port}`]);
    }
  });

  it('restarts every service unless stopped (a registry that loses a boot race comes back)', () => {
    for (const [name, service] of Object.entries(compose.services)) expect({ name, restart: service.restart }).toEqual({ name, restart: 'unless-stopped' });
  });

  it('waits on health for every dependency that has a healthcheck (its own or its Dockerfile HEALTHCHECK), and names a condition for every dependency', () => {
    const healthy = (name: string): boolean => {
      const service = compose.services[name]!;
      if (service.healthcheck) return true;
      const dockerfile = service.build?.dockerfile;
      return dockerfile !== undefined && /^HEALTHCHECK /m.test(readFileSync(path.join(REPO_ROOT, dockerfile), 'utf8'));
    };
    const edges = Object.entries(compose.services).flatMap(([name, service]) => {
      expect({ name, longForm: service.depends_on === undefined || !Array.isArray(service.depends_on) }).toEqual({ name, longForm: true });
      return Object.entries((service.depends_on ?? {}) as Record<string, { condition?: string }>).map(([dep, spec]) => ({ edge: `${name} -> ${dep}`, condition: spec.condition }));
    });
    expect(edges.length).toBeGreaterThan(8);
    for (const { edge, condition } of edges) {
      const dep = edge.split(' -> ')[1]!;
      expect({ edge, condition }).toEqual({ edge, condition: healthy(dep) ? 'service_healthy' : 'service_started' });
    }
    // The apps' datastores are waited on by health, not by start.
    for (const app of ['registry', 'auth']) expect(compose.services[app]?.depends_on).toMatchObject({ postgres: { condition: 'service_healthy' }, redis: { condition: 'service_healthy' } });
    expect(compose.services.gateway?.depends_on).toMatchObject({ registry: { condition: 'service_healthy' }, auth: { condition: 'service_healthy' } });
  });

  it('runs every app that has a production mode in development mode, explicitly (a development stack with development secrets)', () => {
    const withMode = (Object.keys(APPS) as AppName[]).filter((app) => schemaKeys(app).has('SWITCHBOARD_ENV'));
    expect(withMode).toEqual(expect.arrayContaining(['gateway', 'registry', 'auth']));
    for (const app of withMode) expect({ app, mode: compose.services[app]?.environment?.SWITCHBOARD_ENV }).toEqual({ app, mode: 'development' });
  });

  it('pulls every third-party image through IMAGE_PREFIX (a mirror registry) and builds every app image here', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      if (service.build) expect({ name, image: service.image }).toEqual({ name, image: expect.stringMatching(/^switchboard\//) });
      else expect({ name, image: service.image }).toEqual({ name, image: expect.stringMatching(/^\$\{IMAGE_PREFIX:-\}[a-z]/) });
    }
  });

  it('has a .env.example naming every variable the file reads, at the default the file uses, with each public URL on its host port', () => {
    const example = Object.fromEntries(
      readFileSync(path.join(REPO_ROOT, '.env.example'), 'utf8')
        .split('\n')
        .filter((line) => /^[A-Z][A-Z0-9_]*=/.test(line))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    const used = new Map<string, string>();
    for (const m of composeText.matchAll(/\$\{([A-Z0-9_]+):-([^}]*)\}/g)) {
      // One default per variable across the file, so .env has one value to give.
      if (used.has(m[1]!)) expect({ variable: m[1], default: m[2] }).toEqual({ variable: m[1], default: used.get(m[1]!) });
      used.set(m[1]!, m[2]!);
    }
    for (const [variable, def] of used) expect({ variable, value: example[variable] }).toEqual({ variable, value: def });
    expect(example.COMPOSE_PROJECT_NAME).toBe('switchboard');
    for (const app of ['GATEWAY', 'REGISTRY', 'AUTH']) {
      expect({ app, url: example[`${app}_PUBLIC_URL`] }).toEqual({ app, url: `http://localhost:${example[`${app}_HOST_PORT`]}` });
    }
    // .env holds secrets: never in git, never in the build context.
    expect(readFileSync(path.join(REPO_ROOT, '.gitignore'), 'utf8').split('\n')).toContain('.env');
    expect(readFileSync(path.join(REPO_ROOT, '.dockerignore'), 'utf8').split('\n')).toContain('**/.env');
  });

  it('gives anonymous Grafana visitors at most the Viewer role and lets nobody sign up', () => {
    const env = compose.services.grafana?.environment ?? {};
    // Grafana's own default for an enabled anonymous role is Viewer; Editor or Admin would let anyone on the port change dashboards and data sources.
    if (resolve(env.GF_AUTH_ANONYMOUS_ENABLED ?? 'false', 'grafana') === 'true') expect(resolve(env.GF_AUTH_ANONYMOUS_ORG_ROLE ?? 'Viewer', 'grafana')).toBe('Viewer');
    expect(resolve(env.GF_USERS_ALLOW_SIGN_UP ?? 'false', 'grafana')).toBe('false');
  });

  it("declares, in each workspace's package.json, exactly the packages its source imports (the images install only their app's closure)", () => {
    const run = spawnSync(process.execPath, [path.join(REPO_ROOT, 'scripts/workspace-deps.mjs'), 'check'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it('pins every third-party image to an exact release (major.minor[.patch])', () => {
    for (const [name, service] of Object.entries(compose.services)) if (service.image && !service.build) expect({ name, image: service.image }).toEqual({ name, image: expect.stringMatching(/:v?\d+\.\d+(\.\d+)?(-[a-z0-9.]+)?$/) });
  });

  it('passes `docker compose config` (Compose v2, else v1) with .env.example, or says NOT RUN when no compose CLI is installed', () => {
    // `config` parses and interpolates only: it needs the CLI, not a running engine. Booting the
    // file on an engine is scripts/compose-smoke.sh (exit 3 when it cannot run).
    const cli = [['docker', 'compose'], ['docker-compose']].find(([cmd, ...sub]) => spawnSync(cmd!, [...sub, 'version'], { timeout: 20_000 }).status === 0);
    if (!cli) {
      process.stdout.write('docker-compose.yml: `docker compose config` NOT RUN: neither the Compose v2 plugin nor docker-compose is installed\n');
      expect(spawnSync('docker', ['compose', 'version'], { timeout: 20_000 }).status).not.toBe(0);
      return;
    }
    const [cmd, ...sub] = cli;
    const run = spawnSync(cmd!, [...sub, '--env-file', '.env.example', '-f', 'docker-compose.yml', 'config', '--quiet'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 });
    expect({ cli: cli.join(' '), status: run.status, stderr: run.stderr }).toEqual({ cli: cli.join(' '), status: 0, stderr: '' });
  });
});

describe('scripts/compose-smoke.sh', () => {
  it('says NOT RUN and exits 3 when there is no Docker engine, instead of passing', () => {
    // A docker CLI whose every command fails, as on a machine with the client but no engine.
    const bin = mkdtempSync(path.join(tmpdir(), 'sb-no-engine-'));
    try {
      writeFileSync(path.join(bin, 'docker'), '#!/bin/sh\necho "Cannot connect to the Docker daemon" >&2\nexit 1\n', { mode: 0o755 });
      const run = spawnSync('bash', [path.join(REPO_ROOT, 'scripts/compose-smoke.sh')], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000, env: { PATH: `${bin}:${process.env.PATH ?? ''}`, SKIP_BUILD: '1' } });
      expect({ status: run.status, stderr: run.stderr.trim() }).toEqual({ status: 3, stderr: expect.stringMatching(/^compose-smoke: NOT RUN: no running Docker engine/) });
      expect(run.stdout).not.toMatch(/PASS/);
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });
});

/** The parts of a compose service these tests read. */
interface ComposeService {
  environment?: Record<string, string>;
  build?: { dockerfile: string; args?: Record<string, string> };
  image?: string;
  ports?: string[];
  volumes?: string[];
  healthcheck?: unknown;
  restart?: string;
  depends_on?: Record<string, { condition?: string }> | string[];
}

type Json = Record<string, unknown>;

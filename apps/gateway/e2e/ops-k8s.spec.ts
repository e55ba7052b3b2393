import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { containerEnv } from './support/k8s-env';
import { renderKustomize, type K8sObject } from './support/render-kustomize';

import {
  APPS,
  type AppName,
  type Json,
  REAL_SECRETS_BY_ENV,
  REPO_ROOT,
  byKey,
  checkEnv,
  gatewayImages,
  localTag,
  needsFixtures,
  renderWithKubectl,
} from './ops-manifests-support';

/** The kustomize overlays render, validate, and set exactly the environment each app's config schema knows and needs. */
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
    const run = spawnSync(process.execPath, [path.join(__dirname, 'support/validate-k8s.mjs')], {
      input: JSON.stringify(objects),
      encoding: 'utf8',
      cwd: REPO_ROOT,
      timeout: 60_000,
    });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual([]);
  });

  it('has, per app, a Deployment with probes, resources and a restricted security context, a Service and a PDB; HPAs for gateway and chain-reader', () => {
    const objs = byKey(objects);
    for (const app of Object.keys(APPS)) {
      const d = objs.get(`Deployment/${app}`) as unknown as
        | {
            spec: {
              template: {
                spec: {
                  securityContext: Json;
                  containers: Array<Json & { securityContext: Json; resources: { requests: Json; limits: Json } }>;
                };
              };
            };
          }
        | undefined;
      expect(d).toBeDefined();
      const pod = d!.spec.template.spec;
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
      const c = pod.containers[0]!;
      expect(c).toMatchObject({ livenessProbe: { httpGet: { path: '/healthz' } }, readinessProbe: { httpGet: {} } });
      expect(c.securityContext).toMatchObject({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      });
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
    const ingress = objects.find((o) => o.kind === 'Ingress') as unknown as {
      spec: { rules: Array<{ host: string; http: { paths: Array<{ path: string; backend: { service: { name: string } } }> } }> };
    };
    const routes = ingress.spec.rules.flatMap((r) => r.http.paths.map((p) => `${r.host}${p.path}->${p.backend.service.name}`));
    const hostBased =
      (objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'gateway-config') as unknown as { data: Record<string, string> })
        .data.GATEWAY_DOMAIN !== undefined;
    expect(routes).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^[^*].*\/t\/.*\/mcp->gateway$/),
        expect.stringMatching(/\/\.well-known\/->gateway$/),
        expect.stringMatching(/\/openapi\.json->registry$/),
      ]),
    );
    if (hostBased)
      expect(routes).toEqual(
        expect.arrayContaining([expect.stringMatching(/^\*\..*\/mcp->gateway$/), expect.stringMatching(/^\*\..*\/token->auth$/)]),
      );
  });

  it('has its Namespace, images qualified by a registry, no replicas beside an HPA, PDBs that let a node drain', () => {
    const namespace = objects[0]!.kind === 'Namespace' ? objects[0] : objects.find((o) => o.kind === 'Namespace');
    expect(namespace?.metadata.name).toBe(objects.find((o) => o.kind === 'Deployment')?.metadata.namespace);
    const images = objects.flatMap((o) =>
      o.kind === 'Deployment'
        ? (o as unknown as { spec: { template: { spec: { containers: Array<{ image: string }> } } } }).spec.template.spec.containers.map(
            (c) => c.image,
          )
        : [],
    );
    // A first path component with a dot, a colon or `localhost` is a registry host (else Docker Hub is implied).
    for (const image of images)
      expect({ image, qualified: /^([^/]*[.:][^/]*|localhost)\//.test(image) }).toEqual({ image, qualified: true });
    const scaled = new Set(
      objects
        .filter((o) => o.kind === 'HorizontalPodAutoscaler')
        .map((o) => (o as unknown as { spec: { scaleTargetRef: { name: string } } }).spec.scaleTargetRef.name),
    );
    for (const d of objects.filter((o) => o.kind === 'Deployment')) {
      const replicas = (d as unknown as { spec: { replicas?: number } }).spec.replicas;
      if (scaled.has(d.metadata.name))
        expect({ deployment: d.metadata.name, replicas }).toEqual({ deployment: d.metadata.name, replicas: undefined });
    }
    for (const pdb of objects.filter((o) => o.kind === 'PodDisruptionBudget')) {
      const spec = (pdb as unknown as { spec: { minAvailable?: number; maxUnavailable?: number } }).spec;
      expect({ pdb: pdb.metadata.name, minAvailable: spec.minAvailable, drains: (spec.maxUnavailable ?? 0) >= 1 }).toEqual({
        pdb: pdb.metadata.name,
        minAvailable: undefined,
        drains: true,
      });
    }
  });

  it('runs the gateway image with the development fixtures in dev, whose file tenants need them, and never in prod', () => {
    const d = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'gateway')!;
    const image = (d as unknown as { spec: { template: { spec: { containers: Array<{ image: string }> } } } }).spec.template.spec
      .containers[0]!.image;
    const fixtures = gatewayImages().get(localTag(image))?.fixtures ?? false;
    const needed = needsFixtures(containerEnv(d, objects));
    if (overlay === 'prod')
      expect({ image, fixtures, needed, dev: /:dev$/.test(image) }).toEqual({ image, fixtures: false, needed: false, dev: false });
    else expect({ image, fixtures, needed }).toEqual({ image, fixtures: true, needed: true });
  });

  it('sets, per Deployment, only variables its config schema knows, and every one it requires', () => {
    const problems = Object.keys(APPS).flatMap((app) => {
      const d = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === app)!;
      const env = containerEnv(d, objects);
      // Production mode refuses the base Secret's placeholders (the next test): check the rest with real-looking secrets.
      return checkEnv(
        app as AppName,
        env.SWITCHBOARD_ENV === 'production'
          ? { ...env, ...Object.fromEntries(Object.entries(REAL_SECRETS_BY_ENV).filter(([k]) => k in env)) }
          : env,
        `${overlay}/Deployment/${app}`,
      );
    });
    expect(problems).toEqual([]);
  });

  it('runs production mode in prod, development mode in dev explicitly (its Secret holds development keys); prod refuses the placeholder Secret naming each variable', () => {
    const modes = Object.fromEntries(
      Object.keys(APPS).map((app) => [
        app,
        containerEnv(
          objects.find((o) => o.kind === 'Deployment' && o.metadata.name === app)!,
          objects,
        ).SWITCHBOARD_ENV,
      ]),
    );
    if (overlay !== 'prod') {
      expect(modes).toEqual({ gateway: 'development', 'chain-reader': undefined, registry: 'development', auth: 'development' });
      return;
    }
    expect(modes).toEqual({ gateway: 'production', 'chain-reader': undefined, registry: 'production', auth: 'production' });
    const refusal = (app: AppName) => {
      try {
        APPS[app].load(
          containerEnv(
            objects.find((o) => o.kind === 'Deployment' && o.metadata.name === app)!,
            objects,
          ),
        );
        return 'started';
      } catch (err) {
        return (err as Error).message;
      }
    };
    expect(refusal('registry')).toEqual(
      expect.stringMatching(
        /SECRETS_KEY: the key is a development or placeholder key[\s\S]*INTERNAL_TOKEN: [\s\S]*REGISTRY_OPERATOR_KEY: /,
      ),
    );
    expect(refusal('gateway')).toEqual(
      expect.stringMatching(/SECRETS_KEY: the key is a development or placeholder key[\s\S]*INTERNAL_TOKEN: /),
    );
    expect(refusal('auth')).toEqual(expect.stringMatching(/SECRETS_KEY: the key is a development or placeholder key/));
  });
});

describe('k8s/jobs', () => {
  it('validates the re-seal Job, which runs the registry image with the registry environment', () => {
    const objects = parseAllDocuments(readFileSync(path.join(REPO_ROOT, 'k8s/jobs/reseal.yaml'), 'utf8')).map((d) => d.toJS() as K8sObject);
    const run = spawnSync(process.execPath, [path.join(__dirname, 'support/validate-k8s.mjs')], {
      input: JSON.stringify(objects),
      encoding: 'utf8',
      cwd: REPO_ROOT,
      timeout: 60_000,
    });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual([]);
    const container = (
      objects[0] as unknown as { spec: { template: { spec: { containers: Array<{ command: string[]; image: string }> } } } }
    ).spec.template.spec.containers[0]!;
    expect(container.command).toEqual(['node', 'apps/registry/dist/reseal.js']);
    expect(existsSync(path.join(REPO_ROOT, 'apps/registry/src/reseal.ts'))).toBe(true);
  });
});

import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { isTelemetryEnvKey } from '@switchboard/telemetry';
import { readTenantSeed } from '@switchboard/tenant-config';
import { loadAuthConfig } from '../../auth/src/config';
import { loadConfig as loadChainReaderConfig } from '../../chain-reader/src/config';
import { loadRegistryConfig } from '../../registry/src/config';
import { loadGatewayConfig } from '../src/config/config';
import { type K8sObject } from './support/render-kustomize';

/**
 * Deployment artefacts stay in step with the code: the kustomize overlays render, every
 * object validates against the Kubernetes schemas, and the environment each Deployment and
 * each compose service sets is exactly what that app's config schema knows and needs.
 */
export const REPO_ROOT = path.resolve(__dirname, '../../..');
export type Env = Record<string, string>;

export const APPS = {
  gateway: { configFile: 'apps/gateway/src/config/config.ts', load: (env: Env) => loadGatewayConfig(env), port: 3000 },
  'chain-reader': { configFile: 'apps/chain-reader/src/config.ts', load: (env: Env) => loadChainReaderConfig(env), port: 4200 },
  registry: { configFile: 'apps/registry/src/config.ts', load: (env: Env) => loadRegistryConfig(env), port: 3100 },
  auth: { configFile: 'apps/auth/src/config.ts', load: (env: Env) => loadAuthConfig(env), port: 3200 },
} as const;
export type AppName = keyof typeof APPS;

/** The variables an app's zod env schema declares (keys of the `z.object({ ... })` in its config file: a zod chain, a local helper, or a lib's `…Schema()` field). */
export function schemaKeys(app: AppName): Set<string> {
  const source = readFileSync(path.join(REPO_ROOT, APPS[app].configFile), 'utf8');
  return new Set([...source.matchAll(/^ {2}([A-Z][A-Z0-9_]*):\s*(z\b|intFromEnv|csv|optionalText|[a-z]\w*Schema\()/gm)].map((m) => m[1]!));
}

/** Read by the runtime (Node, glibc), not by an app's config: heap sizing for the container's limit. */
const RUNTIME_KEYS: ReadonlySet<string> = new Set(['NODE_OPTIONS', 'MALLOC_ARENA_MAX']);

/** Keys an app reads by pattern rather than by name, and the runtime's own. */
export function knownByPattern(app: AppName, key: string): boolean {
  return RUNTIME_KEYS.has(key) || (app === 'chain-reader' && /^CHAIN_RPC_URLS_[A-Z0-9_]+$/.test(key));
}

export function checkEnv(app: AppName, env: Env, where: string): string[] {
  const problems: string[] = [];
  const keys = schemaKeys(app);
  expect(keys.size).toBeGreaterThan(3);
  for (const key of Object.keys(env)) {
    if (!keys.has(key) && !isTelemetryEnvKey(key) && !knownByPattern(app, key))
      problems.push(`${where}: ${key} is not in ${app}'s config schema`);
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
export function gatewayImages(): Map<string, { bundle: string; fixtures: boolean }> {
  const script = readFileSync(path.join(REPO_ROOT, 'scripts/build-images.sh'), 'utf8');
  const withFixtures = new Set([...script.matchAll(/bundle\.mjs --with-fixtures apps\/gateway \.image\/(\S+)/g)].map((m) => m[1]!));
  return new Map(
    [...script.matchAll(/"(switchboard\/gateway:\S+) gateway (\S+)"/g)].map((m) => [
      m[1]!,
      { bundle: m[2]!, fixtures: withFixtures.has(m[2]!) },
    ]),
  );
}

/** Whether a gateway with this environment serves file tenants whose catalogs come from libs/fixtures (builtin demo/conformance, fixture files). */
export function needsFixtures(env: Env): boolean {
  // Only the catalog source matters here, not the secrets: read it as a development config would.
  const c = loadGatewayConfig({ ...env, SWITCHBOARD_ENV: 'development' });
  const fileSource = c.CATALOG_SOURCES
    ? c.CATALOG_SOURCES.split(',').includes('file')
    : c.REGISTRY_URL === undefined && c.REDIS_URL === undefined;
  // The images' WORKDIR is the repository's layout, so a relative TENANTS_FILE names the repository's file.
  const tenants = fileSource ? readTenantSeed(path.resolve(REPO_ROOT, c.TENANTS_FILE)).filter((t) => t.seed === 'file') : [];
  return tenants.some((t) => (t.catalogs ?? []).some((spec) => 'fixture' in spec || ('builtin' in spec && spec.builtin !== 'chain')));
}

/** `localhost:5001/switchboard/gateway:dev` -> `switchboard/gateway:dev` (the local tag an overlay's image was pushed from). */
export const localTag = (image: string): string => image.replace(/^([^/]*[.:][^/]*|localhost)\//, '');

export function renderWithKubectl(dir: string): K8sObject[] | undefined {
  const probe = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8', timeout: 20_000 });
  if (probe.status !== 0) return undefined;
  const out = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8', timeout: 60_000 });
  if (out.status !== 0) throw new Error(`kubectl kustomize ${dir}: ${out.stderr}`);
  return parseAllDocuments(out.stdout).map((d) => d.toJS() as K8sObject);
}

/** What a secret manager would provide instead of the base Secret's placeholders. */
export const REAL_SECRETS = {
  SECRETS_KEY: randomBytes(32).toString('base64'),
  INTERNAL_TOKEN: randomBytes(32).toString('base64url'),
  AUTH_INTERNAL_TOKEN: '',
  REGISTRY_OPERATOR_KEY: randomBytes(32).toString('base64url'),
  GATEWAY_STATE_KEYS: randomBytes(32).toString('base64'),
};
REAL_SECRETS.AUTH_INTERNAL_TOKEN = REAL_SECRETS.INTERNAL_TOKEN;
// auth's CATALOG_SECRETS_KEY is the same Secret key as SECRETS_KEY (k8s/base/auth.yaml).
export const REAL_SECRETS_BY_ENV: Record<string, string> = { ...REAL_SECRETS, CATALOG_SECRETS_KEY: REAL_SECRETS.SECRETS_KEY };

export const byKey = (objects: K8sObject[]) => new Map(objects.map((o) => [`${o.kind}/${o.metadata.name}`, o]));

/** docker-compose.yml as the compose specs read it: parsed (anchors merged) and as text. */
export function readCompose(): { compose: { services: Record<string, ComposeService> }; composeText: string } {
  const composeText = readFileSync(path.join(REPO_ROOT, 'docker-compose.yml'), 'utf8');
  return { compose: parse(composeText, { merge: true }) as { services: Record<string, ComposeService> }, composeText };
}

/** `${VAR:-default}` resolves to its default (what `docker compose up` uses with nothing set). */
export const resolve = (value: string, where: string): string =>
  String(value).replace(/\$\{([A-Z0-9_]+)(:-([^}]*))?\}/g, (_m, name: string, _d, def: string | undefined) => {
    if (def === undefined) throw new Error(`${where}: \${${name}} has no default`);
    return def;
  });

/** The parts of a compose service these tests read. */
export interface ComposeService {
  environment?: Record<string, string>;
  build?: { dockerfile: string; args?: Record<string, string> };
  image?: string;
  ports?: string[];
  volumes?: string[];
  healthcheck?: unknown;
  restart?: string;
  depends_on?: Record<string, { condition?: string }> | string[];
}

export type Json = Record<string, unknown>;

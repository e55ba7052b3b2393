import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  APPS,
  type AppName,
  REPO_ROOT,
  checkEnv,
  gatewayImages,
  needsFixtures,
  readCompose,
  resolve,
  schemaKeys,
} from './ops-manifests-support';

/** docker-compose.yml and its smoke script stay in step with the apps' config schemas, Dockerfiles and images. */
describe('docker-compose.yml', () => {
  const { compose, composeText } = readCompose();

  it('runs the four apps, Postgres, Redis, the collector, Tempo, Prometheus and Grafana', () => {
    expect(Object.keys(compose.services).sort()).toEqual(
      ['auth', 'chain-reader', 'gateway', 'grafana', 'otel-collector', 'postgres', 'prometheus', 'redis', 'registry', 'tempo'].sort(),
    );
  });

  it('sets, per app service, only variables its config schema knows, and every one it requires', () => {
    const problems = Object.keys(APPS).flatMap((app) => {
      const env = Object.fromEntries(
        Object.entries(compose.services[app]?.environment ?? {}).map(([k, v]) => [k, resolve(v, `${app}.${k}`)]),
      );
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
      const dockerfile = readFileSync(path.join(REPO_ROOT, file!), 'utf8')
        .split('\n')
        .filter((line) => !line.startsWith('#'))
        .join('\n');
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
    expect(Object.fromEntries(images)).toEqual({
      'switchboard/gateway:prod': { bundle: 'gateway', fixtures: false },
      'switchboard/gateway:dev': { bundle: 'gateway-dev', fixtures: true },
    });
    const gateway = compose.services.gateway!;
    const env = Object.fromEntries(Object.entries(gateway.environment ?? {}).map(([k, v]) => [k, resolve(v, `gateway.${k}`)]));
    expect(needsFixtures(env)).toBe(true);
    // `docker compose up --build` and scripts/build-images.sh make the same image under the same tag.
    expect({ image: gateway.image, bundle: gateway.build?.args?.BUNDLE }).toEqual({
      image: 'switchboard/gateway:dev',
      bundle: images.get('switchboard/gateway:dev')!.bundle,
    });
  });

  it('publishes every port on 127.0.0.1 unless SWITCHBOARD_BIND opens it', () => {
    const published = Object.entries(compose.services).flatMap(([name, service]) => (service.ports ?? []).map((port) => ({ name, port })));
    expect(published.length).toBeGreaterThan(0);
    // The host side is a .env variable (its default the container port for the apps); the container side is fixed.
    for (const { name, port } of published)
      expect({ name, port }).toEqual({
        name,
        port: expect.stringMatching(/^\$\{SWITCHBOARD_BIND:-127\.0\.0\.1\}:\$\{[A-Z_]+_HOST_PORT:-\d+\}:\d+$/),
      });
    for (const app of Object.keys(APPS) as AppName[]) {
      const variable = `${app.toUpperCase().replace(/-/g, '_')}_HOST_PORT`;
      expect(compose.services[app]?.ports).toEqual([
        `\${SWITCHBOARD_BIND:-127.0.0.1}:\${${variable}:-${APPS[app].port}}:${APPS[app].port}`,
      ]);
    }
  });

  it('restarts every service unless stopped (a registry that loses a boot race comes back)', () => {
    for (const [name, service] of Object.entries(compose.services))
      expect({ name, restart: service.restart }).toEqual({ name, restart: 'unless-stopped' });
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
      return Object.entries((service.depends_on ?? {}) as Record<string, { condition?: string }>).map(([dep, spec]) => ({
        edge: `${name} -> ${dep}`,
        condition: spec.condition,
      }));
    });
    expect(edges.length).toBeGreaterThan(8);
    for (const { edge, condition } of edges) {
      const dep = edge.split(' -> ')[1]!;
      expect({ edge, condition }).toEqual({ edge, condition: healthy(dep) ? 'service_healthy' : 'service_started' });
    }
    // The apps' datastores are waited on by health, not by start.
    for (const app of ['registry', 'auth'])
      expect(compose.services[app]?.depends_on).toMatchObject({
        postgres: { condition: 'service_healthy' },
        redis: { condition: 'service_healthy' },
      });
    expect(compose.services.gateway?.depends_on).toMatchObject({
      registry: { condition: 'service_healthy' },
      auth: { condition: 'service_healthy' },
    });
  });

  it('runs every app that has a production mode in development mode, explicitly (a development stack with development secrets)', () => {
    const withMode = (Object.keys(APPS) as AppName[]).filter((app) => schemaKeys(app).has('SWITCHBOARD_ENV'));
    expect(withMode).toEqual(expect.arrayContaining(['gateway', 'registry', 'auth']));
    for (const app of withMode)
      expect({ app, mode: compose.services[app]?.environment?.SWITCHBOARD_ENV }).toEqual({ app, mode: 'development' });
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
    if (resolve(env.GF_AUTH_ANONYMOUS_ENABLED ?? 'false', 'grafana') === 'true')
      expect(resolve(env.GF_AUTH_ANONYMOUS_ORG_ROLE ?? 'Viewer', 'grafana')).toBe('Viewer');
    expect(resolve(env.GF_USERS_ALLOW_SIGN_UP ?? 'false', 'grafana')).toBe('false');
  });

  it("declares, in each workspace's package.json, exactly the packages its source imports (the images install only their app's closure)", () => {
    const run = spawnSync(process.execPath, [path.join(REPO_ROOT, 'scripts/workspace-deps.mjs'), 'check'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it('pins every third-party image to an exact release (major.minor[.patch])', () => {
    for (const [name, service] of Object.entries(compose.services))
      if (service.image && !service.build)
        expect({ name, image: service.image }).toEqual({ name, image: expect.stringMatching(/:v?\d+\.\d+(\.\d+)?(-[a-z0-9.]+)?$/) });
  });

  it('passes `docker compose config` (Compose v2, else v1) with .env.example, or says NOT RUN when no compose CLI is installed', () => {
    // `config` parses and interpolates only: it needs the CLI, not a running engine. Booting the
    // file on an engine is scripts/compose-smoke.sh (exit 3 when it cannot run).
    const cli = [['docker', 'compose'], ['docker-compose']].find(
      ([cmd, ...sub]) => spawnSync(cmd!, [...sub, 'version'], { timeout: 20_000 }).status === 0,
    );
    if (!cli) {
      process.stdout.write(
        'docker-compose.yml: `docker compose config` NOT RUN: neither the Compose v2 plugin nor docker-compose is installed\n',
      );
      expect(spawnSync('docker', ['compose', 'version'], { timeout: 20_000 }).status).not.toBe(0);
      return;
    }
    const [cmd, ...sub] = cli;
    const run = spawnSync(cmd!, [...sub, '--env-file', '.env.example', '-f', 'docker-compose.yml', 'config', '--quiet'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect({ cli: cli.join(' '), status: run.status, stderr: run.stderr }).toEqual({ cli: cli.join(' '), status: 0, stderr: '' });
  });
});

describe('scripts/compose-smoke.sh', () => {
  it('says NOT RUN and exits 3 when there is no Docker engine, instead of passing', () => {
    // A docker CLI whose every command fails, as on a machine with the client but no engine.
    const bin = mkdtempSync(path.join(tmpdir(), 'sb-no-engine-'));
    try {
      writeFileSync(path.join(bin, 'docker'), '#!/bin/sh\necho "Cannot connect to the Docker daemon" >&2\nexit 1\n', { mode: 0o755 });
      const run = spawnSync('bash', [path.join(REPO_ROOT, 'scripts/compose-smoke.sh')], {
        cwd: REPO_ROOT,
        encoding: 'utf8',
        timeout: 60_000,
        env: { PATH: `${bin}:${process.env.PATH ?? ''}`, SKIP_BUILD: '1' },
      });
      expect({ status: run.status, stderr: run.stderr.trim() }).toEqual({
        status: 3,
        stderr: expect.stringMatching(/^compose-smoke: NOT RUN: no running Docker engine/),
      });
      expect(run.stdout).not.toMatch(/PASS/);
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });
});

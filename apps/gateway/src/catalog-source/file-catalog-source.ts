import { readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  buildCatalogSnapshot,
  buildTenantDocument,
  snapshotFromBundle,
  toolDefinitionsFromJson,
  type LocalBundle,
  type SnapshotPart,
  type ToolEntry,
} from '@switchboard/catalog';
import { readTenantSeed, TenantSeedError, type TenantSeed, type UpstreamSpec } from '@switchboard/tenant-config';
import type { Logger } from 'pino';
import { ConfigError } from '../config/config';
import { discoverUpstream, type DiscoveredCatalog } from '../upstream/discover-upstream';
import type { CatalogSource, TenantCatalog } from './catalog-source';
import { loadFixtures, type FixturesPackage } from './load-fixtures';

const DISCOVERY_TIMEOUT_MS = 10_000;
const RETRY_MS = [1_000, 2_000, 5_000, 10_000, 30_000];

export interface FileCatalogSourceOptions {
  file: string;
  chainReaderUrl?: string;
  logger: Logger;
  /** Largest discovery response (list page or SSE event) in bytes; default 4 MiB (the gateway passes UPSTREAM_RESPONSE_MAX_BYTES). */
  maxPageBytes?: number;
}

/**
 * Tenant documents from the development seed (`config/tenants.yaml`, read and validated once by
 * libs/tenant-config's `readTenantSeed`; `seed: registry` tenants are left to the registry):
 * settings as the seed gives them, catalogs from built-in bundles and fixture files (both from
 * libs/fixtures, imported only when a tenant names one), and upstream
 * MCP servers discovered at boot with the SDK client (rediscovered in the background while an
 * upstream is unreachable, so one dead upstream never stops the gateway from serving).
 */
export class FileCatalogSource implements CatalogSource {
  private entries: TenantSeed[] = [];
  private readonly bundleList: LocalBundle[] = [];
  private readonly builtins = new Map<string, LocalBundle>();
  private readonly discovered = new Map<string, DiscoveredCatalog>();
  private readonly listeners = new Set<(tenant: TenantCatalog) => void>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  private constructor(private readonly options: FileCatalogSourceOptions) {}

  /** Reads and validates the file (throws ConfigError naming the tenant and field), prepares bundles. */
  static async open(options: FileCatalogSourceOptions): Promise<FileCatalogSource> {
    const source = new FileCatalogSource(options);
    await source.read();
    return source;
  }

  get bundles(): readonly LocalBundle[] {
    return this.bundleList;
  }

  private async read(): Promise<void> {
    const file = path.resolve(this.options.file);
    try {
      this.entries = readTenantSeed(file).filter((t) => t.seed === 'file');
    } catch (err) {
      if (err instanceof TenantSeedError) throw new ConfigError(err.message, { cause: err });
      throw err;
    }
    const seen = new Set<string>();
    for (const tenant of this.entries) {
      for (const spec of tenant.catalogs) {
        if ('builtin' in spec && spec.builtin !== 'chain' && !seen.has(spec.builtin)) {
          seen.add(spec.builtin);
          const bundle = (await this.fixtures(tenant, `builtin: ${spec.builtin}`)).builtinBundle(spec.builtin);
          if (!bundle) throw new ConfigError(`Tenant "${tenant.settings.id}": no builtin bundle named "${spec.builtin}"`);
          this.builtins.set(spec.builtin, bundle);
          this.bundleList.push(bundle);
        }
        if ('builtin' in spec && spec.builtin === 'chain' && !this.options.chainReaderUrl) {
          this.options.logger.warn(
            { tenant: tenant.settings.id },
            'builtin: chain is configured but CHAIN_READER_URL is not set; the chain tools are left out',
          );
        }
        if ('fixture' in spec) {
          const fixturePath = path.resolve(path.dirname(file), spec.fixture);
          const id = `fixture:${fixturePath}`;
          if (seen.has(id)) continue;
          seen.add(id);
          let json: unknown;
          try {
            json = JSON.parse(await readFile(fixturePath, 'utf8'));
          } catch (err) {
            throw new ConfigError(`Tenant "${tenant.settings.id}": cannot load fixture ${fixturePath}: ${(err as Error).message}`, {
              cause: err,
            });
          }
          this.bundleList.push((await this.fixtures(tenant, `fixture: ${spec.fixture}`)).fixtureBundle(id, toolDefinitionsFromJson(json)));
        }
      }
    }
  }

  /** libs/fixtures, for a tenant naming one of its catalogs; a ConfigError naming both when this build lacks it. */
  private async fixtures(tenant: TenantSeed, catalog: string): Promise<FixturesPackage> {
    try {
      return await loadFixtures();
    } catch (err) {
      throw new ConfigError(
        `Tenant "${tenant.settings.id}": catalog "${catalog}" needs the development fixtures: ${(err as Error).message}`,
        { cause: err },
      );
    }
  }

  async load(): Promise<TenantCatalog[]> {
    const upstreams = new Map<string, UpstreamSpec>();
    for (const tenant of this.entries)
      for (const spec of this.upstreamSpecs(tenant)) upstreams.set(upstreamKey(tenant.settings.id, spec), spec);
    await Promise.all(
      [...upstreams.entries()].map(async ([key, spec]) => {
        const ok = await this.discover(key, spec);
        if (!ok) this.scheduleRetry(key, spec, 0);
      }),
    );
    return this.entries.map((t) => this.build(t));
  }

  subscribe(listener: (tenant: TenantCatalog) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private upstreamSpecs(tenant: TenantSeed): UpstreamSpec[] {
    const specs: UpstreamSpec[] = [];
    for (const spec of tenant.catalogs) {
      if ('upstream' in spec) specs.push(spec.upstream);
      if ('builtin' in spec && spec.builtin === 'chain' && this.options.chainReaderUrl) {
        specs.push({ id: 'chain', url: this.options.chainReaderUrl, stateful: false, headers: {} });
      }
    }
    return specs;
  }

  private async discover(key: string, spec: UpstreamSpec): Promise<boolean> {
    try {
      this.discovered.set(key, await discoverUpstream(spec.url, spec.headers, DISCOVERY_TIMEOUT_MS, this.options.maxPageBytes));
      return true;
    } catch (err) {
      this.options.logger.warn(
        { upstream: spec.id, url: spec.url, err: (err as Error).message },
        'upstream discovery failed; serving without it for now',
      );
      return false;
    }
  }

  private scheduleRetry(key: string, spec: UpstreamSpec, attempt: number): void {
    if (this.closed) return;
    const delay = RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)];
    const timer = setTimeout(async () => {
      this.timers.delete(timer);
      if (await this.discover(key, spec)) {
        const tenantId = key.slice(0, key.indexOf('/'));
        const tenant = this.entries.find((t) => t.settings.id === tenantId);
        if (tenant) for (const listener of this.listeners) listener(this.build(tenant));
      } else {
        this.scheduleRetry(key, spec, attempt + 1);
      }
    }, delay);
    timer.unref();
    this.timers.add(timer);
  }

  private build(seed: TenantSeed): TenantCatalog {
    const tenant = seed.settings;
    const parts: SnapshotPart[] = [];
    const add = (snap: SnapshotPart & { tools: readonly ToolEntry[] }, only?: string[]) =>
      parts.push({ ...snap, tools: only ? snap.tools.filter((t) => only.includes(t.definition.name)) : snap.tools });
    let instructions = seed.instructions;
    for (const spec of seed.catalogs) {
      if ('builtin' in spec && spec.builtin !== 'chain') {
        const bundle = this.builtins.get(spec.builtin); // read() loaded every builtin the seed names
        if (!bundle) continue;
        const snap = snapshotFromBundle(tenant.id, bundle);
        add(snap, spec.tools);
        instructions ??= snap.instructions;
      } else if ('fixture' in spec) {
        const id = `fixture:${path.resolve(path.dirname(path.resolve(this.options.file)), spec.fixture)}`;
        const bundle = this.bundleList.find((b) => b.id === id);
        if (bundle) add(snapshotFromBundle(tenant.id, bundle), spec.tools);
      }
    }
    for (const spec of this.upstreamSpecs(seed)) {
      const found = this.discovered.get(upstreamKey(tenant.id, spec));
      if (!found) continue;
      const base = { kind: 'upstream' as const, serverId: spec.id, url: spec.url, headers: spec.headers, stateful: spec.stateful };
      const prefix = spec.prefix ?? '';
      parts.push({
        tools: found.tools.map((def) => ({ definition: { ...def, name: prefix + def.name }, route: { ...base, upstreamName: def.name } })),
        resources: found.resources.map((def) => ({ definition: def, route: { ...base, upstreamName: def.uri } })),
        resourceTemplates: found.resourceTemplates.map((def) => ({ definition: def, route: { ...base, upstreamName: def.uriTemplate } })),
        prompts: found.prompts.map((def) => ({
          definition: { ...def, name: prefix + def.name },
          route: { ...base, upstreamName: def.name },
        })),
      });
    }
    // Two catalogs (e.g. two upstreams) may offer the same name or URI; the catalog refuses
    // duplicates, so keep the first rather than failing the whole tenant at boot.
    const snapshot = buildCatalogSnapshot({ ...tenant, instructions }, parts, {
      onDuplicate: (kind, key) => this.options.logger.warn({ tenant: tenant.id, [kind]: key }, `duplicate ${kind}; keeping the first`),
    });
    return buildTenantDocument(tenant, snapshot);
  }
}

function upstreamKey(tenantId: string, spec: UpstreamSpec): string {
  return `${tenantId}/${spec.id}`;
}

import {
  CompiledCatalog,
  ToolDiscovery,
  surfaceDiscovery,
  type CatalogSnapshot,
  type DiscoverySettings,
  type DiscoveryMode,
} from '@switchboard/catalog';
import { LEGACY_VERSIONS, MODERN_VERSIONS, surfaceProfiles, type ProtocolVersion, type TenantSurfaceRules } from '@switchboard/protocol';
import { ApiError } from '../http/api-error';

const VERSIONS: readonly string[] = [...LEGACY_VERSIONS, ...MODERN_VERSIONS];

/** One surface's discovery as its clients see it: the setting that applies, whether it is on, and the first list's tool names. */
export interface SurfaceDiscoveryPreview {
  mode: DiscoveryMode;
  threshold: number;
  pinned: readonly string[];
  /** Tools the surface publishes (the full list's length). */
  tools: number;
  /** Whether the surface is served in discovery mode. */
  active: boolean;
  /** The first tools/list's names: the meta-tools and pinned tools when active, else the full list. */
  listed: string[];
}

/**
 * Per surface, what discovery does with the given snapshot — compiled with the same
 * CompiledCatalog and ToolDiscovery the gateway runs, so the preview cannot drift from it.
 */
export function discoveryPreview(
  snapshot: CatalogSnapshot,
  rules: TenantSurfaceRules,
  settings: DiscoverySettings | undefined,
  version: string,
): Record<string, SurfaceDiscoveryPreview> {
  if (!VERSIONS.includes(version))
    throw new ApiError(400, 'VALIDATION', `query.version: unknown protocol version (known: ${VERSIONS.join(', ')})`, 'query.version');
  const surfaces = surfaceProfiles(rules);
  const catalog = CompiledCatalog.build(snapshot, { surfaces, pageSize: 100_000 });
  const discovery = ToolDiscovery.build(catalog, settings, surfaces);
  const out: Record<string, SurfaceDiscoveryPreview> = {};
  for (const id of Object.keys(surfaces)) {
    const v = version as ProtocolVersion;
    const full = (JSON.parse(catalog.list('tools/list', id, v).toString('utf8')) as { tools: { name: string }[] }).tools;
    const page = discovery?.listPage(id, v);
    const listed = page ? (JSON.parse(page.body.toString('utf8')) as { tools: { name: string }[] }).tools : full;
    const setting = surfaceDiscovery(settings, id);
    out[id] = { ...setting, tools: full.length, active: page !== undefined, listed: listed.map((t) => t.name) };
  }
  return out;
}

/**
 * Surface ids a setting names must exist for the tenant (built-ins or its own), and pinned tools
 * are checked against the current catalog: unknown names are reported, not refused (a tool may
 * be published later).
 */
export function checkDiscoverySettings(
  settings: DiscoverySettings,
  rules: TenantSurfaceRules,
  snapshot: CatalogSnapshot,
): { unknownPinned: string[] } {
  const surfaces = surfaceProfiles(rules);
  for (const id of Object.keys(settings.surfaces)) {
    if (!Object.hasOwn(surfaces, id)) {
      throw new ApiError(
        400,
        'VALIDATION',
        `body.surfaces.${id}: surface "${id}" is not defined (known: ${Object.keys(surfaces).join(', ')})`,
        `body.surfaces.${id}`,
      );
    }
  }
  const names = new Set(snapshot.tools.filter((t) => t.unlisted !== true).map((t) => t.definition.name));
  const pinned = [...settings.pinned, ...Object.values(settings.surfaces).flatMap((s) => s.pinned ?? [])];
  return { unknownPinned: [...new Set(pinned.filter((n) => !names.has(n)))] };
}

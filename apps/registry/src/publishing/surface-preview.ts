import { CompiledCatalog, type CatalogSnapshot } from '@switchboard/catalog';
import { LEGACY_VERSIONS, MODERN_VERSIONS, surfaceProfiles, type ProtocolVersion, type TenantSurfaceRules } from '@switchboard/protocol';
import { ApiError } from '../http/api-error';

const VERSIONS: readonly string[] = [...LEGACY_VERSIONS, ...MODERN_VERSIONS];

/** One surface's view: its profile and exactly the `tools/list` / `prompts/list` results it receives. */
export interface SurfacePreview {
  profile: unknown;
  tools: unknown[];
  prompts: unknown[];
}

/**
 * Compiles a snapshot with the same CompiledCatalog the gateway runs and returns, per surface
 * (one when `surface` is given), the lists a client on that surface receives at `version`.
 * Unknown versions and surfaces are 400 / 404 naming the query field.
 */
export function surfacePreview(
  snapshot: CatalogSnapshot,
  rules: TenantSurfaceRules,
  version: string,
  surface?: string,
): Record<string, SurfacePreview> {
  if (!VERSIONS.includes(version))
    throw new ApiError(400, 'VALIDATION', `query.version: unknown protocol version (known: ${VERSIONS.join(', ')})`, 'query.version');
  const surfaces = surfaceProfiles(rules);
  if (surface !== undefined && !Object.hasOwn(surfaces, surface)) {
    throw new ApiError(
      404,
      'NOT_FOUND',
      `query.surface: surface "${surface}" is not defined (known: ${Object.keys(surfaces).join(', ')})`,
      'query.surface',
    );
  }
  const catalog = CompiledCatalog.build(snapshot, { surfaces, pageSize: 10_000 });
  const out: Record<string, SurfacePreview> = {};
  for (const id of surface ? [surface] : Object.keys(surfaces)) {
    const tools = JSON.parse(catalog.list('tools/list', id, version as ProtocolVersion).toString('utf8')) as { tools: unknown[] };
    const prompts = JSON.parse(catalog.list('prompts/list', id, version as ProtocolVersion).toString('utf8')) as { prompts: unknown[] };
    out[id] = { profile: surfaces[id], tools: tools.tools, prompts: prompts.prompts };
  }
  return out;
}

/** The "dynamic resources" each server publishes (every surface reads them alike), for the preview. */
export function dynamicResourcesPreview(snapshot: CatalogSnapshot): { serverId: string; uriPrefix: string }[] {
  return (snapshot.dynamicResources ?? []).map((e) => ({
    serverId: e.route.kind === 'upstream' ? e.route.serverId : e.route.handler,
    uriPrefix: e.uriPrefix,
  }));
}

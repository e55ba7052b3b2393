import { CompiledCatalog, type CatalogSnapshot } from '@switchboard/catalog';
import {
  appsSurfaceId,
  isUiUri,
  LEGACY_VERSIONS,
  MODERN_VERSIONS,
  surfaceProfiles,
  withAppsVariants,
  type ProtocolVersion,
  type TenantSurfaceRules,
} from '@switchboard/protocol';
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
  const profiles = surfaceProfiles(rules);
  // A client that declares MCP Apps is served its surface's `+apps` variant: previewed (as its own
  // column) when the tenant publishes an app and the variant differs, or when asked for by id.
  const surfaces = withAppsVariants(profiles);
  const shown = Object.keys(profiles);
  if (hasApps(snapshot)) for (const id of shown.slice()) if (surfaces[appsSurfaceId(id)] !== profiles[id]) shown.push(appsSurfaceId(id));
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
  for (const id of surface ? [surface] : shown) {
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

/** Whether a snapshot publishes an MCP App: a `ui://` resource, or a tool whose `_meta.ui` names one. */
function hasApps(snapshot: CatalogSnapshot): boolean {
  return (
    snapshot.resources.some((r) => isUiUri(r.definition.uri)) ||
    snapshot.tools.some((t) => {
      const uri = (t.definition._meta?.ui as { resourceUri?: unknown } | undefined)?.resourceUri;
      return typeof uri === 'string' && isUiUri(uri);
    })
  );
}

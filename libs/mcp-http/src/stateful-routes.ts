import type { CompiledCatalog, Route } from '@switchboard/catalog';

type UpstreamRoute = Extract<Route, { kind: 'upstream' }>;

/** Stateful upstream servers a `logging/setLevel` is forwarded to, at most this many (a tenant's server count is its own). */
export const MAX_LOG_LEVEL_SERVERS = 32;
const statefulRoutesOf = new WeakMap<CompiledCatalog, UpstreamRoute[]>();

/** One route per stateful upstream server of a catalog (its first entry's, at most {@link MAX_LOG_LEVEL_SERVERS}), computed once per compiled catalog. */
export function statefulRoutes(catalog: CompiledCatalog): UpstreamRoute[] {
  let routes = statefulRoutesOf.get(catalog);
  if (!routes) {
    const byServer = new Map<string, UpstreamRoute>();
    const s = catalog.snapshot;
    for (const e of [...s.tools, ...s.resources, ...s.resourceTemplates, ...s.prompts, ...(s.dynamicResources ?? [])]) {
      if (byServer.size >= MAX_LOG_LEVEL_SERVERS) break;
      if (e.route.kind === 'upstream' && e.route.stateful === true && !byServer.has(e.route.serverId))
        byServer.set(e.route.serverId, e.route);
    }
    statefulRoutesOf.set(catalog, (routes = [...byServer.values()]));
  }
  return routes;
}

import { createHash } from 'node:crypto';
import type { ConnectionPlan, UpstreamRoute } from './upstream-types';

/** A route's keys in one tenant: its guard (breaker, slots) and the base of its connection key. */
export interface RouteKeys {
  readonly tenantId: string;
  readonly serverId: string;
  /** The guard key: tenant, server and URL (two tenants registering the same URL share nothing). */
  readonly upstream: string;
  /** The guard key plus a digest of the route's headers (a rotated credential opens a fresh connection). */
  readonly connection: string;
  /** The plan of a call that relays nothing to its client: the route's shared connection. */
  readonly plan: ConnectionPlan;
}

const NO_RELAY: readonly never[] = Object.freeze([]);

/**
 * Built once per route object (a route is compiled once per catalog; a per-user credential makes
 * a new one), so every Map lookup on the hot path hashes a string it has seen before.
 */
const routeKeys = new WeakMap<UpstreamRoute, RouteKeys>();

export function keysOf(tenantId: string, route: UpstreamRoute): RouteKeys {
  let keys = routeKeys.get(route);
  if (keys === undefined || keys.tenantId !== tenantId) {
    const upstream = `${tenantId} ${route.serverId} ${route.url}`;
    const connection = `${upstream} ${headerKey(route.headers)}`;
    keys = {
      tenantId,
      serverId: route.serverId,
      upstream,
      connection,
      plan: { key: connection, relay: NO_RELAY, elicitation: undefined, owner: undefined, inbox: false },
    };
    routeKeys.set(route, keys);
  }
  return keys;
}

/** Per route headers object (a route is compiled once per catalog): the digest is not recomputed per call. */
const headerKeys = new WeakMap<Record<string, string>, string>();

function headerKey(headers: Record<string, string> | undefined): string {
  if (!headers) return '';
  let key = headerKeys.get(headers);
  if (key === undefined) {
    key =
      Object.keys(headers).length === 0
        ? ''
        : createHash('sha256')
            .update(JSON.stringify(Object.entries(headers).sort()))
            .digest('base64url')
            .slice(0, 16);
    headerKeys.set(headers, key);
  }
  return key;
}

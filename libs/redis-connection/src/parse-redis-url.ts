/** One address of a Sentinel or a Cluster seed node. */
export interface RedisHostPort {
  host: string;
  port: number;
}

/** What a Redis URL names: one server, a Sentinel-managed master, or a Redis Cluster. */
export type RedisTarget =
  | { kind: 'single'; url: string }
  | {
      kind: 'sentinel';
      sentinels: RedisHostPort[];
      name: string;
      db: number;
      username?: string;
      password?: string;
      sentinelUsername?: string;
      sentinelPassword?: string;
      tls: boolean;
    }
  | { kind: 'cluster'; nodes: RedisHostPort[]; username?: string; password?: string; tls: boolean };

const MAX_HOSTS = 32;

/** The schemes `parseRedisUrl` accepts (REDIS_URL and its companions). */
export const REDIS_URL_SCHEMES = ['redis', 'rediss', 'redis-sentinel', 'rediss-sentinel', 'redis-cluster', 'rediss-cluster'] as const;

/**
 * Parses a Redis URL. `redis://` / `rediss://` name one server (handed to ioredis as is);
 * `redis-sentinel://[user:pass@]h1:26379,h2:26379/<master>[?db=N&sentinelPassword=…&sentinelUsername=…]`
 * a master found through Sentinel (Lettuce's `…/<db>#<master>` form is accepted too);
 * `redis-cluster://[user:pass@]h1:6379,h2:6379` a Redis Cluster from seed nodes. The `rediss-`
 * variants use TLS. Throws an Error whose message says what is wrong (config schemas show it).
 */
export function parseRedisUrl(url: string): RedisTarget {
  const m = /^([a-z-]+):\/\/(.*)$/s.exec(url);
  if (!m) throw new Error('must be a redis://, rediss://, redis-sentinel:// or redis-cluster:// URL');
  const scheme = m[1] ?? '';
  const rest = m[2] ?? '';
  if (!(REDIS_URL_SCHEMES as readonly string[]).includes(scheme))
    throw new Error(`unknown scheme "${scheme}:" (use one of ${REDIS_URL_SCHEMES.map((s) => `${s}://`).join(', ')})`);
  if (scheme === 'redis' || scheme === 'rediss') {
    try {
      new URL(url);
    } catch {
      throw new Error('is not a valid redis:// URL');
    }
    return { kind: 'single', url };
  }
  const tls = scheme.startsWith('rediss');
  // [userinfo@]hosts[/path][?query][#fragment]; the host list has commas, so URL() cannot parse it.
  const hashAt = rest.indexOf('#');
  const fragment = hashAt >= 0 ? decodeURIComponent(rest.slice(hashAt + 1)) : undefined;
  const beforeHash = hashAt >= 0 ? rest.slice(0, hashAt) : rest;
  const qAt = beforeHash.indexOf('?');
  const query = new URLSearchParams(qAt >= 0 ? beforeHash.slice(qAt + 1) : '');
  const beforeQuery = qAt >= 0 ? beforeHash.slice(0, qAt) : beforeHash;
  const at = beforeQuery.lastIndexOf('@');
  const userinfo = at >= 0 ? beforeQuery.slice(0, at) : '';
  const afterUser = at >= 0 ? beforeQuery.slice(at + 1) : beforeQuery;
  const slash = afterUser.indexOf('/');
  const hostList = slash >= 0 ? afterUser.slice(0, slash) : afterUser;
  const path = slash >= 0 ? decodeURIComponent(afterUser.slice(slash + 1)) : '';
  const colon = userinfo.indexOf(':');
  const username = userinfo ? decodeURIComponent(colon >= 0 ? userinfo.slice(0, colon) : userinfo) || undefined : undefined;
  const password = userinfo && colon >= 0 ? decodeURIComponent(userinfo.slice(colon + 1)) || undefined : undefined;
  const defaultPort = scheme.endsWith('sentinel') ? 26379 : 6379;
  const hosts = parseHosts(hostList, defaultPort);
  const auth = { ...(username ? { username } : {}), ...(password ? { password } : {}) };
  if (scheme.endsWith('cluster')) {
    if (path) throw new Error('redis-cluster:// takes no path (a Cluster has database 0 only)');
    return { kind: 'cluster', nodes: hosts, ...auth, tls };
  }
  // Sentinel: `/<master>` or Lettuce's `/<db>#<master>`.
  let name = fragment ?? path;
  let db = Number(query.get('db') ?? '0');
  if (fragment !== undefined && path) db = Number(path);
  if (fragment === undefined && /^\d+$/.test(path)) name = '';
  if (!name || !/^[A-Za-z0-9._-]{1,128}$/.test(name))
    throw new Error(
      'redis-sentinel:// needs the master name as its path, e.g. redis-sentinel://sentinel-0:26379,sentinel-1:26379/mymaster',
    );
  if (!Number.isInteger(db) || db < 0 || db > 15) throw new Error('redis-sentinel:// db must be an integer 0–15');
  const sentinelUsername = query.get('sentinelUsername') ?? undefined;
  const sentinelPassword = query.get('sentinelPassword') ?? undefined;
  return {
    kind: 'sentinel',
    sentinels: hosts,
    name,
    db,
    ...auth,
    ...(sentinelUsername ? { sentinelUsername } : {}),
    ...(sentinelPassword ? { sentinelPassword } : {}),
    tls,
  };
}

function parseHosts(list: string, defaultPort: number): RedisHostPort[] {
  const parts = list.split(',').filter((p) => p.length > 0);
  if (parts.length === 0) throw new Error('names no host (list them comma-separated: host:port,host:port)');
  if (parts.length > MAX_HOSTS) throw new Error(`names more than ${MAX_HOSTS} hosts`);
  return parts.map((p) => {
    const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+)(?::(\d{1,5}))?$/.exec(p);
    if (!m) throw new Error(`host "${p.slice(0, 80)}" is not host or host:port`);
    const port = m[2] ? Number(m[2]) : defaultPort;
    if (port < 1 || port > 65_535) throw new Error(`host "${p}" has port out of range`);
    return { host: (m[1] ?? '').replace(/^\[|\]$/g, ''), port };
  });
}

// A container network on loopback, for the boot tests (apps/gateway/e2e/boot-*.spec.ts).
//
// Every service of docker-compose.yml / the k8s dev overlay runs as a plain local process with
// exactly the deployment's environment, so `http://registry:3100`, `redis://redis:6379` and
// `postgres:5432` must reach the right process, and fixed ports (3000, 3100, 5432, …) must not
// be bound on a shared machine. Loaded with `node --import <this file>` (Node strips the types),
// it reads SB_LOOPBACK (a LoopbackMap as JSON) and patches, in this process only:
//   - dns.lookup / dns.promises.lookup: the deployment's host names resolve to 127.0.0.1
//     (so SSRF guards see a private address, as they would see a pod or container IP);
//   - net.Socket#connect: `host:port` pairs of the map go to the local port standing in for it;
//     with `strict`, any other loopback port is refused (inside a container, 127.0.0.1:3200 is
//     not the auth service: an unset AUTH_INTERNAL_URL must fail here as it fails there),
//     except the ports this process itself listens on;
//   - net.Server#listen: a fixed port of the map is replaced by its stand-in.
// The tests install the same patch in the jest process for the client side (installLoopback).
// It only uses node: built-ins and erasable TypeScript, so Node runs it without a build step.
import dns from 'node:dns';
import net from 'node:net';

/** How one process sees the network. */
export interface LoopbackMap {
  /** Host names resolved to 127.0.0.1: exact names, or `.suffix` for every name under it. */
  names: string[];
  /** `host:port` → local port. */
  connect: Record<string, number>;
  /** Port a server asks for → port it gets. */
  listen: Record<string, number>;
  /** Refuse loopback ports that are neither mapped nor this process's own. */
  strict?: boolean;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);
/** A port nothing listens on: connecting there is refused at once. */
const REFUSED_PORT = 1;

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/** Patches this process's resolver and sockets; returns the undo. */
export function installLoopback(map: LoopbackMap): () => void {
  /** Ports this process listens on: the one asked for → the one bound (inside a container, 127.0.0.1 is itself only). */
  const own = new Map<number, number>();
  const isName = (host: string): boolean => {
    const h = host.toLowerCase();
    return map.names.some((n) => (n.startsWith('.') ? h.endsWith(n) : h === n));
  };
  const rewrite = (host: string | undefined, port: number): { host: string; port: number } | undefined => {
    const h = (host ?? 'localhost').toLowerCase();
    const mapped = map.connect[`${h}:${port}`] ?? (LOOPBACK.has(h) ? map.connect[`localhost:${port}`] : undefined);
    if (mapped !== undefined) return { host: '127.0.0.1', port: mapped };
    const self = LOOPBACK.has(h) ? own.get(port) : undefined;
    if (self !== undefined) return { host: '127.0.0.1', port: self };
    if (map.strict && (LOOPBACK.has(h) || isName(h))) return { host: '127.0.0.1', port: REFUSED_PORT };
    if (isName(h)) return { host: '127.0.0.1', port };
    return undefined;
  };

  const originalConnect = net.Socket.prototype.connect;
  const originalListen = net.Server.prototype.listen;
  const originalLookup = dns.lookup;
  const originalPromisesLookup = dns.promises.lookup;

  const patchedConnect = function (this: net.Socket, ...args: unknown[]): net.Socket {
    const first = args[0];
    // net.connect() hands over [options, callback] already normalised; socket.connect(port, host) and (options) come raw.
    const options = (Array.isArray(first) ? first[0] : first) as
      { host?: string; port?: number | string; path?: string | null } | number | string;
    if (typeof options === 'object' && options !== null && options.path == null && options.port != null) {
      const to = rewrite(options.host, Number(options.port));
      if (to) Object.assign(options, to);
    } else if (typeof options === 'number' || (typeof options === 'string' && /^\d+$/.test(options))) {
      const to = rewrite(typeof args[1] === 'string' ? args[1] : undefined, Number(options));
      if (to) {
        args[0] = to.port;
        args[1] = to.host;
      }
    }
    return (originalConnect as (...a: unknown[]) => net.Socket).apply(this, args);
  };
  const patchedListen = function (this: net.Server, ...args: unknown[]): net.Server {
    const first = args[0];
    if (typeof first === 'number' && map.listen[String(first)] !== undefined) args[0] = map.listen[String(first)];
    else if (typeof first === 'object' && first !== null && 'port' in first) {
      const o = first as { port?: number | string };
      const to = map.listen[String(o.port)];
      if (to !== undefined) args[0] = { ...o, port: to };
    }
    this.once('listening', () => {
      const a = this.address();
      if (a && typeof a === 'object') {
        own.set(a.port, a.port);
        const asked = typeof first === 'number' ? first : Number((first as { port?: number } | undefined)?.port ?? 0);
        if (asked) own.set(asked, a.port);
      }
    });
    return (originalListen as (...a: unknown[]) => net.Server).apply(this, args);
  };
  const patchedLookup = function (hostname: string, options: unknown, callback?: unknown): void {
    const cb = (typeof options === 'function' ? options : callback) as LookupCallback;
    if (!isName(hostname)) {
      (originalLookup as (...a: unknown[]) => void)(hostname, ...(typeof options === 'function' ? [] : [options]), cb);
      return;
    }
    const all = typeof options === 'object' && options !== null && (options as { all?: boolean }).all === true;
    process.nextTick(() => (all ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4)));
  };
  const patchedPromisesLookup = async (hostname: string, options?: unknown): Promise<unknown> => {
    if (!isName(hostname)) return (originalPromisesLookup as (...a: unknown[]) => Promise<unknown>)(hostname, options);
    const all = typeof options === 'object' && options !== null && (options as { all?: boolean }).all === true;
    return all ? [{ address: '127.0.0.1', family: 4 }] : { address: '127.0.0.1', family: 4 };
  };

  net.Socket.prototype.connect = patchedConnect as typeof originalConnect;
  net.Server.prototype.listen = patchedListen as typeof originalListen;
  (dns as { lookup: unknown }).lookup = patchedLookup;
  (dns.promises as { lookup: unknown }).lookup = patchedPromisesLookup;
  return () => {
    net.Socket.prototype.connect = originalConnect;
    net.Server.prototype.listen = originalListen;
    (dns as { lookup: unknown }).lookup = originalLookup;
    (dns.promises as { lookup: unknown }).lookup = originalPromisesLookup;
  };
}

if (process.env.SB_LOOPBACK) installLoopback(JSON.parse(process.env.SB_LOOPBACK) as LoopbackMap);

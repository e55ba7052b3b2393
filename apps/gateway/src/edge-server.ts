import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import proxyAddr from '@fastify/proxy-addr';
import { parseTrustProxy } from '@switchboard/limits';
import type { BarePost } from '@switchboard/mcp-http';
import type { GatewayConfig } from './config/config';

/** One matched MCP endpoint path: its route template and params, as Fastify's router would give them. */
export interface EdgeRoute {
  route: string;
  params: Record<string, string>;
}

const TENANT_PATH = /^\/t\/([^/?#]+)\/mcp(?:\?|$)/;
const DOMAIN_PATH = /^\/mcp(?:\?|$)/;
const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;

/**
 * The MCP endpoint paths the edge serves: `/t/<tenant>/mcp` always, the bare `/mcp` on a gateway
 * domain (query string allowed). `route` resolves a URL the way the edge's router would; it
 * leaves percent-encoded tenants to that router (undefined), so both decode them the same way.
 */
export function edgePaths(config: GatewayConfig): { routes: string[]; matches(url: string | undefined): boolean; route(url: string): EdgeRoute | undefined } {
  const routes = ['/t/:tenant/mcp'];
  if (config.GATEWAY_DOMAIN) routes.push('/mcp');
  const domain = Boolean(config.GATEWAY_DOMAIN);
  const route = (url: string): EdgeRoute | undefined => {
    const m = TENANT_PATH.exec(url);
    if (m) return m[1]!.includes('%') ? undefined : { route: '/t/:tenant/mcp', params: { tenant: m[1]! } };
    return domain && DOMAIN_PATH.test(url) ? { route: '/mcp', params: NO_PARAMS } : undefined;
  };
  return { routes, matches: (url) => url !== undefined && (TENANT_PATH.test(url) || (domain && DOMAIN_PATH.test(url))), route };
}

/** The client address after the trusted proxies, by the same rule as the Fastify instances' `trustProxy`. */
export function clientAddress(config: GatewayConfig): (raw: IncomingMessage) => string {
  const trust = parseTrustProxy(config.GATEWAY_TRUST_PROXY);
  if (trust === false) return (raw) => raw.socket.remoteAddress ?? '';
  const trusted = typeof trust === 'number' ? (_address: string, hop: number) => hop < trust : trust;
  return (raw) => {
    const chain = proxyAddr.all(raw, trusted);
    return chain[chain.length - 1] ?? '';
  };
}

/** Methods the MCP routes answer (HEAD is Fastify's automatic twin of GET); any other goes to Nest as before (its 404). */
const EDGE_METHODS: ReadonlySet<string> = new Set(['POST', 'GET', 'DELETE', 'HEAD']);

/**
 * The bare Fastify instance the MCP routes live on. Nest's instance runs, for every request, its
 * adapter's four onRequest hooks and one onResponse hook, @fastify/middie, and the hook runner
 * around them — about a tenth of a tools/list's CPU. The MCP path needs none of that (no Nest
 * middleware, guards or controllers), so it is routed before Nest sees the request. Same logger,
 * trusted proxies and body limit as the Nest instance.
 */
export function createEdgeInstance(config: GatewayConfig, logger: Logger): FastifyInstance {
  return Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: (l: FastifyBaseLogger) => l,
    bodyLimit: config.GATEWAY_BODY_LIMIT,
    trustProxy: parseTrustProxy(config.GATEWAY_TRUST_PROXY),
  }) as unknown as FastifyInstance;
}

/**
 * Puts `edge` in front of the HTTP server's request listeners (Nest's Fastify): MCP endpoint
 * POSTs go to `post` (the route steps straight on node:http), the endpoint's other methods to
 * the edge's router, everything else to the listeners as before. Call once, after both
 * instances are ready and before anything else wraps the listeners (GracefulShutdown).
 */
export function mountEdge(server: Server, edge: FastifyInstance, paths: ReturnType<typeof edgePaths>, post: BarePost): void {
  const others = server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
  server.removeAllListeners('request');
  const route = edge.routing;
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const method = req.method ?? '';
    if (method === 'POST') {
      const matched = paths.route(req.url ?? '');
      if (matched) {
        post.serve(req, res, matched.params, matched.route);
        return;
      }
    }
    if (EDGE_METHODS.has(method) && paths.matches(req.url)) {
      route(req, res);
      return;
    }
    for (const listener of others) listener.call(server, req, res);
  });
}

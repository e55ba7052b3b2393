import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { parseTrustProxy } from '@switchboard/limits';
import type { GatewayConfig } from './config/config';

/** The MCP endpoint paths the edge serves: `/t/<tenant>/mcp` always, the bare `/mcp` on a gateway domain (query string allowed). */
export function edgePaths(config: GatewayConfig): { routes: string[]; matches(url: string | undefined): boolean } {
  const routes = ['/t/:tenant/mcp'];
  if (config.GATEWAY_DOMAIN) routes.push('/mcp');
  const pattern = config.GATEWAY_DOMAIN ? /^\/(?:t\/[^/?#]+\/)?mcp(?:\?|$)/ : /^\/t\/[^/?#]+\/mcp(?:\?|$)/;
  return { routes, matches: (url) => url !== undefined && pattern.test(url) };
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
 * requests go to the edge's router, everything else to the listeners as before. Call once,
 * after both instances are ready and before anything else wraps the listeners (GracefulShutdown).
 */
export function mountEdge(server: Server, edge: FastifyInstance, matches: (url: string | undefined) => boolean): void {
  const others = server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
  server.removeAllListeners('request');
  const route = edge.routing;
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (EDGE_METHODS.has(req.method ?? '') && matches(req.url)) {
      route(req, res);
      return;
    }
    for (const listener of others) listener.call(server, req, res);
  });
}

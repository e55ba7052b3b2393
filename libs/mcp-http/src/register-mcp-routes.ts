import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { McpEndpoint } from './mcp-endpoint';
import type { McpHttpOptions } from './mcp-http-options';

export { BATCH_DEFAULTS } from './mcp-edge';

type RouteParams = { tenant?: string } | undefined;

/**
 * Mounts an {@link McpEndpoint} on a Fastify host's routes at `paths` (Fastify path syntax,
 * e.g. `/mcp`), for apps that keep one Fastify instance. Fastify only routes: the body is left
 * unread and the reply hijacked, so the endpoint's own steps (and body bound) serve it exactly
 * as they do on a bare node:http server.
 */
export function registerMcpRoutes(app: FastifyInstance, paths: string[], options: McpHttpOptions): McpEndpoint {
  const endpoint = new McpEndpoint(options);
  const handler = (req: FastifyRequest, reply: FastifyReply): void => {
    reply.hijack();
    endpoint.handle(req.raw, reply.raw, (req.params as RouteParams)?.tenant, req.routeOptions.url ?? paths[0]!);
  };
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    // The stream stays unread for the endpoint, which bounds and decodes the body itself.
    scope.addContentTypeParser('*', (_req: FastifyRequest, _payload: unknown, done: (err: null, body?: undefined) => void) => done(null));
    for (const path of paths) {
      scope.post(path, handler);
      scope.get(path, handler);
      scope.delete(path, handler);
    }
  });
  return endpoint;
}

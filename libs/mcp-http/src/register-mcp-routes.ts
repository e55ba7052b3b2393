import type { FastifyInstance } from 'fastify';
import type { McpHttpOptions } from './mcp-target';

/**
 * Registers POST / GET / DELETE MCP endpoint routes on `paths` (Fastify path syntax, e.g.
 * `/t/:tenant/mcp`, `/mcp`), serving both protocol eras on each URL.
 */
export function registerMcpRoutes(app: FastifyInstance, paths: string[], options: McpHttpOptions): void {
  void app; void paths; void options;
  throw new Error('not implemented');
}

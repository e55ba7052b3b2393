import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
import { parseTrustProxy } from '@switchboard/limits';
import type { GracefulShutdown, McpEndpoint } from '@switchboard/mcp-http';
import type { GatewayConfig } from './config/config';

/** The Fastify options the server factory reads (Fastify fills in their defaults before calling it). */
interface ServerOptions {
  http?: object | null;
  keepAliveTimeout?: number;
  requestTimeout?: number;
  connectionTimeout?: number;
  maxRequestsPerSocket?: number;
}

/**
 * The gateway's one HTTP server. Its request listener asks the MCP endpoint first and hands
 * whatever it declines (health, metrics, well-known, OAuth metadata) to Nest's Fastify, which
 * builds no server of its own: Fastify's `serverFactory` option gives it this one. So MCP
 * traffic never meets Nest's hooks, and no listener is ever removed or re-added. Once `main`
 * attached the graceful shutdown, it admits (counts, or while draining refuses) every request first.
 */
export class FrontDoor {
  private endpoint: McpEndpoint | undefined;
  private shutdown: GracefulShutdown | undefined;
  private nest: RequestListener = notReady;

  /** Fastify's `serverFactory`: keeps Fastify's handler and returns the one server. */
  readonly serverFactory = (handler: RequestListener, options: ServerOptions): Server => {
    this.nest = handler;
    const server = createServer(options.http ?? {}, (req: IncomingMessage, res: ServerResponse) => {
      if (this.shutdown !== undefined && !this.shutdown.admit(req, res)) return;
      if (this.endpoint?.serve(req, res)) return;
      this.nest(req, res);
    });
    // What Fastify sets on a server it creates itself.
    if (options.keepAliveTimeout) server.keepAliveTimeout = options.keepAliveTimeout;
    if (options.requestTimeout) server.requestTimeout = options.requestTimeout;
    if (options.connectionTimeout) server.setTimeout(options.connectionTimeout);
    if (options.maxRequestsPerSocket) server.maxRequestsPerSocket = options.maxRequestsPerSocket;
    return server;
  };

  /** MCP requests reach `endpoint` from now on (until then they are Nest's 404). */
  open(endpoint: McpEndpoint): void {
    this.endpoint = endpoint;
  }

  /** Every request is admitted by `shutdown` from now on (main.ts, once the server exists). */
  drainWith(shutdown: GracefulShutdown): void {
    this.shutdown = shutdown;
  }
}

function notReady(_req: IncomingMessage, res: ServerResponse): void {
  res.statusCode = 503;
  res.end();
}

/** The client address after the trusted proxies, by the same rule as Fastify's `trustProxy`. */
export function clientAddress(config: GatewayConfig): (raw: IncomingMessage) => string {
  const trust = parseTrustProxy(config.GATEWAY_TRUST_PROXY);
  if (trust === false) return (raw) => raw.socket.remoteAddress ?? '';
  const trusted = typeof trust === 'number' ? (_address: string, hop: number) => hop < trust : trust;
  return (raw) => {
    const chain = proxyAddr.all(raw, trusted);
    return chain[chain.length - 1] ?? '';
  };
}

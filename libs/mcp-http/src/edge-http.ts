import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';

/** The logger the route steps write to (pino's / Fastify's shape). */
export interface EdgeLogger {
  error(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
}

/**
 * What the MCP route steps read of a request. A Fastify request has it (the routes registered
 * by `registerMcpRoutes`), and so has the bare POST path's own (`BarePost`), which serves the hot
 * path without Fastify's per-request machinery.
 */
export interface EdgeRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly params: unknown;
  /** The raw body (a Buffer) once read. */
  readonly body: unknown;
  /** The client address after the trusted proxies. */
  readonly ip: string;
  readonly raw: IncomingMessage;
  readonly log: EdgeLogger;
  /** The route template (`/t/:tenant/mcp`). */
  readonly routeOptions: { readonly url?: string };
}

/** What the route steps do to a reply (Fastify's reply, or the bare POST path's). */
export interface EdgeReply {
  readonly raw: ServerResponse;
  readonly statusCode: number;
  /** ms since the request was routed. */
  readonly elapsedTime: number;
  readonly log: EdgeLogger;
  code(status: number): EdgeReply;
  header(name: string, value: string | number | string[]): EdgeReply;
  headers(values: Record<string, string | number | string[]>): EdgeReply;
  /** Sends the status, the headers set so far and `payload` (a string or bytes; nothing for an empty body). */
  send(payload?: string | Buffer): EdgeReply;
  /** The step writes to `raw` itself from now on. */
  hijack(): EdgeReply;
}

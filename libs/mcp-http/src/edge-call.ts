import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AuthGranted } from './auth-outcome';
import type { McpEdge } from './mcp-edge';
import type { McpTarget } from './mcp-target';

/** The logger the route steps write to (pino's shape). */
export interface EdgeLogger {
  error(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
}

const EMPTY = Buffer.alloc(0);

/**
 * One HTTP request to the MCP endpoint and its answer, carried through every step: what was
 * asked (method, headers, body, tenant), what the steps learned (target, caller), and how the
 * answer is written. One object per request so the steps take one argument, not six.
 */
export class EdgeCall {
  /** The raw body, once read (POST only). */
  body: Buffer = EMPTY;
  /** The tenant's endpoint; set by the guard step, which every later step follows. */
  target!: McpTarget;
  /** The verified caller on a protected tenant; set by the authenticate step. */
  auth: AuthGranted | undefined = undefined;
  statusCode = 200;
  private readonly started = performance.now();
  private sent = false;
  private address: string | undefined = undefined;

  constructor(
    readonly edge: McpEdge,
    readonly raw: IncomingMessage,
    readonly res: ServerResponse,
    /** The tenant named in the path (`/t/:tenant/mcp`); undefined on the host form. */
    readonly tenant: string | undefined,
    /** The route template that matched, for spans and the access log. */
    readonly route: string,
  ) {}

  get method(): string {
    return this.raw.method ?? 'GET';
  }

  get url(): string {
    return this.raw.url ?? '/';
  }

  get headers(): IncomingHttpHeaders {
    return this.raw.headers;
  }

  /** The client address after the trusted proxies. */
  get ip(): string {
    return (this.address ??= this.edge.clientIp(this.raw));
  }

  get log(): EdgeLogger {
    return this.edge.logger;
  }

  /** The route template in Fastify's shape, for hooks written against Fastify requests (the access log). */
  get routeOptions(): { url: string } {
    return { url: this.route };
  }

  /** ms since the request arrived. */
  get elapsedTime(): number {
    return performance.now() - this.started;
  }

  /** `performance.now()` when the request arrived. */
  get startedAt(): number {
    return this.started;
  }

  /** The first value of a request header. */
  header(name: string): string | undefined {
    const v = this.raw.headers[name];
    return Array.isArray(v) ? v[0] : v;
  }

  code(status: number): this {
    this.statusCode = status;
    return this;
  }

  setHeader(name: string, value: string | number | string[]): this {
    this.res.setHeader(name, value);
    return this;
  }

  setHeaders(values: Record<string, string | number | string[]>): this {
    for (const name in values) this.res.setHeader(name, values[name]!);
    return this;
  }

  /** Sends the status, the headers set so far and `payload`; a second answer is ignored. */
  send(payload?: string | Buffer): this {
    if (this.sent || this.res.headersSent) return this;
    this.sent = true;
    this.res.statusCode = this.statusCode;
    // Node sets Content-Length from the one chunk `end` is given (0 without one).
    if (payload === undefined) this.res.end();
    else this.res.end(payload);
    return this;
  }

  /** The step writes to `res` itself from now on (streams, precompiled answers). */
  hijack(): this {
    this.sent = true;
    return this;
  }
}

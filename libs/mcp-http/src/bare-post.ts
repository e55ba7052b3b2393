import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { EdgeLogger, EdgeReply, EdgeRequest } from './edge-http';

/** What the bare POST path needs of its host besides the route steps. */
export interface BarePostOptions {
  logger: EdgeLogger;
  /** The client address after the trusted proxies (the same rule as the Fastify instance's `trustProxy`). */
  clientIp(raw: IncomingMessage): string;
  /** Called once the response finished (the access log); Fastify's `onResponse` on the routed path. */
  onResponse?(req: EdgeRequest, reply: EdgeReply): void;
}

/** A refused body, answered like the Fastify route's errors (`statusCode` + message). */
export interface BodyFailure {
  statusCode: number;
  message: string;
}

type Post = (req: EdgeRequest, reply: EdgeReply) => void | Promise<void>;
type Failed = (failure: BodyFailure, req: EdgeRequest, reply: EdgeReply) => Promise<void>;

const kBare = Symbol('switchboard.barePost');
interface BareResponse extends ServerResponse {
  [kBare]?: { req: BareRequest; reply: BareReply; onResponse: NonNullable<BarePostOptions['onResponse']> };
}

/**
 * The MCP endpoint's POST straight from `node:http`: the same steps as the Fastify route
 * (guard → authenticate → read body → answer), without Fastify's per-request routing, hooks,
 * content-type parser, async resources and request / reply objects — on a tools/list those cost
 * more than the answer itself. The body is read with the same bound; a body over it, or
 * a handler that throws, is answered through `failed` (the Fastify route's error path).
 */
export class BarePost {
  constructor(
    private readonly post: Post,
    private readonly failed: Failed,
    private readonly bodyLimit: number,
    private readonly options: BarePostOptions,
  ) {}

  /** Serves one POST whose path matched a route (`params` from the path, `route` its template). */
  serve(raw: IncomingMessage, res: ServerResponse, params: Record<string, string>, route: string): void {
    const req = new BareRequest(raw, params, route, this.options);
    const reply = new BareReply(res, this.options.logger);
    const onResponse = this.options.onResponse;
    if (onResponse) {
      (res as BareResponse)[kBare] = { req, reply, onResponse };
      res.once('finish', bareFinished);
    }
    readBody(raw, this.bodyLimit, (failure, body) => {
      if (failure) {
        void this.failed(failure, req, reply);
        return;
      }
      req.body = body;
      let pending: void | Promise<void>;
      try {
        pending = this.post(req, reply);
      } catch (err) {
        void this.failed(crash(err), req, reply);
        return;
      }
      if (pending) pending.catch((err: unknown) => this.failed(crash(err), req, reply));
    });
  }
}

function bareFinished(this: BareResponse): void {
  const bare = this[kBare];
  if (bare) bare.onResponse(bare.req, bare.reply);
}

function crash(err: unknown): BodyFailure & { cause: unknown } {
  return { statusCode: 500, message: err instanceof Error ? err.message : String(err), cause: err };
}

class BareRequest implements EdgeRequest {
  body: Buffer | undefined;
  readonly routeOptions: { readonly url: string };
  private address: string | undefined;

  constructor(
    readonly raw: IncomingMessage,
    readonly params: Record<string, string>,
    route: string,
    private readonly options: BarePostOptions,
  ) {
    this.routeOptions = { url: route };
  }

  get method(): string {
    return this.raw.method ?? 'POST';
  }

  get url(): string {
    return this.raw.url ?? '/';
  }

  get headers(): IncomingHttpHeaders {
    return this.raw.headers;
  }

  get ip(): string {
    return (this.address ??= this.options.clientIp(this.raw));
  }

  get log(): EdgeLogger {
    return this.options.logger;
  }
}

class BareReply implements EdgeReply {
  statusCode = 200;
  private readonly started = performance.now();
  private sent = false;

  constructor(
    readonly raw: ServerResponse,
    readonly log: EdgeLogger,
  ) {}

  get elapsedTime(): number {
    return performance.now() - this.started;
  }

  code(status: number): this {
    this.statusCode = status;
    return this;
  }

  header(name: string, value: string | number | string[]): this {
    this.raw.setHeader(name, value);
    return this;
  }

  headers(values: Record<string, string | number | string[]>): this {
    for (const name in values) this.raw.setHeader(name, values[name]!);
    return this;
  }

  send(payload?: string | Buffer): this {
    if (this.sent || this.raw.headersSent) return this;
    this.sent = true;
    this.raw.statusCode = this.statusCode;
    // Node sets Content-Length from the one chunk `end` is given (0 without one).
    if (payload === undefined) this.raw.end();
    else this.raw.end(payload);
    return this;
  }

  hijack(): this {
    this.sent = true;
    return this;
  }
}

/**
 * Reads a request body of at most `limit` bytes (refused at once when its Content-Length says
 * more, else as soon as the bytes read pass it), as Fastify's body reader does. One chunk
 * (the usual JSON-RPC POST) is taken as is, without a copy.
 */
function readBody(raw: IncomingMessage, limit: number, done: (failure: BodyFailure | undefined, body: Buffer) => void): void {
  const declared = raw.headers['content-length'];
  const expected = declared === undefined ? undefined : Number(declared);
  if (expected !== undefined && expected > limit) {
    done({ statusCode: 413, message: 'Request body is too large' }, EMPTY);
    return;
  }
  let first: Buffer | undefined;
  let more: Buffer[] | undefined;
  let received = 0;
  const onData = (chunk: Buffer): void => {
    received += chunk.length;
    if (received > limit) {
      stop();
      done({ statusCode: 413, message: 'Request body is too large' }, EMPTY);
      return;
    }
    if (first === undefined) first = chunk;
    else (more ??= [first]).push(chunk);
  };
  const onEnd = (): void => {
    stop();
    // Node's parser ends a body at its Content-Length, so `received` is that length here.
    done(undefined, more ? Buffer.concat(more, received) : (first ?? EMPTY));
  };
  const onError = (): void => {
    // The client went away mid-upload: nothing can be answered.
    stop();
    raw.destroy();
  };
  const stop = (): void => {
    raw.off('data', onData);
    raw.off('end', onEnd);
    raw.off('error', onError);
  };
  raw.on('data', onData);
  raw.on('end', onEnd);
  raw.on('error', onError);
}

const EMPTY = Buffer.alloc(0);

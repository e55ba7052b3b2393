import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerBatch } from './answer-batch';
import { answerFailure, crashed } from './answer-failure';
import { answerMessage } from './answer-message';
import { EdgeCall } from './edge-call';
import { authenticateRequest, guardRequest } from './edge-guard';
import { refuseDelete, serveLegacyStream } from './legacy-stream';
import { McpEdge } from './mcp-edge';
import type { McpHttpOptions } from './mcp-http-options';
import { readBody } from './read-body';
import { readRequestBody, type RouteFailure } from './request-body';

/** Where the endpoint answers besides `/t/:tenant/mcp`. */
export interface McpEndpointOptions extends McpHttpOptions {
  /** Also answer the bare `/mcp` (the host form: the tenant is named by the Host header). Default false. */
  hostForm?: boolean;
}

export const TENANT_ROUTE = '/t/:tenant/mcp';
export const HOST_ROUTE = '/mcp';
const TENANT_PATH = /^\/t\/([^/?#]+)\/mcp(?:\?|$)/;
const HOST_PATH = /^\/mcp(?:\?|$)/;

const kCall = Symbol('switchboard.edgeCall');
interface CalledResponse extends ServerResponse {
  [kCall]?: EdgeCall;
}

/**
 * The MCP endpoint: matches `/t/:tenant/mcp` (and `/mcp` in the host form) on a node:http
 * request and serves its POST, GET and DELETE through the steps, one `EdgeCall` each. A host
 * asks it first (`serve`) and routes whatever it declines (health, metrics, admin) elsewhere;
 * a Fastify host can mount it on its own routes instead (`registerMcpRoutes`).
 *
 * POST: body → guard → authenticate → read body → answer (one message, or a batch).
 * GET: guard → authenticate → legacy stream. DELETE: guard → authenticate → 405.
 */
export class McpEndpoint {
  readonly edge: McpEdge;
  private readonly hostForm: boolean;

  constructor(options: McpEndpointOptions) {
    this.edge = new McpEdge(options);
    this.hostForm = options.hostForm ?? false;
  }

  /** The route template `url` matches, or undefined when it is not the MCP endpoint. */
  route(url: string): string | undefined {
    if (TENANT_PATH.test(url)) return TENANT_ROUTE;
    return this.hostForm && HOST_PATH.test(url) ? HOST_ROUTE : undefined;
  }

  /** Serves `raw` when it is an MCP endpoint request (true), else leaves it untouched (false). */
  serve(raw: IncomingMessage, res: ServerResponse): boolean {
    const method = raw.method;
    if (method !== 'POST' && method !== 'GET' && method !== 'DELETE' && method !== 'HEAD') return false;
    const url = raw.url ?? '';
    const m = TENANT_PATH.exec(url);
    if (m) this.handle(raw, res, tenantOf(m[1]!), TENANT_ROUTE);
    else if (this.hostForm && HOST_PATH.test(url)) this.handle(raw, res, undefined, HOST_ROUTE);
    else return false;
    return true;
  }

  /** Serves one request already routed here (`tenant` from the path, `route` its template). */
  handle(raw: IncomingMessage, res: ServerResponse, tenant: string | undefined, route: string): void {
    const call = new EdgeCall(this.edge, raw, res, tenant, route);
    if (this.edge.onResponse) {
      (res as CalledResponse)[kCall] = call;
      res.once('finish', callFinished);
    }
    const method = raw.method;
    if (method === 'POST') readRequestBody(raw, this.edge.bodyLimit, call, bodyRead);
    else settle(call, method === 'DELETE' ? serveDelete(call) : serveGet(call));
  }
}

function bodyRead(call: EdgeCall, failure: RouteFailure | undefined, body: Buffer): void {
  if (failure) {
    void answerFailure(call, failure);
    return;
  }
  call.body = body;
  let pending: void | Promise<void>;
  try {
    pending = servePost(call);
  } catch (err) {
    void answerFailure(call, crashed(err));
    return;
  }
  if (pending) settle(call, pending);
}

function settle(call: EdgeCall, pending: Promise<void>): void {
  pending.catch((err: unknown) => answerFailure(call, crashed(err)));
}

/** POST after its body was read: stays synchronous up to the answer when the tenant is held and authentication is synchronous. */
function servePost(call: EdgeCall): void | Promise<void> {
  const guarded = guardRequest(call);
  if (guarded === true) return authenticatePost(call);
  if (guarded !== false) return guarded.then((ok) => (ok ? authenticatePost(call) : undefined));
}

function authenticatePost(call: EdgeCall): void | Promise<void> {
  const admitted = authenticateRequest(call);
  if (admitted === true) return answerBody(call);
  if (admitted !== false) return admitted.then((ok) => (ok ? answerBody(call) : undefined));
}

function answerBody(call: EdgeCall): void | Promise<void> {
  const decoded = readBody(call);
  if (!decoded) return;
  return decoded.kind === 'single' ? answerMessage(call, decoded.message) : answerBatch(call, decoded.messages);
}

async function serveGet(call: EdgeCall): Promise<void> {
  if ((await guardRequest(call)) && (await authenticateRequest(call))) await serveLegacyStream(call);
}

async function serveDelete(call: EdgeCall): Promise<void> {
  if ((await guardRequest(call)) && (await authenticateRequest(call))) refuseDelete(call);
}

function callFinished(this: CalledResponse): void {
  const call = this[kCall];
  if (call) call.edge.onResponse!(call);
}

/** The tenant segment, percent-decoded as a router would; a malformed escape stays as sent (an unknown tenant). */
function tenantOf(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ErrorCode, McpError } from '@switchboard/protocol';
import { answerBatch } from './answer-batch';
import { BarePost, type BarePostOptions, type BodyFailure } from './bare-post';
import { answerMessage } from './answer-message';
import { drainRequest } from './drain-request';
import type { EdgeReply, EdgeRequest } from './edge-http';
import { authenticateRequest, guardRequest, type Caller } from './edge-guard';
import { refuseDelete, serveLegacyStream } from './legacy-stream';
import { McpEdge } from './mcp-edge';
import type { McpHttpOptions, McpTarget } from './mcp-target';
import { readBody } from './read-body';

export { BATCH_DEFAULTS } from './mcp-edge';

/** The registered routes, for a host that also serves their POSTs from `node:http` directly. */
export interface McpRoutes {
  /** The same POST steps on a bare `node:http` request (see {@link BarePost}). */
  barePost(options: BarePostOptions): BarePost;
}

/**
 * Registers POST / GET / DELETE MCP endpoint routes on `paths` (Fastify path syntax, e.g.
 * `/t/:tenant/mcp`, `/mcp`), serving both protocol eras on each URL. Routes live in their
 * own encapsulated context: the body is taken raw (so malformed JSON becomes −32700, not a
 * Fastify error page) and every error is a JSON-RPC body with the right HTTP status.
 *
 * A POST runs the steps guard → authenticate → read body → answer (one message) or batch;
 * a GET the legacy stream; each step answers and stops the request when it refuses.
 */
export function registerMcpRoutes(app: FastifyInstance, paths: string[], options: McpHttpOptions): McpRoutes {
  const edge = new McpEdge(options);
  // Handlers resolve to nothing (every step answers on the reply itself).
  const post = (req: EdgeRequest, reply: EdgeReply): void | Promise<void> => {
    const target = guardRequest(edge, req, reply);
    if (!target) return;
    const caller = authenticateRequest(edge, req, reply, target);
    return caller instanceof Promise ? caller.then((c) => afterAuth(edge, req, reply, target, c)) : afterAuth(edge, req, reply, target, caller);
  };
  const get = async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const target = guardRequest(edge, req, reply);
    if (!target) return;
    const caller = await authenticateRequest(edge, req, reply, target);
    if (caller !== false) await serveLegacyStream(edge, req, reply, target, caller);
  };
  const del = async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const target = guardRequest(edge, req, reply);
    if (target && (await authenticateRequest(edge, req, reply, target)) !== false) refuseDelete(edge, req, reply, target);
  };

  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    const keepRaw = (_req: FastifyRequest, body: Buffer, done: (err: null, body: Buffer) => void) => done(null, body);
    // Named first: Fastify caches the parser of a media type it has by name, so the common header
    // skips its Content-Type parsing per request ('*' alone is re-parsed on every request).
    scope.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: edge.bodyLimit }, keepRaw);
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: edge.bodyLimit }, keepRaw);
    scope.setErrorHandler((error: FastifyError, req, reply) => answerRouteError(edge, error, req, reply));
    for (const path of paths) {
      scope.post(path, { bodyLimit: edge.bodyLimit }, post);
      scope.get(path, get);
      scope.delete(path, del);
    }
  });
  const failed = (failure: BodyFailure, req: EdgeRequest, reply: EdgeReply) => answerRouteError(edge, failure, req, reply);
  return { barePost: (bare) => new BarePost(post, failed, edge.bodyLimit, bare) };
}

function afterAuth(edge: McpEdge, req: EdgeRequest, reply: EdgeReply, target: McpTarget, caller: Caller): void | Promise<void> {
  if (caller === false) return;
  const decoded = readBody(edge, req, reply, target);
  if (!decoded) return;
  if (decoded.kind === 'single') return answerMessage(edge, req, reply, target, decoded.message, caller);
  return answerBatch(edge, req, reply, target, decoded.messages, caller);
}

/** Errors Fastify raises before a handler runs (body limit, media type) or a handler throws: a JSON-RPC body, never Fastify's error page. */
async function answerRouteError(edge: McpEdge, error: { statusCode?: number; message: string; cause?: unknown }, req: EdgeRequest, reply: EdgeReply): Promise<void> {
  const status = error.statusCode ?? 500;
  if (status === 413) {
    // Read the rest of the upload first (bounded): a fetch client still sending its body would
    // otherwise see the socket close and report `fetch failed` instead of this 413.
    const drained = await drainRequest(req.raw);
    if (!drained) reply.header('connection', 'close');
    return edge.refuse(req, reply, 413, undefined, new McpError(ErrorCode.InvalidRequest, `Request body exceeds the limit of ${edge.bodyLimit} bytes`, { limit: 'bodyLimit', bytes: edge.bodyLimit }));
  }
  if (status === 415) return edge.refuse(req, reply, 415, undefined, new McpError(ErrorCode.InvalidRequest, 'Content-Type must be application/json'));
  if (status >= 400 && status < 500) return edge.refuse(req, reply, status, undefined, new McpError(ErrorCode.InvalidRequest, error.message));
  reply.log.error({ err: error.cause ?? error }, 'unhandled error in MCP route');
  return edge.refuse(req, reply, 500, undefined, new McpError(ErrorCode.InternalError, 'Internal error'));
}

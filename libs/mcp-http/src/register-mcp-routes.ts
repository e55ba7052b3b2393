import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { bundleHandlers } from '@switchboard/catalog';
import {
  DEFAULT_HEADERLESS_VERSION,
  ErrorCode,
  McpError,
  classifyRequest,
  decodeBody,
  encodeError,
  isLegacyVersion,
  isModernVersion,
  isMethodOfEra,
  resolveSurfaceId,
  type ClassifiedMessage,
  type JsonRpcId,
  type JsonRpcRequest,
  type RequestContext,
} from '@switchboard/protocol';
import { ClientRequestBroker } from './client-request-broker';
import { RequestDispatcher } from './dispatch-request';
import { mintLegacySession, readLegacySession } from './legacy-session';
import { StateSealer } from './state-sealer';
import { TASK_METHODS, TaskManager } from './task-manager';
import { drainRequest } from './drain-request';
import type { AuthDenied, AuthGranted, McpHttpOptions, McpTarget } from './mcp-target';
import { hostAllowed, originAllowed } from './origin-policy';
import { ResponseChannel } from './response-channel';
import { enableResume, serveResumption } from './resume-stream';

const DEFAULT_BODY_LIMIT = 1024 * 1024;
/** Methods answered from precompiled bytes or constant results: nothing to cancel or time out. */
const PRECOMPILED_METHODS: ReadonlySet<string> = new Set(['tools/list', 'resources/list', 'resources/templates/list', 'prompts/list', 'initialize', 'server/discover', 'ping']);
const NEVER_ABORTED = new AbortController().signal;
const DEFAULT_CALL_TIMEOUT_MS = 60_000;
/** Batch bounds (issue 18): a 27 KB batch of 500 tools/list once built a 16.8 MB answer. */
export const BATCH_DEFAULTS = { maxItems: 50, maxResponseBytes: 4 * 1024 * 1024 } as const;

type RouteParams = Record<string, string | undefined>;

/** Per-request refusal bookkeeping: set when a JSON-RPC request was observed (its span covers the answer). */
interface RefusalState {
  startedAt: number;
  tenantId: string | undefined;
  observed: boolean;
  outcome?: string;
}
const refusalStates = new WeakMap<FastifyRequest, RefusalState>();

/**
 * Registers POST / GET / DELETE MCP endpoint routes on `paths` (Fastify path syntax, e.g.
 * `/t/:tenant/mcp`, `/mcp`), serving both protocol eras on each URL. Routes live in their
 * own encapsulated context: the body is taken raw (so malformed JSON becomes −32700, not a
 * Fastify error page) and every error is a JSON-RPC body with the right HTTP status.
 */
export function registerMcpRoutes(app: FastifyInstance, paths: string[], options: McpHttpOptions): void {
  const handlers = bundleHandlers(...options.bundles);
  const sealer = options.sealer ?? StateSealer.ephemeral();
  const clientRequests = options.clientRequests ?? new ClientRequestBroker(sealer);
  const sessions = options.sessions ?? true;
  const tasks = options.tasks ?? new TaskManager();
  const dispatcher = new RequestDispatcher(handlers, options.upstream, sealer, clientRequests, tasks, options.parkedCalls);
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  const batchMaxItems = options.batchMaxItems ?? BATCH_DEFAULTS.maxItems;
  const batchMaxResponseBytes = options.batchMaxResponseBytes ?? BATCH_DEFAULTS.maxResponseBytes;
  const heartbeatMs = options.sseHeartbeatMs ?? 15_000;
  const maxLifetimeMs = options.sseMaxLifetimeMs ?? 300_000;

  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_req, body, done) => done(null, body));

    const onRefusal = options.observe?.onRefusal?.bind(options.observe);
    if (onRefusal) {
      // Every refusal is a span and a metric: the routes answer them in many places (guard,
      // authenticate, media type, body limit, scopes, batch bounds), the response is where they meet.
      scope.addHook('onRequest', async (req) => {
        refusalStates.set(req, { startedAt: performance.now(), tenantId: undefined, observed: false });
      });
      scope.addHook('onResponse', async (req, reply) => {
        const state = refusalStates.get(req);
        if (!state || state.observed || reply.statusCode < 400) return;
        onRefusal({
          tenantId: state.tenantId,
          httpMethod: req.method,
          route: req.routeOptions.url ?? 'mcp',
          status: reply.statusCode,
          startedAt: state.startedAt,
          clientIp: req.ip,
          ...(state.outcome ? { outcome: state.outcome } : {}),
        });
      });
    }

    scope.setErrorHandler(async (error: FastifyError, req, reply) => {
      const status = error.statusCode ?? 500;
      if (status === 413) {
        // Read the rest of the upload first (bounded): a fetch client still sending its body would
        // otherwise see the socket close and report `fetch failed` instead of this 413.
        const drained = await drainRequest(req.raw);
        if (!drained) reply.header('connection', 'close');
        return sendError(reply, 413, null, new McpError(ErrorCode.InvalidRequest, `Request body exceeds the limit of ${bodyLimit} bytes`, { limit: 'bodyLimit', bytes: bodyLimit }));
      }
      if (status === 415) {
        return sendError(reply, 415, null, new McpError(ErrorCode.InvalidRequest, 'Content-Type must be application/json'));
      }
      if (status >= 400 && status < 500) {
        return sendError(reply, status, null, new McpError(ErrorCode.InvalidRequest, error.message));
      }
      reply.log.error({ err: error }, 'unhandled error in MCP route');
      return sendError(reply, 500, null, new McpError(ErrorCode.InternalError, 'Internal error'));
    });

    const post = async (req: FastifyRequest, reply: FastifyReply) => {
      const target = guard(req, reply);
      if (!target) return;
      const auth = await authenticate(req, reply, target);
      if (auth === false) return;
      const contentType = header(req, 'content-type');
      if (!contentType || !/^application\/json\s*(;|$)/i.test(contentType)) {
        return sendError(reply, 415, null, new McpError(ErrorCode.InvalidRequest, 'Content-Type must be application/json'));
      }
      if (!acceptsBoth(header(req, 'accept'))) {
        return sendError(reply, 406, null, new McpError(ErrorCode.InvalidRequest, 'Accept must list both application/json and text/event-stream'));
      }
      const body = req.body;
      if (!Buffer.isBuffer(body) || body.length === 0) {
        return sendError(reply, 400, null, new McpError(ErrorCode.ParseError, 'Parse error: empty body'));
      }
      let decoded;
      try {
        decoded = decodeBody(body);
      } catch (err) {
        return sendWireError(reply, null, err);
      }
      if (decoded.kind === 'single') return handleSingle(req, reply, target, decoded.message, auth);
      return handleBatch(req, reply, target, decoded.messages, auth);
    };

    const handleSingle = async (req: FastifyRequest, reply: FastifyReply, target: McpTarget, item: ClassifiedMessage, auth: AuthGranted | undefined) => {
      switch (item.type) {
        case 'invalid':
          return sendError(reply, 400, item.id, item.error);
        case 'response': {
          // 2026-07-28 forbids clients from sending responses (there are no server requests to answer).
          if (isModernVersion(header(req, 'mcp-protocol-version'))) {
            return sendError(reply, 400, null, new McpError(ErrorCode.InvalidRequest, 'JSON-RPC responses are not accepted at protocol 2026-07-28'));
          }
          // The answer to one of our server→client requests: route it to the call that waits (maybe on another replica).
          const answerOf = 'error' in item.message ? { error: item.message.error } : { result: item.message.result };
          const outcome = await clientRequests.deliver(`${target.tenantId}\n${auth?.subject ?? ''}`, item.message.id, answerOf);
          if (outcome === 'delivered') return reply.code(202).send();
          return sendError(
            reply,
            404,
            null,
            new McpError(ErrorCode.InvalidRequest, `No server-to-client request with id ${JSON.stringify(item.message.id).slice(0, 80)} is waiting for an answer (it ended, timed out, or was not sent to this caller)`),
          );
        }
        case 'notification':
          try {
            classifyRequest(item.message, req.headers);
          } catch (err) {
            return sendWireError(reply, null, err);
          }
          return reply.code(202).send();
        case 'request': {
          const denied = toolDenied(target, item.message, auth);
          if (denied) markRefusal(req, 'insufficient_scope');
          if (denied) return reply.code(denied.status).headers(denied.headers).send(denied.body);
          const channel = new ResponseChannel(reply);
          const { body, status } = await answer(req, reply, target, item.message, channel, auth);
          channel.finish(body, status);
          return reply;
        }
      }
    };

    const handleBatch = async (req: FastifyRequest, reply: FastifyReply, target: McpTarget, items: ClassifiedMessage[], auth: AuthGranted | undefined) => {
      const version = header(req, 'mcp-protocol-version') ?? DEFAULT_HEADERLESS_VERSION;
      if (version !== '2025-03-26') {
        return sendError(reply, 400, null, new McpError(ErrorCode.InvalidRequest, `JSON-RPC batches are only allowed at protocol version 2025-03-26, not ${version}`));
      }
      // Counted before anything is dispatched: an oversized batch costs nothing but its parse.
      const maxItems = target.limits?.batchMaxItems ?? batchMaxItems;
      if (items.length > maxItems) {
        return sendError(reply, 400, null, new McpError(ErrorCode.InvalidRequest, `Batch of ${items.length} messages exceeds the limit of ${maxItems} (batchMaxItems)`, { limit: 'batchMaxItems', max: maxItems, count: items.length }));
      }
      const maxBytes = target.limits?.batchMaxResponseBytes ?? batchMaxResponseBytes;
      const parts: Buffer[] = [];
      // Brackets and commas included, so the bound is on what would go on the wire.
      let bytes = 2;
      const add = (part: string | Buffer): boolean => {
        const buf = Buffer.isBuffer(part) ? part : Buffer.from(part);
        bytes += buf.length + (parts.length > 0 ? 1 : 0);
        if (bytes > maxBytes) return false;
        parts.push(buf);
        return true;
      };
      const tooBig = () => {
        // What was built so far is dropped at once, and the members after it never run.
        parts.length = 0;
        return sendError(
          reply,
          400,
          null,
          new McpError(ErrorCode.InvalidRequest, `Batch response exceeds the limit of ${maxBytes} bytes (batchMaxResponseBytes); send fewer requests per batch`, { limit: 'batchMaxResponseBytes', max: maxBytes }),
        );
      };
      for (const item of items) {
        if (item.type === 'invalid') {
          if (!add(encodeError(item.id, item.error))) return tooBig();
        } else if (item.type === 'request') {
          let part: string | Buffer;
          if (item.message.method === 'initialize') part = encodeError(item.message.id, new McpError(ErrorCode.InvalidRequest, 'initialize must not be part of a batch'));
          else if (toolDenied(target, item.message, auth)) part = encodeError(item.message.id, new McpError(ErrorCode.InvalidRequest, 'insufficient_scope: the access token does not cover this tool'));
          else part = (await answer(req, reply, target, item.message, undefined, auth)).body;
          if (!add(part)) return tooBig();
        }
      }
      if (parts.length === 0) return reply.code(202).send();
      const joined = Buffer.concat([Buffer.from('['), ...interleave(parts, Buffer.from(',')), Buffer.from(']')]);
      return reply.code(200).header('content-type', 'application/json').send(joined);
    };

    const answer = async (
      req: FastifyRequest,
      reply: FastifyReply,
      target: McpTarget,
      message: JsonRpcRequest,
      channel: ResponseChannel | undefined,
      auth: AuthGranted | undefined,
    ): Promise<{ body: string | Buffer; status: number }> => {
      // Lists answer from precompiled bytes and never wait on anything: they skip the timer,
      // the abort controller and the close listener (the hot path stays allocation-light).
      const cancellable = !PRECOMPILED_METHODS.has(message.method);
      const abort = cancellable ? new AbortController() : undefined;
      const timer = abort ? setTimeout(() => abort.abort(new Error(`call exceeded ${callTimeoutMs} ms`)), callTimeoutMs) : undefined;
      // Watch the response, not the request: Node emits the request's `close` as soon as its
      // body has been read, which would abort every call that outlives the upload.
      const res = reply.raw;
      const onClose = () => {
        // A stored stream's client may come back with Last-Event-ID: the call goes on (bounded by its timeout).
        if (!res.writableFinished && !channel?.isResumable) abort?.abort(new Error('client closed the connection'));
      };
      if (abort) res.once('close', onClose);
      const refusal = refusalStates.get(req);
      if (refusal) refusal.observed = true;
      const observation = options.observe?.onRequest({
        tenantId: target.tenantId,
        method: message.method,
        name: knownName(target, message),
        headers: req.headers,
        auth,
        clientIp: req.ip,
        params: message.params,
        bytesIn: Buffer.isBuffer(req.body) ? req.body.length : 0,
        requestId: message.id,
      });
      let outcome: { errorCode: number | undefined; httpStatus: number } = { errorCode: undefined, httpStatus: 200 };
      let answered: string | Buffer | undefined;
      try {
        const context = classifyRequest(message, req.headers);
        if (context.era === 'legacy') applyLegacySession(req, target, message, context, channel);
        if (context.era === 'legacy' && channel && options.streamEvents) enableResume(channel, options.streamEvents, sealer, target.tenantId, options.sseRetryMs);
        // The tasks extension's methods join 2026-07-28 (the dispatcher gates them on the declared extension).
        if (!isMethodOfEra(message.method, context.era) && !(context.era === 'modern' && TASK_METHODS.has(message.method))) {
          throw new McpError(
            ErrorCode.MethodNotFound,
            `Method not found: ${message.method} (not part of protocol ${context.protocolVersion})`,
            undefined,
            context.era === 'modern' ? 404 : 200,
          );
        }
        if (options.admit) {
          const refusal = await options.admit(req, target, { message, era: context.era, auth });
          if (refusal) {
            for (const [name, value] of Object.entries(refusal.headers)) res.setHeader(name, value);
            throw refusal.error;
          }
        }
        const surfaceId = resolveSurfaceId(
          { oauthClientId: auth?.clientId, clientInfoName: context.clientInfo?.name, origin: header(req, 'origin'), userAgent: header(req, 'user-agent') },
          target.surfaceRules,
        );
        const input = { message, context, target, surfaceId, sink: channel, signal: abort?.signal ?? NEVER_ABORTED, auth, headers: req.headers, onToolError: observation ? () => observation.toolFailed() : undefined };
        if (!observation) return { body: await dispatcher.dispatch(input), status: 200 };
        observation.classified({ era: context.era, protocolVersion: context.protocolVersion, surfaceId });
        // Only calls can make outgoing requests whose spans need this one as their parent.
        const body = cancellable ? await observation.run(() => dispatcher.dispatch(input)) : await dispatcher.dispatch(input);
        answered = body;
        return { body, status: 200 };
      } catch (err) {
        if (err instanceof McpError) {
          outcome = { errorCode: err.code, httpStatus: err.httpStatus };
          answered = encodeError(message.id, err);
          return { body: answered, status: err.httpStatus };
        }
        outcome = { errorCode: ErrorCode.InternalError, httpStatus: 200 };
        req.log.error({ err, method: message.method }, 'request failed');
        answered = encodeError(message.id, new McpError(ErrorCode.InternalError, 'Internal error'));
        return { body: answered, status: 200 };
      } finally {
        if (abort) {
          clearTimeout(timer);
          res.off('close', onClose);
        }
        observation?.end({ ...outcome, body: answered });
      }
    };

    /**
     * Legacy sessions without server state: `initialize` gets a sealed `Mcp-Session-Id`
     * holding the client's capabilities; later requests that carry it get them back (so a
     * call knows it may send elicitation / sampling / roots requests). An id this server did
     * not issue, or another tenant's, is 404 (the spec's "session not found": re-initialize).
     */
    const applyLegacySession = (req: FastifyRequest, target: McpTarget, message: JsonRpcRequest, context: RequestContext, channel: ResponseChannel | undefined) => {
      if (!sessions) return;
      if (message.method === 'initialize') {
        channel?.setHeader('mcp-session-id', mintLegacySession(sealer, { tenantId: target.tenantId, protocolVersion: context.protocolVersion, capabilities: context.clientCapabilities ?? {} }));
        return;
      }
      const sessionId = header(req, 'mcp-session-id');
      if (sessionId === undefined) return;
      const session = readLegacySession(sealer, target.tenantId, sessionId);
      if (!session) throw new McpError(ErrorCode.InvalidRequest, 'Session not found: this Mcp-Session-Id was not issued for this endpoint (send initialize again)', undefined, 404);
      if (context.clientCapabilities === undefined) context.clientCapabilities = session.capabilities;
    };

    const get = async (req: FastifyRequest, reply: FastifyReply) => {
      const target = guard(req, reply);
      if (!target) return;
      if ((await authenticate(req, reply, target)) === false) return;
      const version = header(req, 'mcp-protocol-version');
      const legacy = version === undefined || isLegacyVersion(version);
      const wantsStream = /text\/event-stream/i.test(header(req, 'accept') ?? '');
      const lastEventId = header(req, 'last-event-id');
      if (legacy && wantsStream && lastEventId !== undefined && options.streamEvents) {
        return serveResumption(req, reply, { store: options.streamEvents, sealer, tenantId: target.tenantId, lastEventId, maxLifetimeMs, heartbeatMs });
      }
      if (!legacy || !wantsStream) {
        return reply
          .code(405)
          .header('allow', legacy ? 'GET, POST' : 'POST')
          .header('content-type', 'application/json')
          .send(encodeError(null, new McpError(ErrorCode.InvalidRequest, legacy ? 'GET needs Accept: text/event-stream' : 'Method not allowed: this protocol version has no GET stream')));
      }
      // A heartbeat-only stream: this server never sends server-initiated messages, but legacy
      // clients (Claude Code, ChatGPT connector set-up) treat a 405 here as a dead server.
      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no' });
      raw.write(': stream open\n\n');
      const beat = setInterval(() => raw.write(': heartbeat\n\n'), heartbeatMs);
      const end = setTimeout(() => raw.end(), maxLifetimeMs);
      raw.once('close', () => {
        clearInterval(beat);
        clearTimeout(end);
      });
    };

    const del = async (req: FastifyRequest, reply: FastifyReply) => {
      const target = guard(req, reply);
      if (!target) return;
      if ((await authenticate(req, reply, target)) === false) return;
      return reply
        .code(405)
        .header('allow', 'GET, POST')
        .header('content-type', 'application/json')
        .send(encodeError(null, new McpError(ErrorCode.InvalidRequest, 'Method not allowed: this server is stateless and has no sessions to delete')));
    };

    /** Tenant, Host and Origin checks shared by every method; answers and returns undefined when the request must stop. */
    const guard = (req: FastifyRequest, reply: FastifyReply): McpTarget | undefined => {
      const params = (req.params ?? {}) as RouteParams;
      const host = header(req, 'host');
      const target = options.resolveTarget(params, host);
      const refusal = refusalStates.get(req);
      if (refusal && target) refusal.tenantId = target.tenantId;
      if (!target) {
        void sendError(reply, 404, null, new McpError(ErrorCode.InvalidRequest, params.tenant ? `Unknown tenant: ${params.tenant}` : 'Unknown MCP endpoint'));
        return undefined;
      }
      if (!hostAllowed(host, target.allowedHosts)) {
        void sendError(reply, 403, null, new McpError(ErrorCode.InvalidRequest, `Host not allowed: ${host ?? '(none)'}`));
        return undefined;
      }
      const origin = header(req, 'origin');
      if (origin !== undefined && !originAllowed(origin, target.allowedOrigins)) {
        void sendError(reply, 403, null, new McpError(ErrorCode.InvalidRequest, `Origin not allowed: ${origin}`));
        return undefined;
      }
      return target;
    };

    /** The optional bearer-token hook: `false` ⇒ refused (already answered), undefined ⇒ no hook. */
    const authenticate = async (req: FastifyRequest, reply: FastifyReply, target: McpTarget): Promise<AuthGranted | undefined | false> => {
      if (!options.authenticate) return undefined;
      const outcome = await options.authenticate(req, target);
      if (outcome.ok) return outcome;
      void reply.code(outcome.status).headers(outcome.headers).send(outcome.body);
      return false;
    };

    /** A tools/call the token's scopes do not cover (checked before the call runs). */
    const toolDenied = (target: McpTarget, message: JsonRpcRequest, auth: AuthGranted | undefined): AuthDenied | undefined => {
      if (!auth || !options.authorizeTool || message.method !== 'tools/call') return undefined;
      const name = message.params?.name;
      return typeof name === 'string' ? options.authorizeTool(target, name, auth) : undefined;
    };

    for (const path of paths) {
      scope.post(path, { bodyLimit }, post);
      scope.get(path, get);
      scope.delete(path, del);
    }
  });
}

/** Names the reason of a refusal more precisely than its HTTP status. */
function markRefusal(req: FastifyRequest, outcome: string): void {
  const state = refusalStates.get(req);
  if (state) state.outcome = outcome;
}

/** The tool / prompt name of a request, only when the tenant's catalog has it (an arbitrary client string must not become a metric label). */
function knownName(target: McpTarget, message: JsonRpcRequest): string | undefined {
  const name = message.params?.name;
  if (typeof name !== 'string') return undefined;
  if (message.method === 'tools/call') return target.catalog.tool(name) ? name : undefined;
  if (message.method === 'prompts/get') return target.catalog.prompt(name) ? name : undefined;
  return undefined;
}

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function acceptsBoth(accept: string | undefined): boolean {
  if (!accept) return false;
  const a = accept.toLowerCase();
  if (a.includes('*/*')) return true;
  return (a.includes('application/json') || a.includes('application/*')) && (a.includes('text/event-stream') || a.includes('text/*'));
}

function sendError(reply: FastifyReply, status: number, id: JsonRpcId | null, error: McpError): FastifyReply {
  return reply.code(status).header('content-type', 'application/json').send(encodeError(id, error));
}

function sendWireError(reply: FastifyReply, id: JsonRpcId | null, err: unknown): FastifyReply {
  if (err instanceof McpError) return sendError(reply, err.httpStatus === 200 ? 400 : err.httpStatus, id, err);
  reply.log.error({ err }, 'unexpected error while decoding');
  return sendError(reply, 500, id, new McpError(ErrorCode.InternalError, 'Internal error'));
}

function interleave<T>(items: T[], sep: T): T[] {
  const out: T[] = [];
  items.forEach((item, i) => {
    if (i > 0) out.push(sep);
    out.push(item);
  });
  return out;
}

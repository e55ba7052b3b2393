import { MemoryUpstreamTaskIndex } from './upstream-task-index';
import type { EdgeReply, EdgeRequest } from './edge-http';
import { bundleHandlers } from '@switchboard/catalog';
import { ErrorCode, McpError, encodeError, type JsonRpcId } from '@switchboard/protocol';
import { DEFAULT_NOTIFY_MAX_BYTES_PER_CALL } from './byte-budgets';
import { ClientRequestBroker } from './client-request-broker';
import { RequestDispatcher } from './dispatch-request';
import type { EdgePolicy, McpHttpOptions, McpRefusal } from './mcp-target';
import { StateSealer } from './state-sealer';
import type { StreamEventStore } from './stream-event-store';
import { TaskManager } from './task-manager';

const DEFAULT_BODY_LIMIT = 1024 * 1024;
const DEFAULT_CALL_TIMEOUT_MS = 60_000;
/** How long stream stores commonly keep a stream after its last event (the gateway's Redis store: 5 minutes). */
const DEFAULT_STREAM_RETENTION_MS = 5 * 60_000;
/** Batch bounds (issue 18): a 27 KB batch of 500 tools/list once built a 16.8 MB answer. */
export const BATCH_DEFAULTS = { maxItems: 50, maxResponseBytes: 4 * 1024 * 1024 } as const;

/**
 * Everything the route steps share, resolved once when the routes are registered: the policy,
 * the dispatcher and the bounds. Steps are plain functions of (edge, request, reply), so a
 * request allocates no closures.
 */
export class McpEdge {
  readonly policy: EdgePolicy;
  readonly dispatcher: RequestDispatcher;
  readonly sealer: StateSealer;
  readonly clientRequests: ClientRequestBroker;
  readonly sessions: boolean;
  readonly bodyLimit: number;
  readonly callTimeoutMs: number;
  readonly batchMaxItems: number;
  readonly batchMaxResponseBytes: number;
  readonly heartbeatMs: number;
  readonly maxLifetimeMs: number;
  readonly streamEvents: StreamEventStore | undefined;
  readonly sseRetryMs: number | undefined;
  /** How long a stream's resumption ids (`Last-Event-ID`) are honoured, in seconds. */
  readonly resumeTtlSeconds: number;
  readonly notifyMaxBytesPerCall: number;
  private readonly onRefusal: ((refusal: McpRefusal) => void) | undefined;

  constructor(options: McpHttpOptions) {
    this.policy = options.policy;
    this.sealer = options.sealer ?? StateSealer.ephemeral();
    this.clientRequests = options.clientRequests ?? new ClientRequestBroker(this.sealer);
    this.sessions = options.sessions ?? true;
    const tasks = options.tasks ?? new TaskManager();
    const upstreamTaskIndex = options.upstreamTaskIndex ?? new MemoryUpstreamTaskIndex();
    this.dispatcher = new RequestDispatcher(bundleHandlers(...options.bundles), options.policy.upstream, this.sealer, this.clientRequests, tasks, options.parkedCalls, upstreamTaskIndex);
    this.bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
    this.callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    this.batchMaxItems = options.batchMaxItems ?? BATCH_DEFAULTS.maxItems;
    this.batchMaxResponseBytes = options.batchMaxResponseBytes ?? BATCH_DEFAULTS.maxResponseBytes;
    this.heartbeatMs = options.sseHeartbeatMs ?? 15_000;
    this.maxLifetimeMs = options.sseMaxLifetimeMs ?? 300_000;
    this.streamEvents = options.streamEvents;
    this.sseRetryMs = options.sseRetryMs;
    // A call's last event is sealed at most a call timeout after its first; the store keeps
    // a stream a few minutes past its last event, and an id outliving both is useless.
    this.resumeTtlSeconds = Math.ceil((options.streamResumeTtlMs ?? this.callTimeoutMs + DEFAULT_STREAM_RETENTION_MS) / 1000);
    this.notifyMaxBytesPerCall = options.notifyMaxBytesPerCall ?? DEFAULT_NOTIFY_MAX_BYTES_PER_CALL;
    const observe = options.policy.observe;
    this.onRefusal = observe?.onRefusal?.bind(observe);
  }

  /**
   * Every refusal is a span and a metric. They are told where they are sent (guard,
   * authenticate, media type, body limit, scopes, batch bounds) rather than from Fastify
   * onRequest/onResponse hooks, which cost every request two hook runs and a side table.
   */
  refused(req: EdgeRequest, reply: EdgeReply, tenantId: string | undefined, outcome?: string, status = reply.statusCode): void {
    if (!this.onRefusal || status < 400) return;
    this.onRefusal({
      tenantId,
      httpMethod: req.method,
      route: req.routeOptions.url ?? 'mcp',
      status,
      // Fastify started the reply's clock when the request was routed (same performance.now clock).
      startedAt: performance.now() - reply.elapsedTime,
      clientIp: req.ip,
      ...(outcome ? { outcome } : {}),
    });
  }

  /** Answers a JSON-RPC error with `status` and records the refusal. Steps resolve to nothing: a handler's resolved reply would be sent twice (Fastify warns). */
  refuse(req: EdgeRequest, reply: EdgeReply, status: number, tenantId: string | undefined, error: McpError, id: JsonRpcId | null = null): void {
    sendError(reply, status, id, error);
    this.refused(req, reply, tenantId);
  }

  /** A decoding / classification failure: its McpError (a 200-status one becomes 400), anything else 500. */
  refuseWire(req: EdgeRequest, reply: EdgeReply, tenantId: string | undefined, err: unknown): void {
    if (err instanceof McpError) return this.refuse(req, reply, err.httpStatus === 200 ? 400 : err.httpStatus, tenantId, err);
    reply.log.error({ err }, 'unexpected error while decoding');
    return this.refuse(req, reply, 500, tenantId, new McpError(ErrorCode.InternalError, 'Internal error'));
  }
}

export function sendError(reply: EdgeReply, status: number, id: JsonRpcId | null, error: McpError): EdgeReply {
  return reply.code(status).header('content-type', 'application/json').send(encodeError(id, error));
}

/** The first value of a request header. */
export function header(req: EdgeRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

import type { IncomingMessage } from 'node:http';
import type { EdgeCall, EdgeLogger } from './edge-call';
import { bundleHandlers } from '@switchboard/catalog';
import { ErrorCode, McpError, encodeError, type JsonRpcId } from '@switchboard/protocol';
import { DEFAULT_NOTIFY_MAX_BYTES_PER_CALL } from './byte-budgets';
import { ClientRequestBroker } from './client-request-broker';
import { RequestDispatcher } from './dispatch-request';
import type { EdgePolicy } from './edge-policy';
import type { McpHttpOptions } from './mcp-http-options';
import type { McpRefusal } from './mcp-observer';
import { StateSealer } from './state-sealer';
import type { StreamEventStore } from './stream-event-store';
import { TaskManager } from './task-manager';
import { MemoryUpstreamTaskIndex } from './upstream-task-index';

const DEFAULT_BODY_LIMIT = 1024 * 1024;
const DEFAULT_CALL_TIMEOUT_MS = 60_000;
/** How long stream stores commonly keep a stream after its last event (the gateway's Redis store: 5 minutes). */
const DEFAULT_STREAM_RETENTION_MS = 5 * 60_000;
/** Batch bounds (issue 18): a 27 KB batch of 500 tools/list once built a 16.8 MB answer. */
export const BATCH_DEFAULTS = { maxItems: 50, maxResponseBytes: 4 * 1024 * 1024 } as const;

/**
 * Everything the steps share, resolved once when the endpoint is built: the policy, the
 * dispatcher, the bounds and the host's logger. Steps are plain functions of one `EdgeCall`
 * (which points here), so a request allocates no closures.
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
  readonly logger: EdgeLogger;
  /** The client address after the host's trusted proxies. */
  readonly clientIp: (raw: IncomingMessage) => string;
  /** Told once each answer finished (the host's access log). */
  readonly onResponse: ((call: EdgeCall) => void) | undefined;
  private readonly onRefusal: ((refusal: McpRefusal) => void) | undefined;

  constructor(options: McpHttpOptions) {
    this.logger = options.logger ?? console;
    this.clientIp = options.clientIp ?? socketAddress;
    this.onResponse = options.onResponse;
    this.policy = options.policy;
    this.sealer = options.sealer ?? StateSealer.ephemeral();
    this.clientRequests = options.clientRequests ?? new ClientRequestBroker(this.sealer);
    this.sessions = options.sessions ?? true;
    const tasks = options.tasks ?? new TaskManager();
    const upstreamTaskIndex = options.upstreamTaskIndex ?? new MemoryUpstreamTaskIndex();
    this.dispatcher = new RequestDispatcher({
      handlers: bundleHandlers(...options.bundles),
      upstream: options.policy.upstream,
      sealer: this.sealer,
      clientRequests: this.clientRequests,
      tasks,
      parkedCalls: options.parkedCalls,
      upstreamTaskIndex,
    });
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
   * authenticate, media type, body limit, scopes, batch bounds) rather than from response
   * hooks, which would cost every request a hook run.
   */
  refused(call: EdgeCall, outcome?: string, status = call.statusCode): void {
    if (!this.onRefusal || status < 400) return;
    this.onRefusal({
      tenantId: call.target?.tenantId,
      httpMethod: call.method,
      route: call.route,
      status,
      startedAt: call.startedAt,
      clientIp: call.ip,
      ...(outcome ? { outcome } : {}),
    });
  }

  /** Answers a JSON-RPC error with `status` and records the refusal. */
  refuse(call: EdgeCall, status: number, error: McpError, id: JsonRpcId | null = null): void {
    sendError(call, status, id, error);
    this.refused(call);
  }

  /** A decoding / classification failure: its McpError (a 200-status one becomes 400), anything else 500. */
  refuseWire(call: EdgeCall, err: unknown): void {
    if (err instanceof McpError) return this.refuse(call, err.httpStatus === 200 ? 400 : err.httpStatus, err);
    call.log.error({ err }, 'unexpected error while decoding');
    return this.refuse(call, 500, new McpError(ErrorCode.InternalError, 'Internal error'));
  }
}

export function sendError(call: EdgeCall, status: number, id: JsonRpcId | null, error: McpError): void {
  call.code(status).setHeader('content-type', 'application/json').send(encodeError(id, error));
}

function socketAddress(raw: IncomingMessage): string {
  return raw.socket.remoteAddress ?? '';
}

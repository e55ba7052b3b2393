import type { IncomingMessage } from 'node:http';
import type { LocalBundle } from '@switchboard/catalog';
import type { EdgeCall, EdgeLogger } from './edge-call';
import type { ClientRequestBroker } from './client-request-broker';
import type { EdgePolicy } from './edge-policy';
import type { ParkedCalls } from './parked-calls';
import type { StateSealer } from './state-sealer';
import type { StreamEventStore } from './stream-event-store';
import type { TaskManager } from './task-manager';
import type { UpstreamTaskIndex } from './upstream-task-index';

export interface McpHttpOptions {
  /** The host application's side of every request (tenant, auth, admission, telemetry, upstream). */
  policy: EdgePolicy;
  /** In-process implementations (`LocalBundle`s) reachable through `{ kind: 'local' }` routes. */
  bundles: readonly LocalBundle[];
  /** Largest accepted POST body in bytes (413 above it). Default 1 MiB. */
  bodyLimit?: number;
  /** Legacy GET event stream: heartbeat interval and bounded lifetime. Defaults 15 s and 5 min. */
  sseHeartbeatMs?: number;
  sseMaxLifetimeMs?: number;
  /** Most members of one JSON-RPC batch; a bigger batch is refused before anything runs. Default 50 (BATCH_DEFAULTS). */
  batchMaxItems?: number;
  /** Most bytes of a batch's combined response; past it the batch stops and answers one error. Default 4 MiB. */
  batchMaxResponseBytes?: number;
  /** Longest a single call may run before it is aborted with a tool error. Default 60 s. */
  callTimeoutMs?: number;
  /**
   * Seals what travels through clients and back to any replica (legacy session ids,
   * server→client request ids, MRTR requestState). Replicas must share its keys; default: a
   * random per-process key (one replica only).
   */
  sealer?: StateSealer;
  /**
   * Routes clients' answers to server→client requests (elicitation, sampling, roots on legacy
   * streams) to the waiting call; default: a per-process broker (one replica only). The
   * gateway gives one with a Redis relay.
   */
  clientRequests?: ClientRequestBroker;
  /**
   * Tasks extension (SEP-2663) for tools with `taskSupport`; default: a per-process manager
   * (one replica only). The gateway gives one whose state lives in Redis.
   */
  tasks?: TaskManager;
  /**
   * Parks modern calls whose upstream asks the client mid-call (a legacy upstream's
   * elicitation becomes `input_required`; the retry resumes the park on its replica).
   * Absent ⇒ such upstream requests are refused as before.
   */
  parkedCalls?: ParkedCalls;
  /**
   * Which caller owns which proxied upstream task, for a 2025-11-25 `tasks/list`; default: a
   * per-process index (one replica only). The gateway gives one in Redis.
   */
  upstreamTaskIndex?: UpstreamTaskIndex;
  /**
   * Stores legacy POST SSE streams' events (sealed ids, priming event) so a client that lost
   * its stream resumes it with `GET` + `Last-Event-ID` on any replica. Absent ⇒ streams are not resumable.
   */
  streamEvents?: StreamEventStore;
  /** The `retry:` hint of resumable streams' priming event, in ms. Default 1000. */
  sseRetryMs?: number;
  /** How long a resumption id (`Last-Event-ID`) is honoured after it is issued, in ms. Default: the call timeout plus 5 minutes. */
  streamResumeTtlMs?: number;
  /** Notification bytes (progress, log) relayed to the client per call; past it they are dropped, with one warning. Default 4 MiB. */
  notifyMaxBytesPerCall?: number;
  /** Issue sealed `Mcp-Session-Id`s at legacy `initialize` (carrying the client's capabilities). Default true. */
  sessions?: boolean;
  /** Where the steps log (pino's shape). Default: the console. */
  logger?: EdgeLogger;
  /** The client address after the host's trusted proxies. Default: the socket's peer address. */
  clientIp?(raw: IncomingMessage): string;
  /** Called once each answer finished (an access log). */
  onResponse?(call: EdgeCall): void;
}

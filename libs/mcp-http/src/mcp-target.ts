import type { CompiledCatalog, Route, ToolCallResult, ReadResourceResult, GetPromptResult, LocalBundle, TenantLimits, ToolDiscovery } from '@switchboard/catalog';
import type { RequestContext, SurfaceProfile, TenantSurfaceRules } from '@switchboard/protocol';
import type { ClientRequestBroker } from './client-request-broker';
import type { StateSealer } from './state-sealer';
import type { TaskManager } from './task-manager';

/** Everything the transport needs to serve one tenant's endpoint. Swapped atomically when a catalog changes. */
export interface McpTarget {
  tenantId: string;
  catalog: CompiledCatalog;
  surfaceRules?: TenantSurfaceRules;
  surfaces: Record<string, SurfaceProfile>;
  /** Browser origins allowed to call (exact `scheme://host[:port]`); a request with another Origin gets 403. */
  allowedOrigins: readonly string[];
  /** Host header allow-list (DNS-rebinding protection); empty = any host. */
  allowedHosts: readonly string[];
  /** This tenant's overrides of the transport's bounds (absent ⇒ the McpHttpOptions defaults). */
  limits?: TenantLimits;
  /** Extensions the tenant's settings declare in `server/discover` capabilities (e.g. enterprise-managed authorization), by identifier. */
  extensions?: Readonly<Record<string, object>>;
  /** Progressive discovery (absent ⇒ every surface serves its full tools/list): built with `catalog`, from it alone. */
  discovery?: ToolDiscovery;
}

/** Context handed to a route invoker for one call. */
export interface InvokeContext {
  tenantId: string;
  request: RequestContext;
  signal: AbortSignal;
  progress(progress: number, total?: number, message?: string): void;
  log(level: import('@switchboard/protocol').LogLevel, data: unknown, logger?: string): void;
  /** Relays an upstream's `notifications/resources/updated` for `uri` to this call's client (on its response stream). */
  resourceUpdated?(uri: string): void;
  /** Whether `progress` / `log` still reach the client (false once the call's notification budget is spent): an upstream's need not be parsed. */
  relaying?(): boolean;
  /** The verified caller on a protected tenant (its token is only for exchanges with our own auth service, never forwarded). */
  auth?: AuthGranted;
  /**
   * Relays one server→client request (an upstream's `elicitation/create`, `sampling/createMessage`,
   * `roots/list`) to this call's client and resolves with its result; present only when the
   * client can answer (a legacy client whose session declared `clientCapabilities`).
   * @throws Error naming why the client could not answer.
   */
  askClient?(method: string, params: Record<string, unknown>): Promise<unknown>;
  /** A modern call's MRTR retry fields (`inputResponses`, the upstream's own `requestState`), for a 2026-07-28 upstream. */
  input?: { responses: Record<string, unknown>; requestState?: string };
}

/**
 * Calls a non-local route (a tenant's upstream MCP server). The gateway implements this
 * with the official SDK client; built-in servers that only have local handlers omit it.
 */
export interface UpstreamInvoker {
  callTool(route: Extract<Route, { kind: 'upstream' }>, args: Record<string, unknown>, ctx: InvokeContext): Promise<ToolCallResult>;
  readResource(route: Extract<Route, { kind: 'upstream' }>, uri: string, ctx: InvokeContext): Promise<ReadResourceResult>;
  getPrompt(route: Extract<Route, { kind: 'upstream' }>, args: Record<string, string>, ctx: InvokeContext): Promise<GetPromptResult>;
  /** `completion/complete` for the route's prompt or resource template (`ref` names the upstream's own). Absent ⇒ empty completions. */
  complete?(route: Extract<Route, { kind: 'upstream' }>, request: UpstreamCompletion, ctx: InvokeContext): Promise<unknown>;
  /**
   * One request about an upstream's own task (2025-11-25 tasks utility, or the 2026-07-28 tasks extension): a `tools/call` or
   * `tasks/get` / `tasks/result` / `tasks/update` / `tasks/cancel`, on the upstream session that created the
   * task. Absent ⇒ upstream tasks are not proxied.
   * @throws McpError for a JSON-RPC error (the upstream's, or the gateway's refusal).
   */
  upstreamTask?(route: Extract<Route, { kind: 'upstream' }>, request: UpstreamTaskRequest, ctx: InvokeContext): Promise<UpstreamTaskAnswer>;
  /**
   * Server→client requests (by key) a 2025-11-25 upstream sent on the caller's own task
   * `session` that wait for a 2026-07-28 client's answer; absent ⇒ such input is not relayed.
   */
  pendingTaskInput?(route: Extract<Route, { kind: 'upstream' }>, session: string, ctx: InvokeContext): Promise<Record<string, { method: string; params: Record<string, unknown> }>>;
  /** The client's `inputResponses` to those requests, passed to the upstream; answers the keys taken. */
  answerTaskInput?(route: Extract<Route, { kind: 'upstream' }>, session: string, responses: Record<string, unknown>, ctx: InvokeContext): Promise<string[]>;
  /** Forwards a legacy caller's `logging/setLevel` to a stateful upstream's session for this caller; absent ⇒ answered locally only. */
  setLogLevel?(route: Extract<Route, { kind: 'upstream' }>, level: string, ctx: InvokeContext): Promise<void>;
  /** Forwards a legacy caller's `resources/subscribe` (`on`) / `unsubscribe` to the upstream owning `uri`; absent ⇒ acknowledged locally only. */
  subscribeResource?(route: Extract<Route, { kind: 'upstream' }>, uri: string, on: boolean, ctx: InvokeContext): Promise<void>;
}

/** One `completion/complete` as the upstream receives it: its own prompt name or URI template in `ref`. */
export interface UpstreamCompletion {
  ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };
  argument: { name: string; value: string };
  context?: { arguments: Record<string, string> };
}

/** See {@link UpstreamInvoker.upstreamTask}; `params` as the upstream gets them (its tool name, its task id). */
export interface UpstreamTaskRequest {
  method: 'tools/call' | 'tasks/get' | 'tasks/result' | 'tasks/cancel' | 'tasks/update';
  params: Record<string, unknown>;
  /** The upstream session that created the task; absent for the `tools/call` that creates it. */
  session?: string;
}

export interface UpstreamTaskAnswer {
  result: Record<string, unknown>;
  /** The upstream session the request went on (sealed into the task handle at creation). */
  session: string | undefined;
}

/**
 * What the edge asks of its host application, in the order a request meets it: which tenant
 * a request is for, who the caller is, whether the caller may run a tool, whether the request
 * is admitted (rate limits, quotas), how it is observed (spans, metrics), and how non-local
 * routes are called. One object, so a transport step never reaches for a loose hook.
 */
export interface EdgePolicy {
  /** Finds the target of a request from its path params / Host; undefined ⇒ 404 with a JSON-RPC error body. */
  resolveTarget(params: Record<string, string | undefined>, host: string | undefined): McpTarget | undefined;
  /** Bearer-token check, run after the Host/Origin guard on every method; absent ⇒ the endpoint is open. */
  authenticate?(req: import('./edge-http').EdgeRequest, target: McpTarget): AuthOutcome | Promise<AuthOutcome>;
  /** Per-tool check (e.g. OAuth scopes) before a tools/call runs; a denial is sent instead of calling the tool. */
  authorizeTool?(target: McpTarget, tool: string, auth: AuthGranted): AuthDenied | undefined;
  /**
   * Admission of each classified JSON-RPC request (rate limits, quotas), before it runs: a
   * refusal's error is the answer (its `httpStatus`), its headers are set on the response.
   */
  admit?(req: import('./edge-http').EdgeRequest, target: McpTarget, request: AdmitRequest): AdmitRefusal | undefined | Promise<AdmitRefusal | undefined>;
  /** Tracing/metrics hook (the gateway supplies an OpenTelemetry one); the transport itself imports no telemetry. */
  observe?: McpObserver;
  /** Calls non-local routes (a tenant's upstream MCP servers); built-in servers with only local handlers omit it. */
  upstream?: UpstreamInvoker;
}

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
  parkedCalls?: import('./parked-calls').ParkedCalls;
  /**
   * Which caller owns which proxied upstream task, for a 2025-11-25 `tasks/list`; default: a
   * per-process index (one replica only). The gateway gives one in Redis.
   */
  upstreamTaskIndex?: import('./upstream-task-index').UpstreamTaskIndex;
  /**
   * Stores legacy POST SSE streams' events (sealed ids, priming event) so a client that lost
   * its stream resumes it with `GET` + `Last-Event-ID` on any replica. Absent ⇒ streams are not resumable.
   */
  streamEvents?: import('./stream-event-store').StreamEventStore;
  /** The `retry:` hint of resumable streams' priming event, in ms. Default 1000. */
  sseRetryMs?: number;
  /** How long a resumption id (`Last-Event-ID`) is honoured after it is issued, in ms. Default: the call timeout plus 5 minutes. */
  streamResumeTtlMs?: number;
  /** Notification bytes (progress, log) relayed to the client per call; past it they are dropped, with one warning. Default 4 MiB. */
  notifyMaxBytesPerCall?: number;
  /** Issue sealed `Mcp-Session-Id`s at legacy `initialize` (carrying the client's capabilities). Default true. */
  sessions?: boolean;
}

/** One request as admission sees it. */
export interface AdmitRequest {
  message: import('@switchboard/protocol').JsonRpcRequest;
  era: 'legacy' | 'modern';
  auth: AuthGranted | undefined;
  /** What the request targets in the catalog (looked up once per request; see `CalledTarget`). */
  called: import('./called-target').CalledTarget;
}

/** A refused request: the wire error to answer with and response headers (e.g. `Retry-After`). */
export interface AdmitRefusal {
  error: import('@switchboard/protocol').McpError;
  headers: Record<string, string>;
}

/** A request the `authenticate` hook accepted: the verified OAuth client and its scopes. */
export interface AuthGranted {
  ok: true;
  clientId?: string;
  subject?: string;
  scopes: readonly string[];
  /** The verified bearer token: exchanged at the auth service for an upstream's per-user token, never sent upstream. */
  token?: string;
}

/** A refusal the transport sends as is (e.g. 401/403 with `WWW-Authenticate`). */
export interface AuthDenied {
  ok: false;
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type AuthOutcome = AuthGranted | AuthDenied;

/** What the transport knows when a JSON-RPC request of a known tenant starts. */
export interface McpRequestInfo {
  tenantId: string;
  method: string;
  /** tools/call and prompts/get: the name, only when the catalog knows it (keeps labels bounded). */
  name: string | undefined;
  /** What a call / get / read targets in the catalog (server id, and the name or resource URI it knows). */
  called: import('./called-target').CalledTarget;
  headers: Record<string, string | string[] | undefined>;
  /** The verified caller on a protected tenant. */
  auth?: AuthGranted;
  /** The client address (Fastify's `req.ip`, i.e. after the trusted proxies). */
  clientIp?: string;
  /** The request's params (usage metering reads `arguments` only for tenants that opted in). */
  params?: import('@switchboard/protocol').JsonObject;
  /** Size of the POSTed body (a whole batch for batch members). */
  bytesIn?: number;
  /** The JSON-RPC `id` of the request. */
  requestId?: import('@switchboard/protocol').JsonRpcId;
}

/** One observed request: told what the transport learns, and when it ends. */
export interface McpRequestObservation {
  /** Era, protocol version and surface, once classified. */
  classified(info: { era: string; protocolVersion: string; surfaceId: string }): void;
  /** A tools/call answered with `isError: true`. */
  toolFailed(): void;
  /** Runs the dispatch (so work done for the request, such as upstream calls, is attributed to it). */
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** The answer: `errorCode` is the JSON-RPC error code when it was an error; `body` the encoded response and `bytes` its length on the wire. */
  end(result: { errorCode: number | undefined; httpStatus: number; body?: import('./encoded-answer').EncodedAnswer; bytes: number }): void;
}

/** Called once per JSON-RPC request (each member of a batch too) that reached a tenant. */
export interface McpObserver {
  onRequest(info: McpRequestInfo): McpRequestObservation;
  /**
   * An HTTP request to an MCP route answered 4xx/5xx without any JSON-RPC request being
   * observed (unknown tenant, Host/Origin, 401/403 from `authenticate`, 413, 415, 406, parse
   * errors, scope denials, batch bounds), so refusals are never invisible.
   */
  onRefusal?(info: McpRefusal): void;
}

/** A refused MCP HTTP request (see {@link McpObserver.onRefusal}). */
export interface McpRefusal {
  /** The resolved tenant; undefined when the endpoint is unknown. */
  tenantId: string | undefined;
  httpMethod: string;
  /** The route template (`/t/:tenant/mcp`). */
  route: string;
  status: number;
  /** `performance.now()` when the request arrived. */
  startedAt: number;
  clientIp?: string;
  /** A more precise reason than the status (e.g. `insufficient_scope`). */
  outcome?: string;
}

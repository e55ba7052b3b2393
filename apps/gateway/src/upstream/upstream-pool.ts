import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError as SdkMcpError } from '@modelcontextprotocol/sdk/types.js';
import type { GetPromptResult, ReadResourceResult, Route, TenantLimits, ToolCallResult } from '@switchboard/catalog';
import type { InvokeContext, UpstreamCompletion, UpstreamTaskAnswer, UpstreamTaskRequest } from '@switchboard/mcp-http';
import { injectTraceContext } from '@switchboard/telemetry';
import { limitResponseBytes, type GuardedFetch } from '@switchboard/net-guard';
import { ErrorCode, McpError } from '@switchboard/protocol';
import { connectUpstream, upstreamDispatcher, UpstreamResponseBrokenError, type RelayedMethod, type UpstreamCallOptions, type UpstreamConnection, type UpstreamDispatcher as Dispatcher } from '@switchboard/upstream-client';
import type { Logger } from 'pino';
import { CallerSessions, callerScope, type CallerSession } from './caller-sessions';
import { GatewayError } from './gateway-errors';
import { inboxOwner, TaskInputInbox, type TaskInputRequest, type TaskInputShare } from './task-input-inbox';
import type { NotificationPacer } from './notification-pacer';
import { relayNotifications, type Notify } from './relay-notifications';
import type { SharedUpstreamSession, UpstreamSessions } from './upstream-sessions';
import { classifyCallFailure, countsAgainstUpstream, summarize, upstreamError, type CallFailureKind } from './call-failure';
import { GuardRefusedError, UpstreamGuards, type BreakerSettings } from './upstream-guards';

export type UpstreamRoute = Extract<Route, { kind: 'upstream' }>;

export interface UpstreamPoolOptions {
  /** Shares held task input between replicas (see {@link TaskInputInbox}); absent ⇒ this replica's own only. */
  taskInputShare?: TaskInputShare;
  timeoutMs: number;
  /** In-flight calls per (tenant, upstream) in this replica. */
  maxConcurrency: number;
  /** Calls that may wait for one of an upstream's slots; beyond it a call is refused at once. Default: maxConcurrency. */
  maxQueue?: number;
  /** Largest upstream response body / server-sent event in bytes (tenant override: `limits.upstreamResponseBytes`). */
  maxResponseBytes: number;
  /** Largest event-stream answer to one call in total bytes (UPSTREAM_CALL_STREAM_MAX_BYTES); absent ⇒ unbounded beyond the per-event bound. */
  maxStreamBytes?: number;
  /** Upstream calls one tenant may have in flight (or waiting) in this replica (tenant override: `limits.maxInflight`). */
  tenantMaxInflight: number;
  /** A tenant's limit overrides (its tenant document's `limits`). */
  limitsOf?: (tenantId: string) => TenantLimits | undefined;
  logger: Logger;
  /** Per-upstream circuit breaker settings (default: 5 failures, 10 s open). */
  breaker?: BreakerSettings;
  /**
   * Makes the fetch for one tenant's upstream HTTP (the SSRF-guarded one for tenant-registered
   * upstreams): called once per tenant, so each tenant has its own keep-alive connection pool.
   * Unset: the global fetch, which the SDK lets follow same-origin redirects only.
   */
  fetchFactory?: () => GuardedFetch;
  /** Open upstream connections kept per replica (default 5000): past it the least recently used idle ones close. */
  maxConnections?: number;
  /**
   * Makes one tenant's keep-alive pool for direct requests (the SSRF-guarded one — guarded
   * lookup — for tenant-registered upstreams); called once per tenant. Unset: an unguarded pool.
   */
  dispatcherFactory?: () => Dispatcher;
  /**
   * Legacy Streamable HTTP calls (`tools/call`, `resources/read`, `prompts/get`) as direct
   * requests on the SDK client's session instead of through the SDK client (default true).
   */
  directRequests?: boolean;
  /**
   * Shares stateful upstreams' sessions between replicas (legacy Streamable HTTP): a replica
   * joins the session another opened for the same connection key instead of opening its own.
   * Unset: each replica has its own sessions.
   */
  sessions?: UpstreamSessions;
  /** Each tenant's share of the notification bytes its upstreams stream (unset: unmetered). */
  notificationPacer?: NotificationPacer;
}

/** What a request's fetches need to know about the call that made them (carried by AsyncLocalStorage through the SDK). */
interface CallScope {
  maxBytes: number;
  /** Largest event-stream answer in total (the connection's own scope has none: its legacy SSE stream is shared by calls). */
  maxStreamBytes?: number;
  /** Relays an upstream's server→client request to this call's client (legacy clients that declared the capability). */
  askClient?: InvokeContext['askClient'];
  /** Fails the call at once with the cause (an oversized or broken response) instead of waiting for its timeout. */
  fail(err: Error): void;
  /**
   * The call's own signal (its client's cancellation, its timeout, its failure), given to the
   * call's fetches instead of the SDK transport's one long-lived signal: every fetch leaves an
   * abort listener on the signal it was given until the request is garbage-collected, and adding
   * one walks all of them, so on the shared signal each call cost more than the last.
   */
  signal?: AbortSignal;
}

interface Connection {
  ready: Promise<UpstreamConnection>;
  /** Abort controllers of the calls in flight on this connection (failed together when a shared stream breaks). */
  calls: Set<AbortController>;
  /** Where each call in flight takes the upstream session's own notifications. */
  notifiers: Map<AbortController, Notify>;
  /** Set when the gateway closed this connection itself (a call then failing with "Connection closed" is ours). */
  closedByGateway?: boolean;
  /** Set when the connection is one caller's own (its client declared roots): see {@link CallerSessions}. */
  caller?: CallerSession;
  /** The inbox owner of a 2026-07-28 caller's own session, less the session id (see {@link TaskInputInbox}). */
  inbox?: string;
}

/** Client capabilities the gateway relays to upstreams (their requests go to the caller's client). */
const RELAYED: Record<string, RelayedMethod> = { elicitation: 'elicitation/create', roots: 'roots/list', sampling: 'sampling/createMessage' };

/** The relayable requests a client declared the capabilities for, in a stable order (part of the connection key). */
function relayedRequests(capabilities: Record<string, unknown> | undefined): RelayedMethod[] {
  if (!capabilities) return [];
  return Object.keys(RELAYED)
    .filter((c) => Object.hasOwn(capabilities, c))
    .map((c) => RELAYED[c]!);
}

type ElicitationModes = { form?: object; url?: object };

/**
 * The elicitation modes a client declared, as the upstream session declares them: `{}` alone
 * means form (2025-06-18 and before); an object with neither key is read the same way.
 */
function elicitationModes(capabilities: Record<string, unknown> | undefined): ElicitationModes {
  const e = capabilities?.elicitation;
  const declared = typeof e === 'object' && e !== null ? (e as Record<string, unknown>) : {};
  const url = Object.hasOwn(declared, 'url');
  const form = Object.hasOwn(declared, 'form') || !url;
  return { ...(form ? { form: {} } : {}), ...(url ? { url: {} } : {}) };
}

/**
 * A 2026-07-28 caller's MRTR retry of a call that may become a 2026-07-28 upstream's task: its
 * `inputResponses` and the upstream's own `requestState` go back upstream, as in `callTool`.
 */
function modernRetry(route: UpstreamRoute, request: UpstreamTaskRequest, ctx: InvokeContext): Record<string, unknown> {
  if (route.protocol !== 'modern' || request.method !== 'tools/call' || ctx.request.era !== 'modern' || !ctx.input) return {};
  return {
    ...(Object.keys(ctx.input.responses).length > 0 ? { inputResponses: ctx.input.responses } : {}),
    ...(ctx.input.requestState !== undefined ? { requestState: ctx.input.requestState } : {}),
  };
}

/** Open upstream connections per replica before idle ones are closed (least recently used first). */
const DEFAULT_MAX_CONNECTIONS = 5_000;
/** Connections looked at per eviction (busy ones are skipped), so a full table never costs a long scan. */
const EVICTION_SCAN = 64;

/**
 * Calls tenants' upstream MCP servers through `@switchboard/upstream-client`: a pure
 * transport (credentials are already on the route; failures are thrown as coded
 * {@link GatewayError}s). Everything per upstream is per tenant — connection, breaker,
 * concurrency cap, keep-alive pool — keyed `(tenant, server, url)`, so two tenants registering
 * the same URL share nothing. A stateless upstream is initialised once and then called
 * directly; a stateful one keeps its session and is re-initialised when the upstream answers
 * 404 (session expired). Every call has a timeout, a response byte bound (counted while
 * streaming), a place under its tenant's in-flight cap and its upstream's cap with a bounded
 * queue (over ⇒ refused at once). Only the route's own headers (minus forbidden
 * framing/protocol headers) are sent — never the client's token.
 */
export class UpstreamPool {
  private readonly connections = new Map<string, Connection>();
  private readonly guards: UpstreamGuards;
  private readonly tenantInflight = new Map<string, number>();
  private readonly fetches = new Map<string, GuardedFetch>();
  private readonly dispatchers = new Map<string, Dispatcher>();
  private readonly scope = new AsyncLocalStorage<CallScope>();
  private readonly callers = new CallerSessions((key) => void this.drop(key));
  /** Task input a 2025-11-25 upstream asks a polling 2026-07-28 caller for (see {@link TaskInputInbox}). */
  readonly taskInputs: TaskInputInbox;

  constructor(private readonly options: UpstreamPoolOptions) {
    this.guards = new UpstreamGuards(options.breaker ?? { failureThreshold: 5, openMs: 10_000 });
    this.taskInputs = new TaskInputInbox(undefined, undefined, undefined, options.taskInputShare);
  }

  async callTool(route: UpstreamRoute, args: Record<string, unknown>, ctx: InvokeContext): Promise<ToolCallResult> {
    // A 2026-07-28 caller and upstream: the upstream's input_required goes back to the caller as
    // is (stateless: the caller's retry carries inputResponses / requestState back upstream).
    const passThrough = route.protocol === 'modern' && ctx.request.era === 'modern';
    const retry: Record<string, unknown> = {};
    if (passThrough && ctx.input && Object.keys(ctx.input.responses).length > 0) retry.inputResponses = ctx.input.responses;
    if (passThrough && ctx.input?.requestState !== undefined) retry.requestState = ctx.input.requestState;
    return (await this.withClient(route, ctx, (conn, opts) =>
      conn.callTool(traced(conn, { name: route.upstreamName, arguments: args, ...retry }), {
        ...opts,
        ...(passThrough ? { allowInputRequired: true } : {}),
        // Only a caller that asked for progress has the upstream send it.
        ...(ctx.request.progressToken !== undefined ? { onprogress: (p: { progress: number; total?: number; message?: string }) => ctx.progress(p.progress, p.total, p.message) } : {}),
      }),
    )) as ToolCallResult;
  }

  async readResource(route: UpstreamRoute, uri: string, ctx: InvokeContext): Promise<ReadResourceResult> {
    // On the connection (upstream session) this caller's tool calls use: a session resource a
    // call created lives only there, though the read itself asks the client nothing.
    return (await this.withClient(route, ctx, (conn, opts) => conn.readResource(traced(conn, { uri }), opts), true)) as ReadResourceResult;
  }

  async getPrompt(route: UpstreamRoute, args: Record<string, string>, ctx: InvokeContext): Promise<GetPromptResult> {
    return (await this.withClient(route, ctx, (conn, opts) => conn.getPrompt(traced(conn, { name: route.upstreamName, arguments: args }), opts))) as GetPromptResult;
  }

  async complete(route: UpstreamRoute, request: UpstreamCompletion, ctx: InvokeContext): Promise<unknown> {
    return this.withClient(route, ctx, (conn, opts) => conn.complete(traced(conn, { ...request }), opts));
  }

  /**
   * One request about an upstream's own task (2025-11-25 tasks utility): sent on `session`
   * when given (the session that created the task, possibly another replica's), else on this
   * replica's connection; answers the upstream's result and the session it went on.
   */
  async upstreamTask(route: UpstreamRoute, request: UpstreamTaskRequest, ctx: InvokeContext): Promise<UpstreamTaskAnswer> {
    return this.withClient(route, ctx, async (conn, opts) => {
      try {
        const result = await conn.taskRequest(request.method, traced(conn, { ...request.params, ...modernRetry(route, request, ctx) }), request.session, opts);
        return { result, session: request.session ?? conn.sessionId() };
      } catch (err) {
        // The task's session is gone (the upstream restarted or expired it), and its tasks with
        // it: the caller's task is not found. Not the 404 that re-initialises a connection, which
        // a stale handle must not make every caller of this upstream pay for.
        if (request.session !== undefined && err instanceof StreamableHTTPError && err.code === 404) {
          throw new SdkMcpError(ErrorCode.InvalidParams, 'Task not found: the upstream session that held it has ended');
        }
        throw err;
      }
      // A 2026-07-28 caller's task runs on a session of its own that declares what its client can
      // answer: the upstream's questions then wait for its tasks/update (see pendingTaskInput).
    }, ctx.request.era === 'modern', true);
  }

  /** Requests the upstream sent on the caller's own `session` that wait for its 2026-07-28 client's answer. */
  pendingTaskInput(route: UpstreamRoute, session: string, ctx: InvokeContext): Promise<Record<string, TaskInputRequest>> {
    return this.taskInputs.list(inboxOwner(ctx.tenantId, route.serverId, callerScope(ctx), session));
  }

  /** The client's `inputResponses` to those requests, passed to the upstream; answers the keys taken. */
  answerTaskInput(route: UpstreamRoute, session: string, responses: Record<string, unknown>, ctx: InvokeContext): Promise<string[]> {
    return this.taskInputs.answer(inboxOwner(ctx.tenantId, route.serverId, callerScope(ctx), session), responses);
  }

  /**
   * A legacy caller's `logging/setLevel`, on the upstream session its calls use (the same
   * connection key as its reads): a stateful upstream then filters what it sends that session.
   */
  async setLogLevel(route: UpstreamRoute, level: string, ctx: InvokeContext): Promise<void> {
    await this.withClient(route, ctx, (conn, opts) => conn.setLoggingLevel(level, opts), true);
  }

  /** A legacy caller's `resources/subscribe` / `unsubscribe` of an upstream's resource, on the session its calls use. */
  async subscribeResource(route: UpstreamRoute, uri: string, on: boolean, ctx: InvokeContext): Promise<void> {
    await this.withClient(route, ctx, (conn, opts) => conn.subscribeResource(uri, on, opts), true);
  }

  /** Circuit state of a tenant's upstream (`closed` before its first call); read by the upstream metrics. */
  circuitState(route: UpstreamRoute, tenantId: string): 'closed' | 'open' | 'half-open' {
    return this.guards.state(upstreamKey(tenantId, route));
  }

  /** Upstream connections open in this replica (bounded by `maxConnections`). */
  connectionCount(): number {
    return this.connections.size;
  }

  /** Upstream calls a tenant has in flight (or waiting) in this replica. */
  inflightOf(tenantId: string): number {
    return this.tenantInflight.get(tenantId) ?? 0;
  }

  async close(): Promise<void> {
    const keys = [...this.connections.keys()];
    await Promise.all(keys.map((k) => this.drop(k)));
    const dispatchers = [...this.dispatchers.values()];
    this.dispatchers.clear();
    await Promise.all(dispatchers.map((d) => d.close().catch(() => undefined)));
    await this.options.sessions?.close();
    this.taskInputs.close();
  }

  private limitsFor(tenantId: string): { maxBytes: number; maxInflight: number } {
    const own = this.options.limitsOf?.(tenantId);
    return {
      maxBytes: own?.upstreamResponseBytes ?? this.options.maxResponseBytes,
      maxInflight: own?.maxInflight ?? this.options.tenantMaxInflight,
    };
  }

  /** The tenant's own fetch: its keep-alive pool, every body counted against the calling scope's byte limit. */
  private fetchFor(tenantId: string): GuardedFetch {
    let f = this.fetches.get(tenantId);
    if (!f) {
      const inner: GuardedFetch = this.options.fetchFactory?.() ?? ((url, init) => fetch(url, init));
      // Outside a call (the handshake, the standalone GET stream) the transport's signal stays.
      const base: GuardedFetch = (url, init) => {
        const signal = this.scope.getStore()?.signal;
        return inner(url, signal && init ? { ...init, signal } : init);
      };
      f = limitResponseBytes(base, () => {
        const scope = this.scope.getStore();
        return {
          maxBytes: scope?.maxBytes ?? this.limitsFor(tenantId).maxBytes,
          ...(scope?.maxStreamBytes === undefined ? {} : { maxStreamBytes: scope.maxStreamBytes }),
          onExceeded: (err) => scope?.fail(err),
          // A body broken by the call's own abort (timeout, cancellation) is that abort, not a broken upstream.
          onBroken: (err) => {
            if (!scope?.signal?.aborted) scope?.fail(new UpstreamResponseBrokenError(`the response broke off mid-way (${summarize(err as Error)})`, { cause: err }));
          },
        };
      });
      this.fetches.set(tenantId, f);
    }
    return f;
  }

  /** The tenant's own keep-alive pool for direct requests (undefined: direct requests are off). */
  private dispatcherFor(tenantId: string): Dispatcher | undefined {
    if (this.options.directRequests === false) return undefined;
    let d = this.dispatchers.get(tenantId);
    if (!d) {
      d = this.options.dispatcherFactory?.() ?? upstreamDispatcher();
      this.dispatchers.set(tenantId, d);
    }
    return d;
  }

  private async withClient<T>(
    route: UpstreamRoute,
    ctx: InvokeContext,
    fn: (conn: UpstreamConnection, opts: UpstreamCallOptions) => Promise<T>,
    callersSession = false,
    taskCall = false,
  ): Promise<T> {
    const tenantId = ctx.tenantId;
    const limits = this.limitsFor(tenantId);
    // Fair share first: a tenant over its in-flight cap is refused before it touches any upstream state.
    const inflight = this.tenantInflight.get(tenantId) ?? 0;
    if (inflight >= limits.maxInflight) {
      throw new GatewayError(
        'GW_TENANT_INFLIGHT_LIMIT',
        `The gateway refused this call to ${route.serverId}: tenant ${tenantId} already has ${inflight} upstream calls in flight in this gateway (limit limits.maxInflight = ${limits.maxInflight}); retry later`,
        { upstream: route.serverId, limit: 'maxInflight', max: limits.maxInflight },
      );
    }
    this.tenantInflight.set(tenantId, inflight + 1);
    const timeoutMs = route.timeoutMs ?? this.options.timeoutMs;
    const maxConcurrency = route.maxConcurrency ?? this.options.maxConcurrency;
    const maxQueue = this.options.maxQueue ?? maxConcurrency;
    // One controller per call for its three ends — the client's cancellation, the timeout, a
    // failure found while reading (oversized, broken) — instead of AbortSignal.timeout + any():
    // both allocate and register listeners per call, which showed on the proxied hot path.
    const abort = new AbortController();
    let failure: { reason: unknown } | undefined;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      abort.abort(new DOMException(`The operation was aborted due to timeout (${timeoutMs} ms)`, 'TimeoutError'));
    }, timeoutMs);
    timer.unref();
    const onClientAbort = (): void => abort.abort(ctx.signal.reason);
    if (ctx.signal.aborted) onClientAbort();
    else ctx.signal.addEventListener('abort', onClientAbort, { once: true });
    const fail = (err: unknown): void => {
      if (abort.signal.aborted) return;
      failure = { reason: err };
      abort.abort(err);
    };
    const signal = abort.signal;
    let conn: Connection | undefined;
    // The SDK rejects an aborted request with its own timeout error carrying the reason as text:
    // the abort's reason (an oversized or broken response) is the real cause.
    const kindOf = (err: unknown): { kind: CallFailureKind; cause: unknown } => {
      const cause: unknown = failure ? failure.reason : err;
      const kind = timedOut && !failure ? 'timeout' : classifyCallFailure(cause, ctx.signal.aborted && !timedOut);
      return { kind: kind === 'closed' && conn?.closedByGateway ? 'gateway' : kind, cause };
    };
    const call = async (): Promise<T> => {
      // Connections are keyed by credential too, so a rotated credential opens a fresh one, and by the
      // client capabilities relayed upstream: each connection declares exactly what its callers' clients answer.
      const relay = ctx.askClient || callersSession ? relayedRequests(ctx.request.clientCapabilities) : [];
      const modes = relay.includes('elicitation/create') ? elicitationModes(ctx.request.clientCapabilities) : undefined;
      const base = keysOf(tenantId, route).connection;
      let connKey = relay.length > 0 ? `${base} relay:${relay.join(',')}${modes ? `:${Object.keys(modes).join('+')}` : ''}` : base;
      // An upstream asks roots/list on its session, outside any call — and a task's input on a
      // stream it relates to no call of ours: a caller whose client has roots, or who runs an
      // upstream task and can be asked, gets a session of its own, so such a question is its.
      const ownSession = relay.includes('roots/list') || (taskCall && relay.length > 0);
      if (ownSession) connKey += ` caller:${callerScope(ctx)}`;
      // A 2026-07-28 caller's own session holds the upstream's questions for its tasks/update
      // (no call of such a client can be asked); a legacy caller's is answered -32601 instead.
      const inbox = ownSession && ctx.request.era === 'modern';
      if (inbox) connKey += ' inbox';
      // One relay per call (one bound) for notifications on its own stream and its session's.
      const notify = relayNotifications(ctx);
      const opts: UpstreamCallOptions = { timeout: timeoutMs, maxTotalTimeout: timeoutMs, signal, maxBytes: limits.maxBytes, onnotification: notify };
      if (this.options.maxStreamBytes !== undefined) opts.maxStreamBytes = this.options.maxStreamBytes;
      if (ctx.relaying) opts.relaying = ctx.relaying;
      if (this.options.notificationPacer) opts.pace = this.options.notificationPacer.forTenant(tenantId);
      const scope: CallScope = { maxBytes: limits.maxBytes, fail, signal, ...(ctx.askClient ? { askClient: ctx.askClient } : {}) };
      if (this.options.maxStreamBytes !== undefined) scope.maxStreamBytes = this.options.maxStreamBytes;
      let client: UpstreamConnection | undefined;
      const attempt = async (): Promise<T> => {
        const c = (conn = this.connection(connKey, route, tenantId, limits.maxBytes, relay, modes, ownSession ? callerScope(ctx) : undefined, inbox));
        const ready = await c.ready;
        client = ready;
        c.calls.add(abort);
        c.notifiers.set(abort, notify);
        if (c.caller) this.callers.begin(connKey, c.caller, abort, ctx.askClient);
        try {
          return await this.scope.run(scope, () => fn(ready, opts));
        } finally {
          c.calls.delete(abort);
          c.notifiers.delete(abort);
          if (c.caller) this.callers.end(connKey, c.caller, abort, c.calls.size);
        }
      };
      try {
        try {
          return await attempt();
        } catch (err) {
          if (!sessionExpired(err)) throw err;
          // A stateful upstream forgot our session (restart, expiry): initialise again and retry once.
          void this.drop(connKey);
          const forgotten = client?.sessionId();
          if (forgotten !== undefined) await this.options.sessions?.forget(connKey, forgotten);
          return await attempt();
        }
      } catch (err) {
        const { kind } = kindOf(err);
        // Only a dead client is dropped: a failed request on a live connection leaves the others' calls alone.
        if (kind === 'closed' || (route.transport === 'sse' && (kind === 'broken' || kind === 'network'))) void this.drop(connKey);
        throw err;
      }
    };
    try {
      return await this.guards.run(upstreamKey(tenantId, route), { maxConcurrency, maxQueue }, signal, call, (err) => {
        const { kind } = kindOf(err);
        return countsAgainstUpstream(kind) ? 'failure' : kind === 'answer' ? 'success' : 'neutral';
      });
    } catch (err) {
      if (err instanceof GuardRefusedError) throw this.refusal(err, route, ctx, timedOut, timeoutMs, maxConcurrency, maxQueue);
      const { kind, cause } = kindOf(err);
      // The call's fetches carry its own signal, not the transport's: a call failed without an
      // abort (its connection closed) must still end its request instead of leaving it to the timeout.
      if (!abort.signal.aborted) abort.abort(cause);
      if (kind === 'gateway' && !(cause instanceof GatewayError)) {
        throw new GatewayError('GW_CONNECTION_CLOSED', `The gateway closed its connection to ${route.serverId} while the call was in flight (shutdown or a replaced credential); retry`, { upstream: route.serverId }, { cause });
      }
      if (kind === 'network') this.options.logger.warn({ upstream: route.serverId, err: (cause as Error)?.message }, 'upstream call failed');
      throw upstreamError(kind, cause, route.serverId, timeoutMs);
    } finally {
      clearTimeout(timer);
      ctx.signal.removeEventListener('abort', onClientAbort);
      const n = (this.tenantInflight.get(tenantId) ?? 1) - 1;
      if (n <= 0) this.tenantInflight.delete(tenantId);
      else this.tenantInflight.set(tenantId, n);
    }
  }

  private refusal(err: GuardRefusedError, route: UpstreamRoute, ctx: InvokeContext, timedOut: boolean, timeoutMs: number, maxConcurrency: number, maxQueue: number): GatewayError {
    const upstream = route.serverId;
    const r = err.refusal;
    if (r.kind === 'circuit-open') {
      return new GatewayError('GW_CIRCUIT_OPEN', `Upstream server ${upstream} is temporarily unavailable (circuit open after repeated failures; retrying in ${Math.ceil(r.retryInMs / 1000)} s)`, { upstream, retryInMs: r.retryInMs });
    }
    if (r.kind === 'queue-full') {
      const msg = `too many calls to this upstream from tenant ${ctx.tenantId} (${maxConcurrency} in flight and ${maxQueue} waiting; limit maxConcurrency = ${maxConcurrency}); retry later`;
      return new GatewayError('GW_UPSTREAM_OVERLOADED', `The gateway refused this call to ${upstream}: ${msg}`, { upstream, reason: 'queue-full', maxConcurrency, maxQueue });
    }
    if (timedOut) return new GatewayError('GW_UPSTREAM_OVERLOADED', `The gateway refused this call to ${upstream}: waited ${timeoutMs} ms for one of this upstream's concurrency slots (all busy)`, { upstream, reason: 'slot-wait', timeoutMs }, { cause: r.reason });
    // The client left while waiting for a slot: neither the upstream's failure nor worth a warning.
    return new GatewayError('GW_CALL_CANCELLED', `The call to ${upstream} was cancelled by the client`, { upstream }, { cause: r.reason });
  }

  private connection(key: string, route: UpstreamRoute, tenantId: string, maxBytes: number, relay: readonly RelayedMethod[], elicitation?: ElicitationModes, owner?: string, inbox = false): Connection {
    let conn = this.connections.get(key);
    if (conn) {
      // Most recently used last: eviction takes the idle connection unused the longest.
      this.connections.delete(key);
      this.connections.set(key, conn);
      return conn;
    }
    this.evictIdle();
    const caller = owner !== undefined ? this.callers.open(tenantId, key, route.serverId) : undefined;
    const calls = new Set<AbortController>();
    const notifiers = new Map<AbortController, Notify>();
    // The session's own notifications (its standalone stream, SDK-path calls) name no request: they
    // go to the caller only while exactly one call is in flight on the session, the one it can be
    // serving; with several (or none) nobody can tell whose they are, so they are dropped.
    const onnotification: Notify = (method, params) => {
      if (notifiers.size !== 1) return;
      for (const notify of notifiers.values()) notify(method, params);
    };
    // The connection runs in its own scope (not the first caller's): a later break of a stream it
    // opened (the legacy SSE transport's GET stream carries every answer) fails the calls waiting on it.
    const connScope: CallScope = {
      maxBytes,
      fail: (err) => {
        for (const call of calls) call.abort(err);
        if (route.transport === 'sse') void this.drop(key);
      },
    };
    // An upstream's request arrives on the stream of the call that caused it, so it runs in that
    // call's scope: it goes to that call's client (never another caller's). One sent on the
    // session's own stream (roots/list) reaches a caller only on a caller's own connection.
    const answer = Object.fromEntries(
      relay.map((method) => [
        method,
        async (params: Record<string, unknown>) => {
          const ask = this.scope.getStore()?.askClient ?? (caller ? this.callers.asker(caller) : undefined);
          // None of the caller's calls can take it (a 2026-07-28 client polls its task): it waits for tasks/update.
          const session = !ask && inbox ? (await created.ready).sessionId() : undefined;
          if (session !== undefined) return this.taskInputs.ask(inboxOwner(tenantId, route.serverId, owner!, session), method, params);
          if (!ask) throw new McpError(ErrorCode.MethodNotFound, `${method}: the client of this call cannot answer server-to-client requests`);
          return ask(method, params);
        },
      ]),
    );
    const fetch = this.fetchFor(tenantId);
    const dispatcher = route.transport === 'sse' ? undefined : this.dispatcherFor(tenantId);
    const connect = (session?: SharedUpstreamSession) =>
      connectUpstream({
        url: route.url,
        era: route.protocol === 'modern' ? 'modern' : 'legacy',
        transport: route.transport === 'sse' ? 'sse' : 'streamable-http',
        headers: route.headers ?? {},
        fetch,
        // With the guarded fetch, redirects are followed there (every target SSRF-checked,
        // credentials dropped on a cross-origin hop); with the global fetch the SDK follows same-origin ones only.
        followRedirects: this.options.fetchFactory !== undefined,
        timeoutMs: route.timeoutMs ?? this.options.timeoutMs,
        clientInfo: { name: 'switchboard-gateway', version: '0.1.0' },
        answer,
        // The client's elicitation modes, not the bare `{}` (form only): a URL-mode tool exists only for a session declaring `url`.
        ...(elicitation ? { capabilities: { elicitation } } : {}),
        onnotification,
        ...(dispatcher ? { dispatcher } : {}),
        ...(session ? { session } : {}),
      });
    const sessions = route.stateful === true && route.protocol !== 'modern' && route.transport !== 'sse' ? this.options.sessions : undefined;
    const ready = this.scope.run(connScope, () => (sessions ? this.sharedSession(key, sessions, connect) : connect()));
    const created: Connection = (conn = { ready, calls, notifiers, ...(caller ? { caller } : {}), ...(inbox ? { inbox: inboxOwner(tenantId, route.serverId, owner!, '') } : {}) });
    this.connections.set(key, created);
    ready.catch(() => {
      if (this.connections.get(key) === created) this.connections.delete(key);
      if (caller) this.callers.forget(key, caller);
    });
    return conn;
  }

  /**
   * A stateful upstream's connection on the session replicas share for this key: the stored one
   * when there is one, else a fresh one offered as the shared one (when another replica stored
   * its own first, that one is joined and ours closed).
   */
  private async sharedSession(key: string, sessions: UpstreamSessions, connect: (session?: SharedUpstreamSession) => Promise<UpstreamConnection>): Promise<UpstreamConnection> {
    const known = await sessions.get(key);
    if (known) return connect(known);
    const fresh = await connect();
    const id = fresh.sessionId();
    if (id === undefined) return fresh;
    const shared = await sessions.claim(key, { id, ...(fresh.protocolVersion ? { protocolVersion: fresh.protocolVersion } : {}) });
    if (shared.id === id) return fresh;
    await fresh.close().catch(() => undefined);
    return connect(shared);
  }

  /**
   * Keeps the connection table bounded: per-user connector tokens key one connection each (and
   * a refresh opens another), so past `maxConnections` the least recently used idle ones close.
   */
  private evictIdle(): void {
    const max = this.options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
    if (this.connections.size < max) return;
    let scanned = 0;
    for (const [key, conn] of this.connections) {
      if (this.connections.size < max || scanned++ >= EVICTION_SCAN) break;
      if (conn.calls.size === 0) void this.drop(key);
    }
  }

  private async drop(key: string): Promise<void> {
    const conn = this.connections.get(key);
    if (!conn) return;
    this.connections.delete(key);
    if (conn.caller) this.callers.forget(key, conn.caller);
    conn.closedByGateway = true;
    await conn.ready
      .then((c) => {
        // Requests it holds for the caller's client could no longer be answered on this connection.
        const session = conn.inbox !== undefined ? c.sessionId() : undefined;
        if (session !== undefined) this.taskInputs.forget(conn.inbox + session);
        return c.close();
      })
      .catch(() => undefined);
  }
}

/**
 * A route's keys, built once per route object (a route is compiled once per catalog; a per-user
 * credential makes a new one): the guard key and the connection key's base. Built per call they
 * were fresh strings that every Map lookup (guards, circuit state, connections) had to flatten,
 * hash and compare character by character — ~12k instructions of a proxied call (callgrind).
 */
const routeKeys = new WeakMap<UpstreamRoute, { tenantId: string; upstream: string; connection: string }>();

function keysOf(tenantId: string, route: UpstreamRoute): { upstream: string; connection: string } {
  let keys = routeKeys.get(route);
  if (keys === undefined || keys.tenantId !== tenantId) {
    const upstream = `${tenantId} ${route.serverId} ${route.url}`;
    keys = { tenantId, upstream, connection: `${upstream} ${headerKey(route.headers)}` };
    routeKeys.set(route, keys);
  }
  return keys;
}

function upstreamKey(tenantId: string, route: UpstreamRoute): string {
  return keysOf(tenantId, route).upstream;
}

/** Per route headers object (a route is compiled once per catalog): the digest is not recomputed per call. */
const headerKeys = new WeakMap<Record<string, string>, string>();

function headerKey(headers: Record<string, string> | undefined): string {
  if (!headers) return '';
  let key = headerKeys.get(headers);
  if (key === undefined) {
    key = Object.keys(headers).length === 0 ? '' : createHash('sha256').update(JSON.stringify(Object.entries(headers).sort())).digest('base64url').slice(0, 16);
    headerKeys.set(headers, key);
  }
  return key;
}

/**
 * Semconv MCP context propagation for the legacy SDK: `params._meta.traceparent` / `tracestate`
 * of the active span (unprefixed keys, SEP-414; the 1.x SDK merges its own `_meta` keys such as
 * progressToken into ours); unchanged when no span is active or for a 2026-07-28 upstream.
 */
function traced<P extends object>(conn: UpstreamConnection, params: P): P {
  if (conn.era !== 'legacy') return params;
  const meta = injectTraceContext({} as Record<string, unknown>);
  return typeof meta.traceparent === 'string' ? { ...params, _meta: meta } : params;
}


/**
 * The upstream no longer knows our session: 404 as the spec says, or a 400 that says so about the
 * session (the official reference server answers "400 Bad Request: No valid session ID provided").
 * Either is refused before the request runs, so initialising again and retrying once is safe.
 */
function sessionExpired(err: unknown): boolean {
  if (!(err instanceof StreamableHTTPError)) return false;
  return err.code === 404 || (err.code === 400 && /session/i.test(err.message));
}

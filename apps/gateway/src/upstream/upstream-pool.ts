import { AsyncLocalStorage } from 'node:async_hooks';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError as SdkMcpError } from '@modelcontextprotocol/sdk/types.js';
import type { GetPromptResult, ReadResourceResult, ToolCallResult } from '@switchboard/catalog';
import type { InvokeContext, UpstreamCompletion, UpstreamTaskAnswer, UpstreamTaskRequest } from '@switchboard/mcp-http';
import { ErrorCode } from '@switchboard/protocol';
import { injectTraceContext } from '@switchboard/telemetry';
import type { UpstreamCallOptions, UpstreamConnection } from '@switchboard/upstream-client';
import { countsAgainstUpstream, refusalError, upstreamError } from './call-failure';
import { CallerSessions, callerScope } from './caller-sessions';
import { planConnection } from './connection-plan';
import { GatewayError } from './gateway-errors';
import { relayNotifications } from './relay-notifications';
import { keysOf } from './route-keys';
import { inboxOwner, TaskInputInbox, type TaskInputRequest } from './task-input-inbox';
import { TenantTransports } from './tenant-transports';
import { UpstreamCall, type CallScope } from './upstream-call';
import { UpstreamConnections } from './upstream-connections';
import { GuardRefusedError, UpstreamGuards, type CallVerdict } from './upstream-guards';
import { recordCircuitState } from './upstream-observation';
import type { UpstreamPoolOptions } from './upstream-pool-options';
import type { CircuitState, ConnectionPlan, UpstreamRoute } from './upstream-types';

export type { UpstreamRoute } from './upstream-types';
export type { UpstreamPoolOptions } from './upstream-pool-options';

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

type Send<T> = (conn: UpstreamConnection, opts: UpstreamCallOptions) => Promise<T>;

/**
 * Calls tenants' upstream MCP servers through `@switchboard/upstream-client`: a pure transport
 * (credentials are already on the route; failures are thrown as coded {@link GatewayError}s).
 * Everything per upstream — connection, breaker, concurrency cap, keep-alive pool — is per
 * tenant, so two tenants registering the same URL share nothing. Every call has a timeout, a
 * response byte bound, and a place under its tenant's in-flight cap and its upstream's cap.
 */
export class UpstreamPool {
  private readonly guards: UpstreamGuards;
  private readonly tenantInflight = new Map<string, number>();
  private readonly scope = new AsyncLocalStorage<CallScope>();
  private readonly callers = new CallerSessions((key) => void this.connections.drop(key));
  private readonly transports: TenantTransports;
  private readonly connections: UpstreamConnections;
  /** Task input a 2025-11-25 upstream asks a polling 2026-07-28 caller for (see {@link TaskInputInbox}). */
  readonly taskInputs: TaskInputInbox;

  constructor(private readonly options: UpstreamPoolOptions) {
    this.guards = new UpstreamGuards(options.breaker ?? { failureThreshold: 5, openMs: 10_000 }, options.onCircuit ?? recordCircuitState);
    this.taskInputs = new TaskInputInbox(undefined, undefined, undefined, options.taskInputShare);
    this.transports = new TenantTransports(options, this.scope, (tenantId) => this.maxBytesOf(tenantId));
    this.connections = new UpstreamConnections(
      {
        timeoutMs: options.timeoutMs,
        maxConnections: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
        // With the guarded fetch, redirects are followed there (every target SSRF-checked,
        // credentials dropped on a cross-origin hop); with the global fetch the SDK follows same-origin ones only.
        followRedirects: options.fetchFactory !== undefined,
        sessions: options.sessions,
      },
      this.scope,
      this.transports,
      this.callers,
      this.taskInputs,
    );
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
        ...(ctx.request.progressToken !== undefined
          ? { onprogress: (p: { progress: number; total?: number; message?: string }) => ctx.progress(p.progress, p.total, p.message) }
          : {}),
      }),
    )) as ToolCallResult;
  }

  async readResource(route: UpstreamRoute, uri: string, ctx: InvokeContext): Promise<ReadResourceResult> {
    // On the connection (upstream session) this caller's tool calls use: a session resource a
    // call created lives only there, though the read itself asks the client nothing.
    return (await this.withClient(route, ctx, (conn, opts) => conn.readResource(traced(conn, { uri }), opts), true)) as ReadResourceResult;
  }

  async getPrompt(route: UpstreamRoute, args: Record<string, string>, ctx: InvokeContext): Promise<GetPromptResult> {
    return (await this.withClient(route, ctx, (conn, opts) =>
      conn.getPrompt(traced(conn, { name: route.upstreamName, arguments: args }), opts),
    )) as GetPromptResult;
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
    return this.withClient(
      route,
      ctx,
      async (conn, opts) => {
        try {
          const result = await conn.taskRequest(
            request.method,
            traced(conn, { ...request.params, ...modernRetry(route, request, ctx) }),
            request.session,
            opts,
          );
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
      },
      ctx.request.era === 'modern',
      true,
    );
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

  /** Circuit state of a tenant's upstream (`closed` before its first call). */
  circuitState(route: UpstreamRoute, tenantId: string): CircuitState {
    return this.guards.state(keysOf(tenantId, route).upstream);
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
    await this.connections.closeAll();
    await this.transports.close();
    await this.options.sessions?.close();
    this.taskInputs.close();
  }

  private maxBytesOf(tenantId: string): number {
    return this.options.limitsOf?.(tenantId)?.upstreamResponseBytes ?? this.options.maxResponseBytes;
  }

  /** One request to a route's upstream: admitted, guarded, scoped, on its connection; a failure thrown coded. */
  private async withClient<T>(
    route: UpstreamRoute,
    ctx: InvokeContext,
    send: Send<T>,
    callersSession = false,
    taskCall = false,
  ): Promise<T> {
    const tenantId = ctx.tenantId;
    const keys = keysOf(tenantId, route);
    const plan = planConnection(keys, ctx, callersSession, taskCall);
    const own = this.options.limitsOf?.(tenantId);
    this.admit(route, tenantId, own?.maxInflight ?? this.options.tenantMaxInflight);
    const call = new UpstreamCall(ctx, route, this.options, own?.upstreamResponseBytes ?? this.options.maxResponseBytes);
    try {
      return await this.guards.run(
        keys.upstream,
        call,
        () => this.onConnection(route, plan, call, send),
        (err) => verdictOf(call, err),
        keys,
      );
    } catch (err) {
      throw this.failure(err, route, call);
    } finally {
      call.end();
      const n = (this.tenantInflight.get(tenantId) ?? 1) - 1;
      if (n <= 0) this.tenantInflight.delete(tenantId);
      else this.tenantInflight.set(tenantId, n);
    }
  }

  /** Fair share first: a tenant over its in-flight cap is refused before it touches any upstream state. */
  private admit(route: UpstreamRoute, tenantId: string, maxInflight: number): void {
    const inflight = this.tenantInflight.get(tenantId) ?? 0;
    if (inflight >= maxInflight) {
      throw new GatewayError(
        'GW_TENANT_INFLIGHT_LIMIT',
        `The gateway refused this call to ${route.serverId}: tenant ${tenantId} already has ${inflight} upstream calls in flight in this gateway (limit limits.maxInflight = ${maxInflight}); retry later`,
        { upstream: route.serverId, limit: 'maxInflight', max: maxInflight },
      );
    }
    this.tenantInflight.set(tenantId, inflight + 1);
  }

  /**
   * Sends on the plan's connection. A stateful upstream that forgot our session (restart, expiry)
   * is initialised again and the request retried once; only a dead client is dropped, so a failed
   * request on a live connection leaves the others' calls alone.
   */
  private async onConnection<T>(route: UpstreamRoute, plan: ConnectionPlan, call: UpstreamCall, send: Send<T>): Promise<T> {
    const opts = this.callOptions(call);
    try {
      try {
        return await this.attempt(route, plan, call, send, opts);
      } catch (err) {
        if (!sessionExpired(err)) throw err;
        void this.connections.drop(plan.key);
        const forgotten = call.client?.sessionId();
        if (forgotten !== undefined) await this.options.sessions?.forget(plan.key, forgotten);
        return await this.attempt(route, plan, call, send, opts);
      }
    } catch (err) {
      const { kind } = call.classify(err);
      if (kind === 'closed' || (route.transport === 'sse' && (kind === 'broken' || kind === 'network')))
        void this.connections.drop(plan.key);
      throw err;
    }
  }

  private async attempt<T>(
    route: UpstreamRoute,
    plan: ConnectionPlan,
    call: UpstreamCall,
    send: Send<T>,
    opts: UpstreamCallOptions,
  ): Promise<T> {
    const c = (call.connection = this.connections.open(plan, route, call.ctx.tenantId, call.maxBytes));
    const client = (call.client = await c.ready);
    const abort = call.abort;
    c.calls.add(abort);
    // callOptions always sets the relay.
    c.notifiers.set(abort, opts.onnotification!);
    if (c.caller) this.callers.begin(plan.key, c.caller, abort, call.askClient);
    try {
      return await this.scope.run(call, send, client, opts);
    } finally {
      c.calls.delete(abort);
      c.notifiers.delete(abort);
      if (c.caller) this.callers.end(plan.key, c.caller, abort, c.calls.size);
    }
  }

  /** The options of one call's requests: its bounds, its signal and one notification relay (one bound) for its stream and its session's. */
  private callOptions(call: UpstreamCall): UpstreamCallOptions {
    const ctx = call.ctx;
    const opts: UpstreamCallOptions = {
      timeout: call.timeoutMs,
      maxTotalTimeout: call.timeoutMs,
      signal: call.signal,
      maxBytes: call.maxBytes,
      onnotification: relayNotifications(ctx),
    };
    if (call.maxStreamBytes !== undefined) opts.maxStreamBytes = call.maxStreamBytes;
    if (ctx.relaying) opts.relaying = ctx.relaying;
    if (this.options.notificationPacer) opts.pace = this.options.notificationPacer.forTenant(ctx.tenantId);
    return opts;
  }

  /** The coded error of a failed call; its fetches carry its own signal, so a call failed without an abort is aborted here. */
  private failure(err: unknown, route: UpstreamRoute, call: UpstreamCall): GatewayError {
    if (err instanceof GuardRefusedError) return refusalError(err.refusal, route.serverId, call);
    const { kind, cause } = call.classify(err);
    if (!call.signal.aborted) call.abort.abort(cause);
    if (kind === 'gateway' && !(cause instanceof GatewayError)) {
      return new GatewayError(
        'GW_CONNECTION_CLOSED',
        `The gateway closed its connection to ${route.serverId} while the call was in flight (shutdown or a replaced credential); retry`,
        { upstream: route.serverId },
        { cause },
      );
    }
    if (kind === 'network') this.options.logger.warn({ upstream: route.serverId, err: (cause as Error)?.message }, 'upstream call failed');
    return upstreamError(kind, cause, route.serverId, call.timeoutMs);
  }
}

/** What a failed call means for its upstream's breaker. */
function verdictOf(call: UpstreamCall, err: unknown): CallVerdict {
  const { kind } = call.classify(err);
  return countsAgainstUpstream(kind) ? 'failure' : kind === 'answer' ? 'success' : 'neutral';
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

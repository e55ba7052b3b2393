import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { GetPromptResult, ReadResourceResult, Route, TenantLimits, ToolCallResult } from '@switchboard/catalog';
import type { InvokeContext, UpstreamInvoker } from '@switchboard/mcp-http';
import { injectTraceContext } from '@switchboard/telemetry';
import { limitResponseBytes, stripForbiddenHeaders, ResponseTooLargeError, type GuardedFetch } from '@switchboard/net-guard';
import { ErrorCode, McpError } from '@switchboard/protocol';
import type { Logger } from 'pino';
import { CircuitBreaker, type CircuitBreakerOptions } from './circuit-breaker';
import { CONNECTOR_ERRORS, type ConnectorCredential } from '../auth/connector-tokens';
import { Semaphore, SemaphoreFullError } from './semaphore';
import { classifyUpstreamError, countsAgainstUpstream, GatewayRefusal, UpstreamBrokenError, type UpstreamFailureKind } from './upstream-failure';

type UpstreamRoute = Extract<Route, { kind: 'upstream' }>;

export interface UpstreamPoolOptions {
  timeoutMs: number;
  /** In-flight calls per (tenant, upstream) in this replica. */
  maxConcurrency: number;
  /** Calls that may wait for one of an upstream's slots; beyond it a call is refused at once. Default: maxConcurrency. */
  maxQueue?: number;
  /** Largest upstream response body / server-sent event in bytes (tenant override: `limits.upstreamResponseBytes`). */
  maxResponseBytes: number;
  /** Upstream calls one tenant may have in flight (or waiting) in this replica (tenant override: `limits.maxInflight`). */
  tenantMaxInflight: number;
  /** A tenant's limit overrides (its tenant document's `limits`). */
  limitsOf?: (tenantId: string) => TenantLimits | undefined;
  logger: Logger;
  /** Per-upstream circuit breaker settings (default: 5 failures, 10 s open). */
  breaker?: Omit<CircuitBreakerOptions, 'now'>;
  /**
   * Makes the fetch for one tenant's upstream HTTP (the SSRF-guarded one for tenant-registered
   * upstreams): called once per tenant, so each tenant has its own keep-alive connection pool.
   * Unset: the global fetch, which the SDK lets follow same-origin redirects only.
   */
  fetchFactory?: () => GuardedFetch;
  /**
   * Per-user credentials of enterprise connectors: when it returns a resolver for a route,
   * the call carries the user's vaulted token instead of the route's static credential.
   */
  connectorCredential?: (tenantId: string, serverId: string, ctx: InvokeContext) => Promise<ConnectorCredential> | undefined;
  /** Open upstream connections kept per replica (default 5000): past it the least recently used idle ones close. */
  maxConnections?: number;
}

/** What a request's fetches need to know about the call that made them (carried by AsyncLocalStorage through the SDK). */
interface CallScope {
  maxBytes: number;
  /** Relays an upstream's server→client request to this call's client (legacy clients that declared the capability). */
  askClient?: InvokeContext['askClient'];
  /** Fails the call at once with the cause (an oversized or broken response) instead of waiting for its timeout. */
  fail(err: Error): void;
}

type CallOptions = { timeout: number; signal: AbortSignal; maxTotalTimeout: number; onprogress?: (p: { progress: number; total?: number; message?: string }) => void; allowInputRequired?: boolean };

/** A modern call's MRTR retry fields, forwarded to a 2026-07-28 upstream. */
type RetryFields = { inputResponses?: Record<string, unknown>; requestState?: string };

/** The calls the pool makes, over either SDK line: 1.x (`initialize`, ≤ 2025-11-25) or v2 pinned to 2026-07-28. */
interface UpstreamClient {
  callTool(params: { name: string; arguments: Record<string, unknown> } & RetryFields, opts: CallOptions): Promise<unknown>;
  readResource(params: { uri: string }, opts: CallOptions): Promise<unknown>;
  getPrompt(params: { name: string; arguments: Record<string, string> }, opts: CallOptions): Promise<unknown>;
  close(): Promise<void>;
}

interface Connection {
  client: UpstreamClient;
  ready: Promise<void>;
  /** Abort controllers of the calls in flight on this connection (failed together when a shared stream breaks). */
  calls: Set<AbortController>;
  /** Set when the gateway closed this connection itself (a call then failing with "Connection closed" is ours). */
  closedByGateway?: boolean;
}

/** Client capabilities the gateway relays to upstreams (their requests go to the caller's client). */
type RelayedCapability = 'elicitation' | 'roots' | 'sampling';
const RELAYED = {
  elicitation: { schema: ElicitRequestSchema, method: 'elicitation/create' },
  roots: { schema: ListRootsRequestSchema, method: 'roots/list' },
  sampling: { schema: CreateMessageRequestSchema, method: 'sampling/createMessage' },
} as const;

/** The relayable capabilities a client declared, in a stable order (part of the connection key). */
function relayedCapabilities(capabilities: Record<string, unknown> | undefined): RelayedCapability[] {
  if (!capabilities) return [];
  return (Object.keys(RELAYED) as RelayedCapability[]).filter((c) => Object.hasOwn(capabilities, c));
}

/** Open upstream connections per replica before idle ones are closed (least recently used first). */
const DEFAULT_MAX_CONNECTIONS = 5_000;
/** Connections looked at per eviction (busy ones are skipped), so a full table never costs a long scan. */
const EVICTION_SCAN = 64;

/** The revision a `protocol: 'modern'` upstream is spoken to in (stateless: `server/discover`, per-request `_meta`). */
const MODERN_PROTOCOL_VERSION = '2026-07-28';

/**
 * Calls tenants' upstream MCP servers with the official SDK client. Everything per upstream
 * is per tenant — connection, breaker, concurrency cap, keep-alive pool — keyed
 * `(tenant, server, url)`, so two tenants registering the same URL share nothing. A stateless
 * upstream is initialised once and then called directly; a stateful one keeps its session and
 * is re-initialised when the upstream answers 404 (session expired). Every call has a timeout,
 * a response byte bound (counted while streaming), a place under its tenant's in-flight cap and
 * its upstream's cap with a bounded queue (over ⇒ refused at once). Only the route's own headers
 * (the upstream's credential, minus forbidden framing/protocol headers) are sent — never the
 * client's token.
 */
export class UpstreamPool implements UpstreamInvoker {
  private readonly connections = new Map<string, Connection>();
  private readonly limits = new Map<string, Semaphore>();
  private readonly breakers = new Map<string, CircuitBreaker>();
  private readonly tenantInflight = new Map<string, number>();
  private readonly fetches = new Map<string, GuardedFetch>();
  private readonly scope = new AsyncLocalStorage<CallScope>();

  constructor(private readonly options: UpstreamPoolOptions) {}

  async callTool(route: UpstreamRoute, args: Record<string, unknown>, ctx: InvokeContext): Promise<ToolCallResult> {
    const withCredential = await this.userCredential(route, ctx);
    if ('failure' in withCredential) {
      const f = withCredential.failure;
      return { isError: true, content: [{ type: 'text', text: `${f.code}: ${f.message}` }], _meta: { 'switchboard/error': { code: f.code, upstream: route.serverId, ...(f.linkUrl ? { linkUrl: f.linkUrl } : {}) } } };
    }
    route = withCredential.route;
    try {
      // A 2026-07-28 caller and upstream: the upstream's input_required goes back to the caller as
      // is (stateless: the caller's retry carries inputResponses / requestState back upstream).
      const passThrough = route.protocol === 'modern' && ctx.request.era === 'modern';
      const retry: RetryFields = {};
      if (passThrough && ctx.input && Object.keys(ctx.input.responses).length > 0) retry.inputResponses = ctx.input.responses;
      if (passThrough && ctx.input?.requestState !== undefined) retry.requestState = ctx.input.requestState;
      return await this.withClient(route, ctx, async (client, opts) => {
        const res = await client.callTool({ name: route.upstreamName, arguments: args, ...retry }, {
          ...opts,
          ...(passThrough ? { allowInputRequired: true } : {}),
          onprogress: (p) => ctx.progress(p.progress, p.total, p.message),
        });
        return res as ToolCallResult;
      });
    } catch (err) {
      return { isError: true, content: [{ type: 'text', text: this.describe(route, err) }] };
    }
  }

  async readResource(route: UpstreamRoute, uri: string, ctx: InvokeContext): Promise<ReadResourceResult> {
    const r = await this.userCredential(route, ctx);
    if ('failure' in r) throw connectorError(route, r.failure);
    try {
      return (await this.withClient(r.route, ctx, (client, opts) => client.readResource({ uri }, opts))) as ReadResourceResult;
    } catch (err) {
      throw this.wireError(r.route, err);
    }
  }

  async getPrompt(route: UpstreamRoute, args: Record<string, string>, ctx: InvokeContext): Promise<GetPromptResult> {
    const r = await this.userCredential(route, ctx);
    if ('failure' in r) throw connectorError(route, r.failure);
    try {
      return (await this.withClient(r.route, ctx, (client, opts) => client.getPrompt({ name: route.upstreamName, arguments: args }, opts))) as GetPromptResult;
    } catch (err) {
      throw this.wireError(r.route, err);
    }
  }

  /**
   * For a per-user connector route: the route with the user's own upstream token as its only
   * credential (replacing any static one; connections are keyed by it), or a coded failure
   * (not linked ⇒ the link URL). Other routes pass unchanged.
   */
  private async userCredential(route: UpstreamRoute, ctx: InvokeContext): Promise<{ route: UpstreamRoute } | { failure: ConnectorFailure }> {
    const pending = this.options.connectorCredential?.(ctx.tenantId, route.serverId, ctx);
    if (!pending) return { route };
    const credential = await pending;
    if (credential.kind === 'link') {
      const again = credential.reason === 'refresh_failed' ? `Your ${route.serverId} account must be connected again` : `Connect your ${route.serverId} account first`;
      return { failure: { code: CONNECTOR_ERRORS.notLinked, message: `${again}, then retry: ${credential.linkUrl}`, linkUrl: credential.linkUrl } };
    }
    if (credential.kind === 'error') return { failure: { code: credential.code, message: `Upstream server ${route.serverId}: ${credential.message}` } };
    return { route: { ...route, headers: { ...route.headers, authorization: `Bearer ${credential.token}` } } };
  }

  /** Circuit state of a tenant's upstream (`closed` before its first call); read by the upstream metrics. */
  circuitState(route: UpstreamRoute, tenantId: string): 'closed' | 'open' | 'half-open' {
    return this.breakers.get(upstreamKey(tenantId, route))?.state ?? 'closed';
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
    const all = [...this.connections.values()];
    this.connections.clear();
    for (const c of all) c.closedByGateway = true;
    await Promise.all(all.map((c) => c.client.close().catch(() => undefined)));
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
      const base: GuardedFetch = this.options.fetchFactory?.() ?? ((url, init) => fetch(url, init));
      f = limitResponseBytes(base, () => {
        const scope = this.scope.getStore();
        return {
          maxBytes: scope?.maxBytes ?? this.limitsFor(tenantId).maxBytes,
          onExceeded: (err) => scope?.fail(err),
          onBroken: (err) => scope?.fail(new UpstreamBrokenError(`the response broke off mid-way (${summarize(err as Error)})`, { cause: err })),
        };
      });
      this.fetches.set(tenantId, f);
    }
    return f;
  }

  private async withClient<T>(
    route: UpstreamRoute,
    ctx: InvokeContext,
    fn: (client: UpstreamClient, opts: CallOptions) => Promise<T>,
  ): Promise<T> {
    const tenantId = ctx.tenantId;
    const key = upstreamKey(tenantId, route);
    const limits = this.limitsFor(tenantId);
    // Fair share first: a tenant over its in-flight cap is refused before it touches any upstream state.
    const inflight = this.tenantInflight.get(tenantId) ?? 0;
    if (inflight >= limits.maxInflight) {
      throw new GatewayRefusal(
        'TENANT_INFLIGHT_LIMIT',
        `tenant ${tenantId} already has ${inflight} upstream calls in flight in this gateway (limit limits.maxInflight = ${limits.maxInflight}); retry later`,
      );
    }
    let breaker = this.breakers.get(key);
    if (!breaker) {
      breaker = new CircuitBreaker(this.options.breaker ?? { failureThreshold: 5, openMs: 10_000 });
      this.breakers.set(key, breaker);
    }
    if (!breaker.tryPass()) throw new GatewayRefusal('CIRCUIT_OPEN', `circuit open after repeated failures; retrying in ${Math.ceil(breaker.retryInMs / 1000)} s`);
    this.tenantInflight.set(tenantId, inflight + 1);
    try {
      const timeoutMs = route.timeoutMs ?? this.options.timeoutMs;
      let limit = this.limits.get(key);
      if (!limit) {
        const cap = route.maxConcurrency ?? this.options.maxConcurrency;
        limit = new Semaphore(cap, this.options.maxQueue ?? cap);
        this.limits.set(key, limit);
      }
      const abort = new AbortController();
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = AbortSignal.any([ctx.signal, timeout, abort.signal]);
      let release: () => void;
      try {
        release = await limit.acquire(signal);
      } catch (err) {
        breaker.release();
        if (err instanceof SemaphoreFullError) {
          throw new GatewayRefusal('UPSTREAM_QUEUE_FULL', `too many calls to this upstream from tenant ${tenantId} (${err.message}; limit maxConcurrency = ${route.maxConcurrency ?? this.options.maxConcurrency}); retry later`);
        }
        if (timeout.aborted) throw new GatewayRefusal('UPSTREAM_SLOT_WAIT', `waited ${timeoutMs} ms for one of this upstream's concurrency slots (all busy)`);
        // The client left while waiting for a slot: neither the upstream's failure nor worth a warning.
        throw new ClassifiedError(ctx.signal.aborted ? 'cancelled' : 'gateway', err);
      }
      // Connections are keyed by credential too, so a rotated credential opens a fresh one.
      // ... and by the client capabilities relayed upstream: each connection declares exactly what its callers' clients answer.
      const relay = ctx.askClient ? relayedCapabilities(ctx.request.clientCapabilities) : [];
      const connKey = `${key} ${headerKey(route.headers)}${relay.length > 0 ? ` relay:${relay.join(',')}` : ''}`;
      let conn: Connection | undefined;
      try {
        const opts = { timeout: timeoutMs, maxTotalTimeout: timeoutMs, signal };
        const scope: CallScope = { maxBytes: limits.maxBytes, fail: (err) => abort.abort(err), ...(ctx.askClient ? { askClient: ctx.askClient } : {}) };
        const attempt = async (): Promise<T> => {
          conn = await this.connection(connKey, route, tenantId, limits.maxBytes, relay);
          conn.calls.add(abort);
          try {
            return await this.scope.run(scope, () => fn(conn!.client, opts));
          } finally {
            conn.calls.delete(abort);
          }
        };
        let out: T;
        try {
          out = await attempt();
        } catch (err) {
          if (!isSessionExpired(err)) throw err;
          // A stateful upstream forgot our session (restart, expiry): initialise again and retry once.
          this.drop(connKey);
          out = await attempt();
        }
        breaker.success();
        return out;
      } catch (err) {
        // The SDK rejects an aborted request with its own timeout error carrying the reason as text:
        // the abort's reason (an oversized or broken response) is the real cause.
        const cause: unknown = abort.signal.aborted ? abort.signal.reason : err;
        const kind = timeout.aborted && !abort.signal.aborted ? 'timeout' : classifyUpstreamError(cause, ctx.signal.aborted && !timeout.aborted);
        const closedByUs = kind === 'closed' && (conn as Connection | undefined)?.closedByGateway === true;
        if (closedByUs) {
          breaker.release();
          throw new GatewayRefusal('GATEWAY_CLOSED_CONNECTION', 'the gateway closed its connection to this upstream while the call was in flight (shutdown or a replaced credential); retry');
        }
        if (countsAgainstUpstream(kind)) breaker.failure();
        else if (kind === 'answer') breaker.success();
        else breaker.release();
        // Only a dead client is dropped: a failed request on a live connection leaves the others' calls alone.
        if (kind === 'closed' || (route.transport === 'sse' && (kind === 'broken' || kind === 'network'))) this.drop(connKey);
        throw new ClassifiedError(kind, cause);
      } finally {
        release();
      }
    } finally {
      const n = (this.tenantInflight.get(tenantId) ?? 1) - 1;
      if (n <= 0) this.tenantInflight.delete(tenantId);
      else this.tenantInflight.set(tenantId, n);
    }
  }

  private async connection(key: string, route: UpstreamRoute, tenantId: string, maxBytes: number, relay: readonly RelayedCapability[]): Promise<Connection> {
    let conn = this.connections.get(key);
    if (conn) {
      // Most recently used last: eviction takes the idle connection unused the longest.
      this.connections.delete(key);
      this.connections.set(key, conn);
    } else {
      this.evictIdle();
      const calls = new Set<AbortController>();
      // The connection runs in its own scope (not the first caller's): a later break of a stream it
      // opened (the legacy SSE transport's GET stream carries every answer) fails the calls waiting on it.
      const connScope: CallScope = {
        maxBytes,
        fail: (err) => {
          for (const call of calls) call.abort(err);
          if (route.transport === 'sse') this.drop(key);
        },
      };
      const created: Connection = (conn = this.scope.run(connScope, () =>
        route.protocol === 'modern' ? this.modernConnection(route, tenantId, calls, relay) : this.legacyConnection(route, tenantId, calls, relay),
      ));
      this.connections.set(key, created);
      created.ready.catch(() => {
        if (this.connections.get(key) === created) this.connections.delete(key);
      });
    }
    await conn.ready;
    return conn;
  }

  /**
   * SDK 1.x: over Streamable HTTP one `initialize`, then direct calls (a session when the
   * upstream is stateful); a 2024-11-05 server over the legacy HTTP+SSE transport (its GET
   * event stream stays open for the connection's lifetime).
   */
  private legacyConnection(route: UpstreamRoute, tenantId: string, calls: Set<AbortController>, relay: readonly RelayedCapability[]): Connection {
    const client = new Client({ name: 'switchboard-gateway', version: '0.1.0' }, { capabilities: Object.fromEntries(relay.map((c) => [c, {}])) });
    // An upstream's request arrives on the stream of the call that caused it, so it runs in that
    // call's scope: it goes to that call's client (never another caller's).
    for (const capability of relay) {
      const { schema, method } = RELAYED[capability];
      client.setRequestHandler(schema, async (request) => {
        const ask = this.scope.getStore()?.askClient;
        if (!ask) throw new McpError(ErrorCode.MethodNotFound, `${method}: the client of this call cannot answer server-to-client requests`);
        return (await ask(method, (request.params ?? {}) as Record<string, unknown>)) as never;
      });
    }
    const requestInit = { headers: stripForbiddenHeaders(route.headers) };
    const fetchOpts = this.transportFetch(tenantId);
    const transport =
      route.transport === 'sse'
        ? new SSEClientTransport(new URL(route.url), { requestInit, ...fetchOpts })
        : new StreamableHTTPClientTransport(new URL(route.url), { requestInit, ...fetchOpts });
    return {
      calls,
      ready: client.connect(transport, { timeout: route.timeoutMs ?? this.options.timeoutMs }),
      client: {
        // Semconv MCP context propagation: the CLIENT span's context also rides in `params._meta`
        // (the 1.x SDK merges its own `_meta` keys, e.g. progressToken, into ours).
        callTool: (params, opts) => client.callTool(withTraceMeta(params), undefined, opts),
        readResource: (params, opts) => client.readResource(withTraceMeta(params), opts),
        getPrompt: (params, opts) => client.getPrompt(withTraceMeta(params), opts),
        close: () => client.close(),
      },
    };
  }

  /** SDK v2 pinned to 2026-07-28: `server/discover` once, then stateless requests carrying their own `_meta`. */
  private modernConnection(route: UpstreamRoute, tenantId: string, calls: Set<AbortController>, relay: readonly RelayedCapability[]): Connection {
    const client = new ModernClient(
      { name: 'switchboard-gateway', version: '0.1.0' },
      { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } }, capabilities: Object.fromEntries(relay.map((c) => [c, {}])) },
    );
    // A legacy caller: the SDK fulfils the upstream's input_required through these handlers,
    // which ask the caller's client on its stream (modern callers get input_required as is).
    for (const capability of relay) {
      const { method } = RELAYED[capability];
      client.setRequestHandler(method, async (request: { params?: unknown }) => {
        const ask = this.scope.getStore()?.askClient;
        if (!ask) throw new McpError(ErrorCode.MethodNotFound, `${method}: the client of this call cannot answer server-to-client requests`);
        return (await ask(method, (request.params ?? {}) as Record<string, unknown>)) as never;
      });
    }
    const transport = new ModernTransport(new URL(route.url), { requestInit: { headers: stripForbiddenHeaders(route.headers) }, ...this.transportFetch(tenantId) });
    return {
      calls,
      ready: client.connect(transport, { timeout: route.timeoutMs ?? this.options.timeoutMs }),
      client: {
        callTool: (params, opts) => client.callTool(params, opts),
        readResource: (params, opts) => client.readResource(params, opts),
        getPrompt: (params, opts) => client.getPrompt(params, opts),
        close: () => client.close(),
      },
    };
  }

  /**
   * The tenant's fetch for the SDK transports. With the guarded fetch, redirects are followed
   * there (every target SSRF-checked, credentials dropped on a cross-origin hop); with the
   * global fetch the SDK follows same-origin redirects only.
   */
  private transportFetch(tenantId: string): { fetch: GuardedFetch; redirectPolicy?: 'follow' } {
    return this.options.fetchFactory ? { fetch: this.fetchFor(tenantId), redirectPolicy: 'follow' } : { fetch: this.fetchFor(tenantId) };
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
      if (conn.calls.size === 0) this.drop(key);
    }
  }

  private drop(key: string): void {
    const conn = this.connections.get(key);
    if (!conn) return;
    this.connections.delete(key);
    conn.closedByGateway = true;
    void conn.client.close().catch(() => undefined);
  }

  private describe(route: UpstreamRoute, err: unknown): string {
    const name = `Upstream server ${route.serverId}`;
    const kind: UpstreamFailureKind = err instanceof ClassifiedError ? err.kind : classifyUpstreamError(err, false);
    const e = (err instanceof ClassifiedError ? err.cause : err) as Error & { code?: unknown };
    switch (kind) {
      case 'gateway':
        return e instanceof GatewayRefusal && e.code === 'CIRCUIT_OPEN'
          ? `${name} is temporarily unavailable (${e.message})`
          : `The gateway refused this call to ${route.serverId} (${(e as GatewayRefusal).code}): ${e.message}`;
      case 'too-large': {
        const big = e as unknown as ResponseTooLargeError;
        const what = big.unit === 'event' ? 'sent a server-sent event larger than' : 'answered more than';
        return `${name} ${what} ${big.maxBytes} bytes; the call was stopped (limit limits.upstreamResponseBytes = ${big.maxBytes})`;
      }
      case 'timeout':
        return `${name} did not answer within ${route.timeoutMs ?? this.options.timeoutMs} ms`;
      case 'answer':
        return `${name} returned an error: ${e.message}`;
      case 'cancelled':
        return `The call to ${route.serverId} was cancelled by the client`;
      case 'broken':
        return `${name} failed mid-response: ${e.message}`;
      case 'closed':
        return `${name} closed the connection before answering`;
      case 'http':
        return `${name} answered with an HTTP error (${summarize(e)})`;
      case 'invalid':
        return `${name} answered with something that is not MCP JSON-RPC (${summarize(e)})`;
      case 'refused-url':
        return `${name} is not reachable: ${e.message}`;
      default:
        this.options.logger.warn({ upstream: route.serverId, err: e?.message }, 'upstream call failed');
        return `${name} is unavailable (${summarize(e)})`;
    }
  }

  private wireError(route: UpstreamRoute, err: unknown): McpError {
    const inner = err instanceof ClassifiedError ? err.cause : err;
    const kind = err instanceof ClassifiedError ? err.kind : undefined;
    if (kind === 'answer') {
      const e = inner as { code: number; message: string; data?: unknown };
      return new McpError(e.code, e.message, e.data);
    }
    const data: Record<string, unknown> = { upstream: route.serverId };
    if (inner instanceof ResponseTooLargeError) Object.assign(data, { limit: 'upstreamResponseBytes', maxBytes: inner.maxBytes });
    if (inner instanceof GatewayRefusal) data.code = inner.code;
    return new McpError(ErrorCode.InternalError, this.describe(route, err), data);
  }
}

interface ConnectorFailure {
  code: string;
  message: string;
  linkUrl?: string;
}

/** A connector failure on resources/prompts: a JSON-RPC error carrying the same code and link. */
function connectorError(route: UpstreamRoute, f: ConnectorFailure): McpError {
  return new McpError(ErrorCode.InvalidRequest, `${f.code}: ${f.message}`, { code: f.code, upstream: route.serverId, ...(f.linkUrl ? { linkUrl: f.linkUrl } : {}) });
}

/** An upstream call's error with its classification (the cause is the original error). */
class ClassifiedError extends Error {
  override readonly name = 'ClassifiedError';
  constructor(
    readonly kind: UpstreamFailureKind,
    override readonly cause: unknown,
  ) {
    super((cause as Error)?.message ?? String(cause));
  }
}

function upstreamKey(tenantId: string, route: UpstreamRoute): string {
  return `${tenantId} ${route.serverId} ${route.url}`;
}

function headerKey(headers: Record<string, string> | undefined): string {
  if (!headers) return '';
  return createHash('sha256').update(JSON.stringify(Object.entries(headers).sort())).digest('base64url').slice(0, 16);
}

function isSessionExpired(err: unknown): boolean {
  return err instanceof StreamableHTTPError && err.code === 404;
}

function summarize(err: Error | undefined): string {
  const cause = (err as { cause?: { code?: string } } | undefined)?.cause;
  if (cause?.code) return cause.code;
  const msg = err?.message ?? 'unknown error';
  return msg.length > 160 ? `${msg.slice(0, 157)}...` : msg;
}

/** `params` plus `_meta.traceparent` / `tracestate` of the active span (unprefixed keys, SEP-414); unchanged when no span is active. */
function withTraceMeta<P extends object>(params: P): P {
  const meta = injectTraceContext({} as Record<string, unknown>);
  return typeof meta.traceparent === 'string' ? { ...params, _meta: meta } : params;
}

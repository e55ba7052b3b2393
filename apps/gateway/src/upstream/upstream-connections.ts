import type { AsyncLocalStorage } from 'node:async_hooks';
import { ErrorCode, McpError } from '@switchboard/protocol';
import { connectUpstream, type RelayedMethod, type UpstreamConnection } from '@switchboard/upstream-client';
import type { CallerSession, CallerSessions } from './caller-sessions';
import type { Notify } from './relay-notifications';
import { inboxOwner, type TaskInputInbox } from './task-input-inbox';
import type { CallScope } from './upstream-call';
import type { SharedUpstreamSession, UpstreamSessions } from './upstream-sessions';
import type { TenantTransports } from './tenant-transports';
import type { ConnectionPlan, UpstreamRoute } from './upstream-types';

export interface Connection {
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

export interface UpstreamConnectionsOptions {
  timeoutMs: number;
  /** Open connections kept; past it the least recently used idle ones close. */
  maxConnections: number;
  /** Redirects are followed by the tenant's fetch (the guarded one re-checks every hop). */
  followRedirects: boolean;
  /** Shares stateful upstreams' sessions between replicas; unset: each replica has its own. */
  sessions: UpstreamSessions | undefined;
}

/** Connections looked at per eviction (busy ones are skipped), so a full table never costs a long scan. */
const EVICTION_SCAN = 64;

/**
 * The open upstream connections of one replica, by connection key, most recently used last. A
 * connection opens in its own scope, answers the upstream's server→client requests through the
 * call that caused them, and is closed when idle past the table's bound or when dropped.
 */
export class UpstreamConnections {
  private readonly connections = new Map<string, Connection>();

  constructor(
    private readonly options: UpstreamConnectionsOptions,
    private readonly scope: AsyncLocalStorage<CallScope>,
    private readonly transports: TenantTransports,
    private readonly callers: CallerSessions,
    private readonly taskInputs: TaskInputInbox,
  ) {}

  get size(): number {
    return this.connections.size;
  }

  /** The plan's connection, opened when there is none (then the connection's handshake is under way). */
  open(plan: ConnectionPlan, route: UpstreamRoute, tenantId: string, maxBytes: number): Connection {
    const key = plan.key;
    const known = this.connections.get(key);
    if (known) {
      // Most recently used last: eviction takes the idle connection unused the longest.
      this.connections.delete(key);
      this.connections.set(key, known);
      return known;
    }
    this.evictIdle();
    const caller = plan.owner !== undefined ? this.callers.open(tenantId, key, route.serverId) : undefined;
    // `ready` is set below: the handshake's relayed requests answer through this object.
    const created = { calls: new Set<AbortController>(), notifiers: new Map<AbortController, Notify>() } as Connection;
    if (caller) created.caller = caller;
    if (plan.inbox) created.inbox = inboxOwner(tenantId, route.serverId, plan.owner!, '');
    // The connection runs in its own scope (not the first caller's): a later break of a stream it
    // opened (the legacy SSE transport's GET stream carries every answer) fails the calls waiting on it.
    const connScope: CallScope = {
      maxBytes,
      maxStreamBytes: undefined,
      askClient: undefined,
      signal: undefined,
      fail: (err) => {
        for (const call of created.calls) call.abort(err);
        if (route.transport === 'sse') void this.drop(key);
      },
    };
    const connect = (session?: SharedUpstreamSession) => this.connect(route, tenantId, plan, created, session);
    const sessions =
      route.stateful === true && route.protocol !== 'modern' && route.transport !== 'sse' ? this.options.sessions : undefined;
    created.ready = this.scope.run(connScope, () => (sessions ? this.sharedSession(key, sessions, connect) : connect()));
    this.connections.set(key, created);
    created.ready.catch(() => {
      if (this.connections.get(key) === created) this.connections.delete(key);
      if (caller) this.callers.forget(key, caller);
    });
    return created;
  }

  async drop(key: string): Promise<void> {
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

  async closeAll(): Promise<void> {
    await Promise.all([...this.connections.keys()].map((k) => this.drop(k)));
  }

  private connect(
    route: UpstreamRoute,
    tenantId: string,
    plan: ConnectionPlan,
    conn: Connection,
    session: SharedUpstreamSession | undefined,
  ): Promise<UpstreamConnection> {
    const dispatcher = route.transport === 'sse' ? undefined : this.transports.dispatcherFor(tenantId);
    return connectUpstream({
      url: route.url,
      era: route.protocol === 'modern' ? 'modern' : 'legacy',
      transport: route.transport === 'sse' ? 'sse' : 'streamable-http',
      headers: route.headers ?? {},
      fetch: this.transports.fetchFor(tenantId),
      followRedirects: this.options.followRedirects,
      timeoutMs: route.timeoutMs ?? this.options.timeoutMs,
      clientInfo: { name: 'switchboard-gateway', version: '0.1.0' },
      answer: this.answers(route, tenantId, plan, conn),
      // The client's elicitation modes, not the bare `{}` (form only): a URL-mode tool exists only for a session declaring `url`.
      ...(plan.elicitation ? { capabilities: { elicitation: plan.elicitation } } : {}),
      onnotification: (method, params) => {
        // The session's own notifications name no request: they go to the caller only while exactly
        // one call is in flight on the session (the one it can be serving); otherwise they are dropped.
        if (conn.notifiers.size !== 1) return;
        for (const notify of conn.notifiers.values()) notify(method, params);
      },
      ...(dispatcher ? { dispatcher } : {}),
      ...(session ? { session } : {}),
    });
  }

  /**
   * Answers to the upstream's server→client requests. One arrives on the stream of the call that
   * caused it, so it runs in that call's scope and goes to that call's client (never another
   * caller's); one sent on the session's own stream (roots/list) reaches a caller only on a caller's own connection.
   */
  private answers(
    route: UpstreamRoute,
    tenantId: string,
    plan: ConnectionPlan,
    conn: Connection,
  ): Partial<Record<RelayedMethod, (params: Record<string, unknown>) => Promise<unknown>>> {
    const answer = async (method: RelayedMethod, params: Record<string, unknown>): Promise<unknown> => {
      const ask = this.scope.getStore()?.askClient ?? (conn.caller ? this.callers.asker(conn.caller) : undefined);
      // None of the caller's calls can take it (a 2026-07-28 client polls its task): it waits for tasks/update.
      const session = !ask && plan.inbox ? (await conn.ready).sessionId() : undefined;
      if (session !== undefined) return this.taskInputs.ask(inboxOwner(tenantId, route.serverId, plan.owner!, session), method, params);
      if (!ask) throw new McpError(ErrorCode.MethodNotFound, `${method}: the client of this call cannot answer server-to-client requests`);
      return ask(method, params);
    };
    return Object.fromEntries(plan.relay.map((method) => [method, (params: Record<string, unknown>) => answer(method, params)]));
  }

  /**
   * A stateful upstream's connection on the session replicas share for this key: the stored one
   * when there is one, else a fresh one offered as the shared one (when another replica stored
   * its own first, that one is joined and ours closed).
   */
  private async sharedSession(
    key: string,
    sessions: UpstreamSessions,
    connect: (session?: SharedUpstreamSession) => Promise<UpstreamConnection>,
  ): Promise<UpstreamConnection> {
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

  /** Per-user connector tokens key one connection each (a refresh opens another): the table stays bounded. */
  private evictIdle(): void {
    const max = this.options.maxConnections;
    if (this.connections.size < max) return;
    let scanned = 0;
    for (const [key, conn] of this.connections) {
      if (this.connections.size < max || scanned++ >= EVICTION_SCAN) break;
      if (conn.calls.size === 0) void this.drop(key);
    }
  }
}

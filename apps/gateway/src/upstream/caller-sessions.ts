import { createHash } from 'node:crypto';
import type { InvokeContext } from '@switchboard/mcp-http';
import { GatewayError } from './gateway-errors';

/** Relays one server→client request to a caller's client (an in-flight call's `askClient`). */
export type AskClient = NonNullable<InvokeContext['askClient']>;

/** Caller-scoped upstream connections one tenant may hold open in one replica (idle ones past it close, least recently used first). */
export const MAX_CALLER_SESSIONS_PER_TENANT = 64;
/** A caller-scoped upstream connection unused this long is closed (its shared session id still expires in Redis on its own). */
export const CALLER_SESSION_IDLE_MS = 5 * 60_000;

/** One caller's own upstream connection: the calls in flight on it that can relay a request to that caller's client. */
export interface CallerSession {
  readonly tenantId: string;
  readonly askers: Map<AbortController, AskClient>;
  idle?: NodeJS.Timeout;
}

/**
 * Whose upstream session a call uses when it needs one of its own (its client declared `roots`,
 * or it runs an upstream task): the caller as the rest of the gateway knows it (tasks, parked
 * calls, server→client request ids) — the signed-in subject and its OAuth client; every anonymous
 * caller of an open tenant is one caller. A hash, so the connection key (and the Redis key made
 * from it) never holds the subject in clear.
 */
export function callerScope(ctx: InvokeContext): string {
  const parts = `${ctx.auth?.subject ?? ''}\n${ctx.auth?.clientId ?? ''}`;
  return createHash('sha256').update(parts).digest('base64url').slice(0, 22);
}

/**
 * The caller-scoped connections of a replica, per tenant: at most
 * {@link MAX_CALLER_SESSIONS_PER_TENANT} each, closed after {@link CALLER_SESSION_IDLE_MS} unused,
 * so a tenant whose callers each open their own upstream session cannot grow the pool unbounded.
 */
export class CallerSessions {
  private readonly byTenant = new Map<string, Map<string, CallerSession>>();

  constructor(
    private readonly close: (key: string) => void,
    private readonly max = MAX_CALLER_SESSIONS_PER_TENANT,
    private readonly idleMs = CALLER_SESSION_IDLE_MS,
  ) {}

  /**
   * Registers a new caller-scoped connection `key`; at the tenant's cap its least recently used
   * idle one is closed first.
   * @throws GatewayError GW_CALLER_SESSIONS_LIMIT when every one of them has a call in flight.
   */
  open(tenantId: string, key: string, upstream: string): CallerSession {
    let mine = this.byTenant.get(tenantId);
    if (!mine) this.byTenant.set(tenantId, (mine = new Map()));
    if (mine.size >= this.max) {
      const idle = [...mine].find(([, s]) => s.askers.size === 0 && s.idle !== undefined);
      if (!idle) {
        throw new GatewayError(
          'GW_CALLER_SESSIONS_LIMIT',
          `The gateway refused this call to ${upstream}: tenant ${tenantId} already has ${this.max} callers with their own upstream session (clients declaring roots) busy in this gateway; retry later`,
          { upstream, max: this.max },
        );
      }
      this.close(idle[0]);
    }
    const session: CallerSession = { tenantId, askers: new Map() };
    mine.set(key, session);
    return session;
  }

  /** A call starts on the caller's connection: it is used (not idle), and its client can be asked. */
  begin(key: string, session: CallerSession, call: AbortController, ask: AskClient | undefined): void {
    if (session.idle) clearTimeout(session.idle);
    session.idle = undefined;
    const mine = this.byTenant.get(session.tenantId);
    // Most recently used last.
    mine?.delete(key);
    mine?.set(key, session);
    if (ask) session.askers.set(call, ask);
  }

  /** A call ended; with none left the connection closes after the idle time. */
  end(key: string, session: CallerSession, call: AbortController, callsLeft: number): void {
    session.askers.delete(call);
    if (callsLeft > 0 || session.idle) return;
    session.idle = setTimeout(() => this.close(key), this.idleMs);
    session.idle.unref();
  }

  /** The client to ask for a request the upstream sent outside any call: the caller's latest call in flight. */
  asker(session: CallerSession): AskClient | undefined {
    let last: AskClient | undefined;
    for (const ask of session.askers.values()) last = ask;
    return last;
  }

  /** The connection closed. */
  forget(key: string, session: CallerSession): void {
    if (session.idle) clearTimeout(session.idle);
    session.idle = undefined;
    const mine = this.byTenant.get(session.tenantId);
    if (mine?.get(key) !== session) return;
    mine.delete(key);
    if (mine.size === 0) this.byTenant.delete(session.tenantId);
  }

  /** Caller-scoped connections a tenant has open in this replica. */
  count(tenantId: string): number {
    return this.byTenant.get(tenantId)?.size ?? 0;
  }
}

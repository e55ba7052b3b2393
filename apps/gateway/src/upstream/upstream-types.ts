import type { Route } from '@switchboard/catalog';
import type { RelayedMethod } from '@switchboard/upstream-client';
import type { InvokeContext } from '@switchboard/mcp-http';
import type { ConnectorCredential } from '../auth/connector-tokens';

/** A catalog route to a tenant's upstream MCP server. */
export type UpstreamRoute = Extract<Route, { kind: 'upstream' }>;

/** A tenant's upstream circuit: `half-open` lets one trial call through. */
export type CircuitState = 'closed' | 'open' | 'half-open';

/** Told each time an upstream's circuit changes state (and once, `closed`, when it is first called). */
export type CircuitListener = (tenantId: string, serverId: string, state: CircuitState) => void;

/** Per-user credentials of enterprise connectors: a resolver for the routes that need one, else undefined. */
export type ConnectorCredentialLookup = (
  tenantId: string,
  serverId: string,
  ctx: InvokeContext,
) => Promise<ConnectorCredential> | undefined;

/** Elicitation modes a connection declares for its callers' clients. */
export type ElicitationModes = { form?: object; url?: object };

/** Which upstream connection a call goes on, and what that connection declares. */
export interface ConnectionPlan {
  /** Route keys, plus the relayed capabilities, plus the caller when the session is its own. */
  readonly key: string;
  /** Server→client requests the connection relays to its callers' clients. */
  readonly relay: readonly RelayedMethod[];
  readonly elicitation: ElicitationModes | undefined;
  /** The caller owning the session when it is one caller's own (see CallerSessions). */
  readonly owner: string | undefined;
  /** A 2026-07-28 caller's own session: it holds the upstream's questions for its tasks/update. */
  readonly inbox: boolean;
}

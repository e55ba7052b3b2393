import type { InvokeContext } from '@switchboard/mcp-http';
import type { RelayedMethod } from '@switchboard/upstream-client';
import { callerScope } from './caller-sessions';
import type { RouteKeys } from './route-keys';
import type { ConnectionPlan, ElicitationModes } from './upstream-types';

/** Client capabilities the gateway relays to upstreams (their requests go to the caller's client). */
const RELAYED: Record<string, RelayedMethod> = {
  elicitation: 'elicitation/create',
  roots: 'roots/list',
  sampling: 'sampling/createMessage',
};

/**
 * The connection a call goes on. Connections are keyed by credential (in the route keys) and by
 * the client capabilities relayed upstream, so each declares exactly what its callers' clients
 * answer. `callersSession`: the request belongs on the session the caller's tool calls use;
 * `taskCall`: it is about an upstream task, whose questions arrive outside any call of ours.
 */
export function planConnection(keys: RouteKeys, ctx: InvokeContext, callersSession: boolean, taskCall: boolean): ConnectionPlan {
  if (!ctx.askClient && !callersSession) return keys.plan;
  const capabilities = ctx.request.clientCapabilities;
  const relay = relayedRequests(capabilities);
  if (relay.length === 0) return keys.plan;
  const elicitation = relay.includes('elicitation/create') ? elicitationModes(capabilities) : undefined;
  let key = `${keys.connection} relay:${relay.join(',')}${elicitation ? `:${Object.keys(elicitation).join('+')}` : ''}`;
  // An upstream asks roots/list on its session, outside any call — and a task's input on a
  // stream it relates to no call of ours: such a caller gets a session of its own, so the question is its.
  const ownSession = relay.includes('roots/list') || taskCall;
  const owner = ownSession ? callerScope(ctx) : undefined;
  if (owner !== undefined) key += ` caller:${owner}`;
  // A 2026-07-28 caller's own session holds the upstream's questions for its tasks/update
  // (no call of such a client can be asked); a legacy caller's is answered -32601 instead.
  const inbox = ownSession && ctx.request.era === 'modern';
  if (inbox) key += ' inbox';
  return { key, relay, elicitation, owner, inbox };
}

/** The relayable requests a client declared the capabilities for, in a stable order (part of the connection key). */
function relayedRequests(capabilities: Record<string, unknown> | undefined): RelayedMethod[] {
  if (!capabilities) return [];
  return Object.keys(RELAYED)
    .filter((c) => Object.hasOwn(capabilities, c))
    .map((c) => RELAYED[c]!);
}

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

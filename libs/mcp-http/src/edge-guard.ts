import { ErrorCode, McpError, type JsonRpcRequest } from '@switchboard/protocol';
import type { EdgeCall } from './edge-call';
import type { AuthDenied, AuthOutcome } from './auth-outcome';
import type { McpTarget } from './mcp-target';
import { hostAllowed, originAllowed } from './origin-policy';

/**
 * Step 1 of every method: tenant, Host and Origin. Sets `call.target`; answers (and records
 * the refusal) and returns false when the request must stop. Synchronous unless the tenant
 * must be fetched first.
 */
export function guardRequest(call: EdgeCall): boolean | Promise<boolean> {
  const host = call.header('host');
  const target = call.edge.policy.resolveTarget(call.tenant, host);
  if (target instanceof Promise) return target.then((t) => guardTarget(call, host, t));
  return guardTarget(call, host, target);
}

function guardTarget(call: EdgeCall, host: string | undefined, target: McpTarget | undefined): boolean {
  const edge = call.edge;
  if (!target) {
    edge.refuse(call, 404, new McpError(ErrorCode.InvalidRequest, call.tenant ? `Unknown tenant: ${call.tenant}` : 'Unknown MCP endpoint'));
    return false;
  }
  call.target = target;
  if (!hostAllowed(host, target.allowedHosts)) {
    edge.refuse(call, 403, new McpError(ErrorCode.InvalidRequest, `Host not allowed: ${host ?? '(none)'}`));
    return false;
  }
  const origin = call.header('origin');
  if (origin !== undefined && !originAllowed(origin, target.allowedOrigins)) {
    edge.refuse(call, 403, new McpError(ErrorCode.InvalidRequest, `Origin not allowed: ${origin}`));
    return false;
  }
  return true;
}

/**
 * Step 2 of every method: the policy's bearer check; sets `call.auth`, or answers the refusal
 * and returns false. Stays synchronous when the policy answers synchronously (open tenants,
 * cached tokens), so the common path does not wait a microtask for nothing.
 */
export function authenticateRequest(call: EdgeCall): boolean | Promise<boolean> {
  const policy = call.edge.policy;
  if (!policy.authenticate) return true;
  const outcome = policy.authenticate(call, call.target);
  if (outcome instanceof Promise) return outcome.then((o) => admitCaller(call, o));
  return admitCaller(call, outcome);
}

function admitCaller(call: EdgeCall, outcome: AuthOutcome): boolean {
  if (outcome.ok) {
    call.auth = outcome;
    return true;
  }
  call.code(outcome.status).setHeaders(outcome.headers).send(outcome.body);
  call.edge.refused(call);
  return false;
}

/** A tools/call the token's scopes do not cover (checked before the call runs). */
export function toolDenied(call: EdgeCall, message: JsonRpcRequest): AuthDenied | undefined {
  const policy = call.edge.policy;
  if (!call.auth || !policy.authorizeTool || message.method !== 'tools/call') return undefined;
  const name = message.params?.name;
  return typeof name === 'string' ? policy.authorizeTool(call.target, name, call.auth) : undefined;
}

import type { EdgeReply, EdgeRequest } from './edge-http';
import { ErrorCode, McpError, type JsonRpcRequest } from '@switchboard/protocol';
import { header, type McpEdge } from './mcp-edge';
import type { AuthDenied, AuthGranted, AuthOutcome, McpTarget } from './mcp-target';
import { hostAllowed, originAllowed } from './origin-policy';

type RouteParams = Record<string, string | undefined>;
const NO_PARAMS: RouteParams = Object.freeze({});

/** Step 1 of every method: tenant, Host and Origin. Answers (and records the refusal) and returns undefined when the request must stop. */
export function guardRequest(edge: McpEdge, req: EdgeRequest, reply: EdgeReply): McpTarget | undefined {
  const params = (req.params ?? NO_PARAMS) as RouteParams;
  const host = header(req, 'host');
  const target = edge.policy.resolveTarget(params, host);
  if (!target) {
    edge.refuse(req, reply, 404, undefined, new McpError(ErrorCode.InvalidRequest, params.tenant ? `Unknown tenant: ${params.tenant}` : 'Unknown MCP endpoint'));
    return undefined;
  }
  if (!hostAllowed(host, target.allowedHosts)) {
    edge.refuse(req, reply, 403, target.tenantId, new McpError(ErrorCode.InvalidRequest, `Host not allowed: ${host ?? '(none)'}`));
    return undefined;
  }
  const origin = header(req, 'origin');
  if (origin !== undefined && !originAllowed(origin, target.allowedOrigins)) {
    edge.refuse(req, reply, 403, target.tenantId, new McpError(ErrorCode.InvalidRequest, `Origin not allowed: ${origin}`));
    return undefined;
  }
  return target;
}

/** Who is calling. `false` ⇒ refused (already answered); undefined ⇒ the endpoint is open. */
export type Caller = AuthGranted | undefined | false;

/**
 * Step 2: the policy's bearer check. Stays synchronous when the policy answers synchronously
 * (open tenants, cached tokens), so the common path does not wait a microtask for nothing.
 */
export function authenticateRequest(edge: McpEdge, req: EdgeRequest, reply: EdgeReply, target: McpTarget): Caller | Promise<Caller> {
  const authenticate = edge.policy.authenticate;
  if (!authenticate) return undefined;
  const outcome = authenticate.call(edge.policy, req, target);
  if (outcome instanceof Promise) return outcome.then((o) => callerOf(edge, req, reply, target, o));
  return callerOf(edge, req, reply, target, outcome);
}

function callerOf(edge: McpEdge, req: EdgeRequest, reply: EdgeReply, target: McpTarget, outcome: AuthOutcome): Caller {
  if (outcome.ok) return outcome;
  void reply.code(outcome.status).headers(outcome.headers).send(outcome.body);
  edge.refused(req, reply, target.tenantId);
  return false;
}

/** A tools/call the token's scopes do not cover (checked before the call runs). */
export function toolDenied(edge: McpEdge, target: McpTarget, message: JsonRpcRequest, auth: AuthGranted | undefined): AuthDenied | undefined {
  const authorizeTool = edge.policy.authorizeTool;
  if (!auth || !authorizeTool || message.method !== 'tools/call') return undefined;
  const name = message.params?.name;
  return typeof name === 'string' ? authorizeTool.call(edge.policy, target, name, auth) : undefined;
}

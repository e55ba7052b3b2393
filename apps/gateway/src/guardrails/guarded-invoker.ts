import type { GetPromptResult, ReadResourceResult, ToolCallResult } from '@switchboard/catalog';
import {
  runChain,
  type ChainDeps,
  type CompiledGuardrails,
  type HookPoint,
  type InterceptContext,
  type InterceptionEvent,
} from '@switchboard/guardrails';
import type { InvokeContext, UpstreamInvoker, UpstreamTaskAnswer } from '@switchboard/mcp-http';
import { ErrorCode, McpError } from '@switchboard/protocol';
import type { UpstreamRoute } from '../upstream/upstream-pool';

type Chains = CompiledGuardrails['chains'];

/** What an interception is about: the upstream call (its route and context), its target (tool, prompt or URI) and the arguments sent. */
interface Intercepted {
  route: UpstreamRoute;
  target: string;
  args: Record<string, unknown>;
  ctx: InvokeContext;
}

/** Each hook point's event (the part before the colon), without slicing a string per interception. */
const EVENT_OF: Record<HookPoint, InterceptionEvent> = {
  'tools/call:request': 'tools/call',
  'tools/call:response': 'tools/call',
  'prompts/get:response': 'prompts/get',
  'resources/read:response': 'resources/read',
};

/** Where the wrapper finds a tenant's compiled interceptors (`TenantGuardrails`). */
export interface GuardrailsLookup {
  of(tenantId: string): CompiledGuardrails | undefined;
}

/**
 * Wraps the upstream invoker with the tenant's interceptors on `tools/call` (arguments and
 * result), `prompts/get` and `resources/read` (results). The wrapper delegates through the
 * prototype, so every other method (and whether an optional one exists) is the inner
 * invoker's. A tenant without interceptors costs one Map lookup per call and nothing else.
 * A denial is an `isError` tool result, or a JSON-RPC error for prompts and resources, naming
 * the interceptor and its reason only.
 */
export function guardInvoker<T extends UpstreamInvoker>(inner: T, guardrails: GuardrailsLookup, deps: (tenantId: string) => ChainDeps): T {
  const guarded = Object.create(inner) as T;
  const base = {
    callTool: inner.callTool.bind(inner),
    readResource: inner.readResource.bind(inner),
    getPrompt: inner.getPrompt.bind(inner),
    upstreamTask: inner.upstreamTask?.bind(inner),
  };
  // A tenant without interceptors gets the inner call's own promise: no extra async frame per call.
  guarded.callTool = (route, args, ctx) => {
    const chains = guardrails.of(ctx.tenantId)?.chains;
    return chains ? guardedCall(chains, route, args, ctx) : base.callTool(route, args, ctx);
  };
  const guardedCall = async (chains: Chains, route: UpstreamRoute, args: Record<string, unknown>, ctx: InvokeContext) => {
    const on: Intercepted = { route, target: route.upstreamName, args, ctx };
    const before = await intercept(chains, 'tools/call:request', args, on, deps);
    if (before.kind === 'deny') return denied(before.interceptor, before.reason);
    // The result chain sees the arguments actually sent.
    on.args = before.payload as Record<string, unknown>;
    const result = await base.callTool(route, on.args, ctx);
    const after = await intercept(chains, 'tools/call:response', result, on, deps);
    return after.kind === 'deny' ? denied(after.interceptor, after.reason) : (after.payload as ToolCallResult);
  };
  guarded.getPrompt = (route, args, ctx) => {
    const chains = guardrails.of(ctx.tenantId)?.chains;
    if (!chains) return base.getPrompt(route, args, ctx);
    return base.getPrompt(route, args, ctx).then(async (result) => {
      const after = await intercept(chains, 'prompts/get:response', result, { route, target: route.upstreamName, args, ctx }, deps);
      if (after.kind === 'deny') throw refusal(after.interceptor, after.reason);
      return after.payload as GetPromptResult;
    });
  };
  guarded.readResource = (route, uri, ctx) => {
    const chains = guardrails.of(ctx.tenantId)?.chains;
    if (!chains) return base.readResource(route, uri, ctx);
    return base.readResource(route, uri, ctx).then(async (result) => {
      const after = await intercept(chains, 'resources/read:response', result, { route, target: uri, args: {}, ctx }, deps);
      if (after.kind === 'deny') throw refusal(after.interceptor, after.reason);
      return after.payload as ReadResourceResult;
    });
  };
  const upstreamTask = base.upstreamTask;
  if (upstreamTask) {
    /**
     * Task-augmented tools/call (an upstream's own task): the arguments are checked like a plain
     * call, and the result a `tasks/result` hands back goes through the result chain, so asking for
     * a task is no way around the interceptors.
     */
    guarded.upstreamTask = async (route, request, ctx): Promise<UpstreamTaskAnswer> => {
      const chains = guardrails.of(ctx.tenantId)?.chains;
      if (!chains || (request.method !== 'tools/call' && request.method !== 'tasks/result')) return upstreamTask(route, request, ctx);
      const args = (request.params.arguments ?? {}) as Record<string, unknown>;
      const on: Intercepted = { route, target: route.upstreamName, args, ctx };
      if (request.method === 'tools/call') {
        const before = await intercept(chains, 'tools/call:request', args, on, deps);
        if (before.kind === 'deny') throw refusal(before.interceptor, before.reason);
        return upstreamTask(route, { ...request, params: { ...request.params, arguments: before.payload } }, ctx);
      }
      const answer = await upstreamTask(route, request, ctx);
      on.args = {};
      const after = await intercept(chains, 'tools/call:response', answer.result, on, deps);
      if (after.kind === 'deny')
        return { ...answer, result: denied(after.interceptor, after.reason) as unknown as Record<string, unknown> };
      return { ...answer, result: after.payload as Record<string, unknown> };
    };
  }
  return guarded;
}

function intercept(
  chains: Chains,
  point: HookPoint,
  payload: unknown,
  on: Intercepted,
  deps: (tenantId: string) => ChainDeps,
): ReturnType<typeof runChain> | { kind: 'pass'; payload: unknown } {
  const chain = chains[point];
  if (!chain) return { kind: 'pass', payload };
  const { ctx } = on;
  const auth = ctx.auth;
  const context: InterceptContext = {
    point,
    event: EVENT_OF[point],
    server: on.route.serverId,
    target: on.target,
    caller: {
      subject: auth?.subject ?? '',
      scopes: [...(auth?.scopes ?? [])],
      groups: [...(auth?.groups ?? [])],
      client: auth?.clientId ?? ctx.request.clientInfo?.name ?? '',
    },
    args: on.args,
    now: new Date(),
  };
  return runChain(chain, payload, context, deps(ctx.tenantId));
}

function denied(interceptor: string, reason: string): ToolCallResult {
  return { content: [{ type: 'text', text: `Denied by interceptor "${interceptor}": ${reason}` }], isError: true };
}

function refusal(interceptor: string, reason: string): McpError {
  return new McpError(ErrorCode.InvalidRequest, `Denied by interceptor "${interceptor}": ${reason}`, { interceptor, reason });
}

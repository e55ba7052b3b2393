import type { GetPromptResult, ReadResourceResult, Route, ToolCallResult } from '@switchboard/catalog';
import type { InvokeContext } from './invoke-context';

/**
 * Calls a non-local route (a tenant's upstream MCP server). The gateway implements this
 * with the official SDK client; built-in servers that only have local handlers omit it.
 */
export interface UpstreamInvoker {
  callTool(route: Extract<Route, { kind: 'upstream' }>, args: Record<string, unknown>, ctx: InvokeContext): Promise<ToolCallResult>;
  readResource(route: Extract<Route, { kind: 'upstream' }>, uri: string, ctx: InvokeContext): Promise<ReadResourceResult>;
  getPrompt(route: Extract<Route, { kind: 'upstream' }>, args: Record<string, string>, ctx: InvokeContext): Promise<GetPromptResult>;
  /** `completion/complete` for the route's prompt or resource template (`ref` names the upstream's own). Absent ⇒ empty completions. */
  complete?(route: Extract<Route, { kind: 'upstream' }>, request: UpstreamCompletion, ctx: InvokeContext): Promise<unknown>;
  /**
   * One request about an upstream's own task (2025-11-25 tasks utility, or the 2026-07-28 tasks extension): a `tools/call` or
   * `tasks/get` / `tasks/result` / `tasks/update` / `tasks/cancel`, on the upstream session that created the
   * task. Absent ⇒ upstream tasks are not proxied.
   * @throws McpError for a JSON-RPC error (the upstream's, or the gateway's refusal).
   */
  upstreamTask?(route: Extract<Route, { kind: 'upstream' }>, request: UpstreamTaskRequest, ctx: InvokeContext): Promise<UpstreamTaskAnswer>;
  /**
   * Server→client requests (by key) a 2025-11-25 upstream sent on the caller's own task
   * `session` that wait for a 2026-07-28 client's answer; absent ⇒ such input is not relayed.
   */
  pendingTaskInput?(
    route: Extract<Route, { kind: 'upstream' }>,
    session: string,
    ctx: InvokeContext,
  ): Promise<Record<string, { method: string; params: Record<string, unknown> }>>;
  /** The client's `inputResponses` to those requests, passed to the upstream; answers the keys taken. */
  answerTaskInput?(
    route: Extract<Route, { kind: 'upstream' }>,
    session: string,
    responses: Record<string, unknown>,
    ctx: InvokeContext,
  ): Promise<string[]>;
  /** Forwards a legacy caller's `logging/setLevel` to a stateful upstream's session for this caller; absent ⇒ answered locally only. */
  setLogLevel?(route: Extract<Route, { kind: 'upstream' }>, level: string, ctx: InvokeContext): Promise<void>;
  /** Forwards a legacy caller's `resources/subscribe` (`on`) / `unsubscribe` to the upstream owning `uri`; absent ⇒ acknowledged locally only. */
  subscribeResource?(route: Extract<Route, { kind: 'upstream' }>, uri: string, on: boolean, ctx: InvokeContext): Promise<void>;
}

/** One `completion/complete` as the upstream receives it: its own prompt name or URI template in `ref`. */
export interface UpstreamCompletion {
  ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };
  argument: { name: string; value: string };
  context?: { arguments: Record<string, string> };
}

/** See {@link UpstreamInvoker.upstreamTask}; `params` as the upstream gets them (its tool name, its task id). */
export interface UpstreamTaskRequest {
  method: 'tools/call' | 'tasks/get' | 'tasks/result' | 'tasks/cancel' | 'tasks/update';
  params: Record<string, unknown>;
  /** The upstream session that created the task; absent for the `tools/call` that creates it. */
  session?: string;
}

export interface UpstreamTaskAnswer {
  result: Record<string, unknown>;
  /** The upstream session the request went on (sealed into the task handle at creation). */
  session: string | undefined;
}

import type { CompiledCatalog } from '@switchboard/catalog';
import { ErrorCode, McpError, checkParamHeaders } from '@switchboard/protocol';
import type { DispatchInput } from './dispatch-input';
import type { InvokeContext } from './invoke-context';
import { requireClientCapabilities } from './require-client-capabilities';
import { UpstreamTasks } from './upstream-tasks';
import type { UpstreamTaskCall } from './upstream-task-shape';

export type ToolSlot = NonNullable<ReturnType<CompiledCatalog['tool']>>;

/** Refuses a call its client cannot serve: missing client capabilities, or (modern) Mcp-Param-* headers that disagree with the body. */
export function checkToolRequest(input: DispatchInput, name: string, found: ToolSlot, args: Record<string, unknown>): void {
  requireClientCapabilities(name, found.entry.definition.requiredClientCapabilities, input.context.clientCapabilities, input.context.era);
  if (input.context.era === 'modern') {
    // SEP-2243: arguments a tool mirrors into Mcp-Param-* headers must agree with the body.
    const mirrored = found.headerParams();
    if (mirrored.length > 0) checkParamHeaders(mirrored, args, input.headers ?? {});
  }
}

/** A 2026-07-28 call of a required-task tool on a 2025-11-25 upstream: the upstream's task, in the modern shape. */
export async function createModernUpstreamTask(tasks: UpstreamTasks, call: UpstreamTaskCall, ctx: InvokeContext): Promise<object> {
  const created = await tasks.create(call, {}, ctx);
  return isCreated(created) ? UpstreamTasks.modernCreated(created.task) : created;
}

function isCreated(value: object): value is { task: Parameters<typeof UpstreamTasks.modernCreated>[0] } {
  return 'task' in value && typeof (value as { task?: unknown }).task === 'object';
}

/** A tools/call's `arguments`, checked as callTool checks them (a meta-tool call must not see a non-object). */
export function toolArguments(params: Record<string, unknown>): Record<string, unknown> {
  const args = params.arguments ?? {};
  if (typeof args !== 'object' || args === null || Array.isArray(args))
    throw new McpError(ErrorCode.InvalidParams, 'params.arguments must be an object');
  return args as Record<string, unknown>;
}

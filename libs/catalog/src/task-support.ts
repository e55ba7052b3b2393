import type { ToolDefinition } from './definitions';

/**
 * A discovered upstream tool with our internal `taskSupport` set from its 2025-11-25
 * `execution.taskSupport` (and only from it: a `taskSupport` field the upstream sent is
 * dropped, so an upstream cannot set a field of ours). `optional`: the call may become a
 * gateway task for 2026-07-28 clients, and a 2025-11-25 client's task-augmented call becomes
 * the upstream's own task, proxied; `required`: every call is the upstream's own task (a
 * 2026-07-28 client without the tasks extension gets −32021). The upstream's other fields
 * are kept as they came (publishing never copies unknown ones).
 */
export function withUpstreamTaskSupport<T extends ToolDefinition>(tool: T): T {
  const execution = (tool as { execution?: unknown }).execution;
  const support = typeof execution === 'object' && execution !== null ? (execution as { taskSupport?: unknown }).taskSupport : undefined;
  const { taskSupport: _dropped, ...rest } = tool;
  void _dropped;
  return support === 'optional' || support === 'required' ? ({ ...rest, taskSupport: support } as T) : (rest as T);
}

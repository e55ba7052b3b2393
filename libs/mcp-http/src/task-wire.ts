import { createHash } from 'node:crypto';
import type { InputRequiredResult } from '@switchboard/catalog';
import { ErrorCode, McpError } from '@switchboard/protocol';
import { overBudgetError, type ByteBudget } from './byte-budgets';
import type { StoredTask, TaskView } from './task-store';

// The tasks extension's wire side (SEP-2663): its names, what a request must declare, and the
// shapes a reader gets back; the TaskManager runs the tasks themselves.

/** The tasks extension's identifier (SEP-2663). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** Methods the tasks extension adds to 2026-07-28 (`tasks/result` and `tasks/list` are gone in it). */
export const TASK_METHODS: ReadonlySet<string> = new Set(['tasks/get', 'tasks/update', 'tasks/cancel']);

/** Whether per-request client capabilities declare the tasks extension (an empty object, per the spec). */
export function declaresTasks(capabilities: Record<string, unknown> | undefined): boolean {
  const extensions = capabilities?.extensions;
  if (typeof extensions !== 'object' || extensions === null || Array.isArray(extensions)) return false;
  const value = (extensions as Record<string, unknown>)[TASKS_EXTENSION];
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Whether a call of a tool is refused for lacking the tasks extension: a `required` tool runs only
 * as a task, and a 2026-07-28 request gets one only when it declares the extension (−32021 otherwise).
 * The dispatcher refuses with it, and the registry's Explain API reports it.
 */
export function refusesWithoutTasks(
  taskSupport: 'optional' | 'required' | undefined,
  era: 'modern' | 'legacy',
  capabilities: Record<string, unknown> | undefined,
): boolean {
  return taskSupport === 'required' && era === 'modern' && !declaresTasks(capabilities);
}

/** −32021 naming the tasks extension (a required-task tool, or tasks/* from a client that did not declare it). */
export function missingTasksCapability(what: string): McpError {
  return new McpError(
    ErrorCode.MissingRequiredClientCapability,
    `${what} needs the client capability extensions["${TASKS_EXTENSION}"], which this request did not declare`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    400,
  );
}

/** Whose task it is: tasks are bound to tenant + subject; another caller's lookup finds nothing. */
export interface TaskScope {
  tenantId: string;
  subject: string;
}

/** Store key of a task: bound to tenant and subject, so the same id under another caller is another (absent) key. */
export function taskKey(scope: TaskScope, taskId: string): string {
  // `{tenant}` is a Redis Cluster hash tag: a task's keys and its tenant's sets share one slot.
  return `{${scope.tenantId}}:${createHash('sha256').update(`${scope.tenantId}\n${scope.subject}\n${taskId}`).digest('base64url')}`;
}

export function isTerminal(status: StoredTask['status']): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

export function isInputRequired(result: unknown): result is InputRequiredResult {
  return typeof result === 'object' && result !== null && (result as { resultType?: unknown }).resultType === 'input_required';
}

/** The `DetailedTask` a reader sees: answered requests are no longer outstanding. */
export function detailed(view: TaskView): Record<string, unknown> {
  const { task } = view;
  const out: Record<string, unknown> = {
    taskId: task.taskId,
    status: task.status,
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: task.ttlMs,
    pollIntervalMs: task.pollIntervalMs,
  };
  if (task.statusMessage !== undefined) out.statusMessage = task.statusMessage;
  if (task.status === 'input_required') {
    const outstanding = Object.entries(task.inputRequests ?? {}).filter(([k]) => !view.answered.includes(k));
    // Everything answered: the owner is resuming the work.
    if (outstanding.length === 0) {
      out.status = 'working';
      delete out.statusMessage;
    } else out.inputRequests = Object.fromEntries(outstanding);
  }
  if (task.status === 'completed') out.result = task.result ?? {};
  if (task.status === 'failed') out.error = task.error ?? { code: ErrorCode.InternalError, message: 'Internal error' };
  return out;
}

export function checkResponses(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new McpError(ErrorCode.InvalidParams, "params.inputResponses must be an object of responses keyed like the task's inputRequests");
  }
  return value as Record<string, unknown>;
}

export function wireError(err: unknown): { code: number; message: string; data?: unknown } {
  if (err instanceof McpError)
    return err.data === undefined ? { code: err.code, message: err.message } : { code: err.code, message: err.message, data: err.data };
  return { code: ErrorCode.InternalError, message: 'Internal error' };
}

/** Turns `task` into the short failed record naming the byte budget its write went over (it fits the task's reservation). */
export function failOverBudget(task: StoredTask, budget: ByteBudget, limit: number): void {
  const what =
    task.status === 'input_required'
      ? "The task's inputRequests"
      : task.status === 'completed'
        ? "The task's result"
        : "The task's stored state";
  Object.assign(task, {
    status: 'failed',
    statusMessage: `Stopped: over the byte budget ${budget}`,
    error: overBudgetError(budget, limit, what),
    lastUpdatedAt: new Date().toISOString(),
  });
  delete task.result;
  delete task.inputRequests;
}

/** Why a task's work was aborted: the client cancelled it. */
export class TaskCancelled extends Error {
  constructor() {
    super('cancelled by the client');
  }
}

/** Why a task's work was aborted: it ran past `maxRunMs`. */
export class TaskTimeout extends Error {
  constructor(ms: number) {
    super(`it ran longer than ${ms} ms`);
  }
}

/** Whether `first` settles within `ms` (the caught copy keeps a rejection from being unhandled meanwhile). */
export function settlesWithin(first: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    first.then(
      () => (clearTimeout(timer), resolve(true)),
      () => (clearTimeout(timer), resolve(true)),
    );
  });
}

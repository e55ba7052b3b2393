import { ErrorCode, McpError } from '@switchboard/protocol';

/**
 * Byte budgets of what a tenant (or its upstreams) makes the platform store in the shared
 * Redis. Each is enforced by the script that writes the data (so concurrent replicas cannot
 * overshoot it); the names are the environment variables that set them, and what a refusal
 * names, so an operator can find the knob from the error.
 */
export interface TaskByteCaps {
  /** One task's stored record (result, inputRequests, error, status) and, apart, its pending answers. */
  maxTaskBytes: number;
  /** All of one tenant's retained tasks together (records and pending answers). */
  maxTenantBytes: number;
}

export const DEFAULT_TASK_BYTE_CAPS: TaskByteCaps = { maxTaskBytes: 1024 * 1024, maxTenantBytes: 64 * 1024 * 1024 };

/**
 * Every task record counts at least this much against its tenant's budget. A task that goes
 * over a budget is failed with a short record, which must always fit: its reservation does.
 */
export const TASK_RESERVE_BYTES = 4096;

/** Notification bytes relayed (and so stored, for a resumable stream) per call. */
export const DEFAULT_NOTIFY_MAX_BYTES_PER_CALL = 4 * 1024 * 1024;

/** Which budget a write went over. */
export type ByteBudget = 'TASKS_MAX_TASK_BYTES' | 'TASKS_TENANT_MAX_BYTES' | 'NOTIFY_MAX_BYTES_PER_CALL';

/** The refusal for a write over `budget` (−32602 for what the caller sent, with the budget in `data`). */
export function overBudget(budget: ByteBudget, limit: number, what: string): McpError {
  return new McpError(ErrorCode.InvalidParams, `${what} would exceed the byte budget ${budget} (${limit} bytes)`, {
    budget,
    limitBytes: limit,
  });
}

/** The stored error of a task failed over `budget`: short, so it fits the task's reservation. */
export function overBudgetError(
  budget: ByteBudget,
  limit: number,
  what: string,
): { code: number; message: string; data: { budget: ByteBudget; limitBytes: number } } {
  return {
    code: ErrorCode.InternalError,
    message: `${what.slice(0, 200)} exceeds the byte budget ${budget} (${limit} bytes)`,
    data: { budget, limitBytes: limit },
  };
}

import { ErrorCode, McpError } from '@switchboard/protocol';
import { overBudget, type TaskByteCaps } from './byte-budgets';
import type { StoredTask, TaskStore } from './task-store';
import { checkResponses, detailed, isTerminal, taskKey, type TaskScope } from './task-wire';

/** What answering a task request needs: the shared store, who this replica is, and the byte caps. */
export interface TaskRequestParts {
  store: TaskStore;
  replicaId: string;
  caps: TaskByteCaps;
}

/**
 * `tasks/get`, `tasks/update` (the client's answers, signalled to the owner) and `tasks/cancel`
 * on any replica; a task whose replica is gone is failed here rather than left running forever.
 * @throws McpError −32602 (bad params, unknown task), −32601 (another method).
 */
export async function answerTaskRequest(
  parts: TaskRequestParts,
  method: string,
  params: Record<string, unknown>,
  scope: TaskScope,
): Promise<Record<string, unknown>> {
  const taskId = params.taskId;
  if (typeof taskId !== 'string' || taskId.length === 0 || taskId.length > 256)
    throw new McpError(ErrorCode.InvalidParams, 'params.taskId must be a non-empty string (at most 256 characters)');
  let responses: Record<string, unknown> | undefined;
  if (method === 'tasks/update') responses = checkResponses(params.inputResponses);
  const key = taskKey(scope, taskId);
  const view = await parts.store.read(key);
  if (!view)
    throw new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId.slice(0, 64)} (unknown, expired, or not this caller's)`, {
      taskId: taskId.slice(0, 64),
    });
  const terminal = isTerminal(view.task.status);
  if (!terminal && view.task.owner !== parts.replicaId && !(await parts.store.isAlive(view.task.owner))) {
    // Its replica is gone (crashed, or stopped past its grace): the work will never finish.
    const failed: StoredTask = {
      ...view.task,
      status: 'failed',
      lastUpdatedAt: new Date().toISOString(),
      statusMessage: 'The server running this task stopped before it finished',
      error: { code: ErrorCode.InternalError, message: 'The server running this task stopped before it finished; call the tool again' },
    };
    delete failed.inputRequests;
    await parts.store.write(key, failed, true, parts.caps);
    return method === 'tasks/get' ? { ...detailed({ ...view, task: failed }), taskId } : {};
  }
  switch (method) {
    case 'tasks/get':
      // The id as the caller knows it (an anonymous task's carries its secret; the record does not).
      return { ...detailed(view), taskId };
    case 'tasks/update': {
      // Only keys outstanding now are taken; others are ignored, as the spec asks.
      const outstanding = view.task.inputRequests ?? {};
      const taken = Object.fromEntries(
        Object.entries(responses!).filter(([k]) => Object.hasOwn(outstanding, k) && !view.answered.includes(k)),
      );
      if (!terminal && Object.keys(taken).length > 0) {
        const stored = await parts.store.answer(key, taken, parts.caps);
        if (stored === 'task-bytes') throw overBudget('TASKS_MAX_TASK_BYTES', parts.caps.maxTaskBytes, 'params.inputResponses');
        if (stored === 'tenant-bytes') throw overBudget('TASKS_TENANT_MAX_BYTES', parts.caps.maxTenantBytes, 'params.inputResponses');
        await parts.store.signal(view.task.owner, key);
      }
      return {};
    }
    case 'tasks/cancel':
      if (!terminal && !view.cancelRequested) {
        await parts.store.requestCancel(key);
        await parts.store.signal(view.task.owner, key);
      }
      return {};
    default:
      throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`, undefined, 404);
  }
}

import type { CompiledCatalog, Route } from '@switchboard/catalog';
import { ErrorCode, McpError, isJsonObject } from '@switchboard/protocol';
import { MAX_CLIENT_INPUT_REQUESTS } from './client-input';
import type { InvokeContext } from './invoke-context';
import type { UpstreamInvoker, UpstreamTaskRequest } from './upstream-invoker';
import type { StateSealer } from './state-sealer';
import type { TaskScope } from './task-wire';
import {
  checkTaskId,
  checkUpstreamTask,
  handleTtlS,
  MAX_TASK_MESSAGE as MAX_MESSAGE,
  RELATED_TASK,
  upstreamTaskBroke as upstreamBroke,
  type CheckedUpstreamTask,
  type TaskMethodCall,
  type UpstreamTaskCall,
} from './upstream-task-shape';

type UpstreamRoute = Extract<Route, { kind: 'upstream' }>;
type Invoker = UpstreamInvoker & Required<Pick<UpstreamInvoker, 'upstreamTask'>>;

/** Marks a proxied 2026-07-28 upstream task's handle (a sibling of the 2025-11-25 `ut1.` ones). */
export const MODERN_UPSTREAM_TASK_PREFIX = 'ut2.';
/** A 2025-11-25 `tasks/result` waits for a terminal status at most this long, polling at the upstream's interval within these bounds (ms). */
export const MAX_RESULT_WAIT_MS = 60_000;
const MIN_POLL_MS = 250;
const MAX_POLL_MS = 5_000;
/** statusMessage shown to a 2025-11-25 client whose task waits for input it has no way to give. */
export const UNANSWERABLE_INPUT =
  'The upstream task waits for client input (tasks/update of the 2026-07-28 tasks extension), which a 2025-11-25 client cannot send; the upstream decides how long it waits';

/** What a handle carries, sealed and encrypted: tenant and subject of the caller, published tool, server, and the upstream's task id. */
interface Handle {
  t: string;
  u: string;
  n: string;
  srv: string;
  id: string;
}

/** The tasks extension's `Task` as an upstream sent it, checked and bounded. */
type ModernTask = CheckedUpstreamTask;

/**
 * Proxies a 2026-07-28 upstream's own tasks (the tasks extension, SEP-2663). A call whose
 * caller can take a task (a 2026-07-28 request declaring the extension, a 2025-11-25
 * task-augmented call) is sent upstream declaring the extension; when the upstream answers with
 * a task, its id is sealed with the caller's tenant and subject, the tool and the server into a
 * `ut2.` handle, so any replica serves it: it opens the handle, checks the caller and forwards
 * `tasks/get` / `tasks/update` / `tasks/cancel` upstream (2026-07-28 upstreams are stateless, so
 * no session is sealed). No state is kept here. 2025-11-25 clients get the revision's shapes:
 * a `CreateTaskResult` with `task`, `tasks/get` as a `Task`, `tasks/result` polled to the end.
 */
export class ModernUpstreamTasks {
  /** @param maxResultWaitMs longest a 2025-11-25 `tasks/result` waits for the task to end (default {@link MAX_RESULT_WAIT_MS}). */
  constructor(
    private readonly sealer: StateSealer,
    private readonly upstream: Invoker,
    private readonly maxResultWaitMs = MAX_RESULT_WAIT_MS,
  ) {}

  static of(
    sealer: StateSealer | undefined,
    upstream: UpstreamInvoker | undefined,
    maxResultWaitMs?: number,
  ): ModernUpstreamTasks | undefined {
    if (!sealer || !upstream?.upstreamTask) return undefined;
    return new ModernUpstreamTasks(sealer, upstream as Invoker, maxResultWaitMs);
  }

  static owns(taskId: unknown): boolean {
    return typeof taskId === 'string' && taskId.startsWith(MODERN_UPSTREAM_TASK_PREFIX);
  }

  /**
   * The tool called on its 2026-07-28 upstream declaring the tasks extension: a task the
   * upstream made comes back with a handle as its id, in the caller's `era`'s shape; any other
   * answer (a result, `input_required`) as the upstream sent it, minus `resultType`.
   */
  async call(call: UpstreamTaskCall, ctx: InvokeContext, era: 'legacy' | 'modern'): Promise<Record<string, unknown>> {
    const { route } = call;
    const { result } = await this.upstream.upstreamTask(
      route,
      { method: 'tools/call', params: { name: route.upstreamName, arguments: call.args } },
      ctx,
    );
    if (result.resultType !== 'task') return withoutComplete(result);
    const task = checkTask(result, route.serverId);
    const ttlS = handleTtlS(task.ttlMs);
    const handle: Handle = { t: call.tenantId, u: call.subject, n: call.tool, srv: route.serverId, id: task.taskId };
    const taskId = MODERN_UPSTREAM_TASK_PREFIX + this.sealer.sealSecret('modern-upstream-task', { ...handle }, ttlS);
    return era === 'modern' ? { resultType: 'task', ...modernTask(task, taskId) } : { task: legacyTask(task, taskId) };
  }

  /** A 2026-07-28 client's `tasks/get` / `tasks/update` / `tasks/cancel` about a proxied task, forwarded. */
  async modern(call: TaskMethodCall, ctx: InvokeContext): Promise<Record<string, unknown>> {
    const { method, params } = call;
    const taskId = checkTaskId(params.taskId);
    const { handle, route } = this.open(taskId, call, call.catalog);
    if (method === 'tasks/update') {
      if (!isJsonObject(params.inputResponses))
        throw new McpError(
          ErrorCode.InvalidParams,
          "params.inputResponses must be an object of responses keyed like the task's inputRequests",
        );
      await this.forward('tasks/update', handle, route, ctx, { inputResponses: params.inputResponses });
      return {};
    }
    if (method === 'tasks/cancel') {
      await this.forward('tasks/cancel', handle, route, ctx);
      return {};
    }
    const got = await this.forward('tasks/get', handle, route, ctx);
    const task = checkTask(got, route.serverId);
    const out: Record<string, unknown> = modernTask(task, taskId);
    // The detail the status carries, as the upstream sent it (bounded by the response byte limit).
    if (task.status === 'completed') out.result = isJsonObject(got.result) ? withoutComplete(got.result) : {};
    if (task.status === 'failed') out.error = wireError(got.error);
    if (task.status === 'input_required' && isJsonObject(got.inputRequests)) {
      // The client answers them with tasks/update, forwarded; as many as one input round may carry.
      if (Object.keys(got.inputRequests).length > MAX_CLIENT_INPUT_REQUESTS)
        throw upstreamBroke(
          route.serverId,
          `its task asks ${Object.keys(got.inputRequests).length} input requests at once (at most ${MAX_CLIENT_INPUT_REQUESTS})`,
        );
      out.inputRequests = got.inputRequests;
    }
    return out;
  }

  /** A 2025-11-25 client's `tasks/get`, `tasks/result`, `tasks/cancel` about a proxied task (`tasks/list` does not list these). */
  async legacy(call: TaskMethodCall, ctx: InvokeContext): Promise<Record<string, unknown>> {
    const method = call.method;
    const taskId = checkTaskId(call.params.taskId);
    const { handle, route } = this.open(taskId, call, call.catalog);
    if (method === 'tasks/cancel') {
      await this.forward('tasks/cancel', handle, route, ctx);
      return legacyTask(checkTask(await this.forward('tasks/get', handle, route, ctx), route.serverId), taskId);
    }
    if (method === 'tasks/get') return legacyTask(checkTask(await this.forward('tasks/get', handle, route, ctx), route.serverId), taskId);
    if (method !== 'tasks/result') throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
    return this.result(handle, route, taskId, ctx);
  }

  /** 2025-11-25 `tasks/result`: waits (bounded by `maxResultWaitMs`) for the task to end, then its result or its error. */
  private async result(handle: Handle, route: UpstreamRoute, taskId: string, ctx: InvokeContext): Promise<Record<string, unknown>> {
    const deadline = Date.now() + this.maxResultWaitMs;
    for (;;) {
      const got = await this.forward('tasks/get', handle, route, ctx);
      const task = checkTask(got, route.serverId);
      if (task.status === 'completed') {
        const result = isJsonObject(got.result) ? withoutComplete(got.result) : {};
        const meta = isJsonObject(result._meta) ? result._meta : {};
        return { ...result, _meta: { ...meta, [RELATED_TASK]: { taskId } } };
      }
      if (task.status === 'failed') {
        const error = wireError(got.error);
        throw new McpError(error.code, error.message, error.data);
      }
      if (task.status === 'cancelled')
        throw new McpError(ErrorCode.InvalidParams, `Task ${taskId.slice(0, 64)} was cancelled: it has no result`);
      const wait = Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, task.pollIntervalMs ?? 1000));
      if (Date.now() + wait > deadline) {
        throw new McpError(
          ErrorCode.InternalError,
          `Task ${taskId.slice(0, 64)} is still ${task.status} after ${this.maxResultWaitMs} ms; poll tasks/get and ask for the result once it completed`,
        );
      }
      await sleep(wait, ctx.signal);
    }
  }

  private open(taskId: string, scope: TaskScope, catalog: CompiledCatalog): { handle: Handle; route: UpstreamRoute } {
    const notFound = () =>
      new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId.slice(0, 64)} (unknown, expired, or not this caller's)`, {
        taskId: taskId.slice(0, 64),
      });
    const checked = this.sealer.checkSecret('modern-upstream-task', taskId.slice(MODERN_UPSTREAM_TASK_PREFIX.length));
    if (!checked.ok) throw notFound();
    const handle = checked.data as unknown as Handle;
    if (handle.t !== scope.tenantId || handle.u !== scope.subject) throw notFound();
    // The tool must still route to the same 2026-07-28 upstream (a republished catalog may have moved or dropped it).
    const route = catalog.tool(handle.n)?.entry.route;
    if (route?.kind !== 'upstream' || route.serverId !== handle.srv || route.protocol !== 'modern') throw notFound();
    return { handle, route };
  }

  private async forward(
    method: UpstreamTaskRequest['method'],
    handle: Handle,
    route: UpstreamRoute,
    ctx: InvokeContext,
    extra: Record<string, unknown> = {},
  ): Promise<Record<string, unknown>> {
    const { result } = await this.upstream.upstreamTask(route, { method, params: { ...extra, taskId: handle.id } }, ctx);
    return result;
  }
}

/** Whether a call may become a 2026-07-28 upstream's own task: the caller can take one and the tool is such an upstream's. */
export function takesModernUpstreamTask(
  route: Route,
  era: 'legacy' | 'modern',
  declaresTasks: boolean,
  legacyTask: unknown,
): route is UpstreamRoute {
  if (route.kind !== 'upstream' || route.protocol !== 'modern') return false;
  return era === 'modern' ? declaresTasks : legacyTask !== undefined;
}

function checkTask(value: unknown, serverId: string): ModernTask {
  return checkUpstreamTask(value, serverId, 'modern');
}

/** The extension's `Task` fields with the handle as its id. */
function modernTask(task: ModernTask, taskId: string): Record<string, unknown> {
  return {
    taskId,
    status: task.status,
    ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: task.ttlMs,
    ...(task.pollIntervalMs === undefined ? {} : { pollIntervalMs: task.pollIntervalMs }),
  };
}

/** The 2025-11-25 `Task` for an extension one (input it cannot give shows as working, with why). */
function legacyTask(task: ModernTask, taskId: string): Record<string, unknown> {
  const waiting = task.status === 'input_required';
  const statusMessage = waiting ? UNANSWERABLE_INPUT : task.statusMessage;
  return {
    taskId,
    status: waiting ? 'working' : task.status,
    ...(statusMessage === undefined ? {} : { statusMessage }),
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttl: task.ttlMs,
    ...(task.pollIntervalMs === undefined ? {} : { pollInterval: task.pollIntervalMs }),
  };
}

/** A result as the caller's era gets it: the upstream's `resultType: "complete"` is the dispatcher's to add. */
function withoutComplete(result: Record<string, unknown>): Record<string, unknown> {
  if (result.resultType !== 'complete') return result;
  const { resultType: _dropped, ...rest } = result;
  void _dropped;
  return rest;
}

function wireError(value: unknown): { code: number; message: string; data?: unknown } {
  if (isJsonObject(value) && typeof value.code === 'number' && Number.isInteger(value.code) && typeof value.message === 'string') {
    return {
      code: value.code,
      message: `The upstream task failed: ${value.message}`.slice(0, MAX_MESSAGE),
      ...(value.data === undefined ? {} : { data: value.data }),
    };
  }
  return { code: ErrorCode.InternalError, message: 'The upstream task failed without saying why' };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

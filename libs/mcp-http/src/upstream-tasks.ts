import type { CompiledCatalog, Route } from '@switchboard/catalog';
import { ErrorCode, McpError, isJsonObject } from '@switchboard/protocol';
import type { InvokeContext } from './invoke-context';
import type { UpstreamInvoker, UpstreamTaskRequest } from './upstream-invoker';
import type { StateSealer } from './state-sealer';
import { callerKey, type UpstreamTaskIndex } from './upstream-task-index';
import type { TaskScope } from './task-wire';
import type { TaskStatus } from './task-store';
import {
  checkTaskId,
  checkUpstreamTask,
  handleTtlS,
  MAX_HANDLE_TTL_S,
  RELATED_TASK,
  upstreamTaskBroke as upstreamBroke,
  type TaskMethodCall,
  type UpstreamTaskCall,
} from './upstream-task-shape';

type UpstreamRoute = Extract<Route, { kind: 'upstream' }>;

/** Marks a proxied upstream task's handle (gateway task ids are base64url without it). */
export const UPSTREAM_TASK_PREFIX = 'ut1.';
/** 2025-11-25 task methods a legacy client may send about an upstream's task. */
export const LEGACY_TASK_METHODS: ReadonlySet<string> = new Set(['tasks/get', 'tasks/result', 'tasks/cancel', 'tasks/list']);
/** Longest upstream session id sealed into a handle (the upstream chooses it). */
const MAX_SESSION_ID = 512;
/** Tasks per tasks/list page (each one is a tasks/get to its upstream). */
const LIST_PAGE = 20;
/** statusMessage of a proxied task whose 2025-11-25 upstream waits for input a 2026-07-28 client cannot be asked for. */
export const UNRELAYED_TASK_INPUT =
  'The upstream task waits for client input, which it asks for on a 2025-11-25 tasks/result stream; the gateway does not relay that to a 2026-07-28 client, so the upstream will end the task';

/** What a handle carries (sealed and encrypted: the upstream's session id is not the client's to read). */
interface Handle {
  /** Tenant and subject that created the task: any other caller's lookup finds nothing. */
  t: string;
  u: string;
  /** The published tool name (its route gives the upstream and today's credential) and the server it routed to. */
  n: string;
  srv: string;
  /** The upstream's own task id and the upstream session that holds it. */
  id: string;
  s?: string;
}

/** A 2025-11-25 `Task` as an upstream sent it, checked. */
interface UpstreamTask {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttl: number | null;
  pollInterval?: number;
}

type Invoker = UpstreamInvoker & Required<Pick<UpstreamInvoker, 'upstreamTask'>>;

/**
 * Proxies a 2025-11-25 upstream's own tasks (the tasks utility of that revision). The
 * upstream's task id, the upstream session holding it, the tool and the caller's scope are
 * sealed (with an `exp` no later than the upstream keeps the task) into a gateway task handle,
 * so any replica serves the task: it opens the handle, checks the caller, and forwards
 * `tasks/get` / `tasks/result` / `tasks/cancel` to that session. No state is kept here.
 *
 * Legacy clients get the upstream's answers with the handle in place of its id; 2026-07-28
 * clients (tasks extension, SEP-2663) get them mapped onto that extension's shapes: a
 * `CreateTaskResult`, and `tasks/get` with the result or error inlined once terminal.
 */
export class UpstreamTasks {
  constructor(
    private readonly sealer: StateSealer,
    private readonly upstream: Invoker,
    private readonly index?: UpstreamTaskIndex,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {}

  static of(sealer: StateSealer | undefined, upstream: UpstreamInvoker | undefined, index?: UpstreamTaskIndex): UpstreamTasks | undefined {
    if (!sealer || !upstream?.upstreamTask) return undefined;
    return new UpstreamTasks(sealer, upstream as Invoker, index);
  }

  /** Whether tasks/list is served (an index is configured). */
  get lists(): boolean {
    return this.index !== undefined;
  }

  static owns(taskId: unknown): boolean {
    return typeof taskId === 'string' && taskId.startsWith(UPSTREAM_TASK_PREFIX);
  }

  /**
   * A task-augmented call (`task` its checked `params.task`) on the tool's upstream: the
   * upstream's `CreateTaskResult` with the handle as the task id, or — when the upstream
   * answered the call itself — its plain result. `lister` names the tasks/list it joins.
   */
  async create(
    call: UpstreamTaskCall,
    task: Record<string, unknown>,
    ctx: InvokeContext,
    lister?: string,
  ): Promise<{ task: UpstreamTask } | Record<string, unknown>> {
    const { route } = call;
    const { result, session } = await this.upstream.upstreamTask(
      route,
      { method: 'tools/call', params: { name: route.upstreamName, arguments: call.args, task } },
      ctx,
    );
    if (result.task === undefined) return result;
    const created = checkTask(result.task, route.serverId);
    if (session !== undefined && session.length > MAX_SESSION_ID)
      throw upstreamBroke(route.serverId, `its session id is longer than ${MAX_SESSION_ID} characters`);
    const ttlS = handleTtlS(created.ttl);
    const handle: Handle = {
      t: call.tenantId,
      u: call.subject,
      n: call.tool,
      srv: route.serverId,
      id: created.taskId,
      ...(session === undefined ? {} : { s: session }),
    };
    const taskId = UPSTREAM_TASK_PREFIX + this.sealer.sealSecret('upstream-task', { ...handle }, ttlS);
    if (this.index && lister !== undefined) {
      // The task exists upstream either way: an index that cannot take it only leaves it out of tasks/list.
      await this.index.add(call.tenantId, lister, taskId, Date.now() + ttlS * 1000).catch((err: unknown) => this.onError(err));
    }
    return { ...result, task: { ...created, taskId } };
  }

  /**
   * A legacy client's `tasks/get`, `tasks/result`, `tasks/cancel` about a proxied task, or its
   * `tasks/list` of the tasks created under `lister` (see {@link listerOf}).
   */
  async legacy(call: TaskMethodCall, ctx: InvokeContext, lister?: string): Promise<Record<string, unknown>> {
    const method = call.method;
    if (method === 'tasks/list') return this.list(call, ctx, lister);
    const taskId = checkTaskId(call.params.taskId);
    const { handle, route } = this.open(taskId, call, call.catalog);
    const result = await this.forward(method as UpstreamTaskRequest['method'], handle, route, ctx);
    if (method === 'tasks/result') return relabel(result, handle.id, taskId);
    return { ...result, ...(typeof result.taskId === 'string' ? { taskId } : {}) };
  }

  /**
   * The caller's proxied tasks as their upstreams see them now (a page of {@link LIST_PAGE}, each
   * a tasks/get on its upstream session); tasks their upstream or the catalog no longer has are
   * left out. Never an upstream's own tasks/list: its session is shared by the tenant's callers.
   */
  private async list(call: TaskMethodCall, ctx: InvokeContext, lister: string | undefined): Promise<Record<string, unknown>> {
    const cursor = call.params.cursor;
    if (cursor !== undefined && (typeof cursor !== 'string' || !/^\d{1,4}$/.test(cursor)))
      throw new McpError(ErrorCode.InvalidParams, 'params.cursor must be a cursor this server returned');
    const offset = cursor === undefined ? 0 : Number(cursor);
    if (!this.index || lister === undefined) return { tasks: [] };
    const handles = await this.index.list(call.tenantId, lister);
    const page = handles.slice(offset, offset + LIST_PAGE);
    const tasks = await Promise.all(
      page.map(async (taskId) => {
        try {
          const { handle, route } = this.open(taskId, call, call.catalog);
          const result = await this.forward('tasks/get', handle, route, ctx);
          return { ...checkTask(result, route.serverId), taskId };
        } catch (err) {
          // Gone (expired, moved, forgotten upstream): not listed. Anything else fails the list.
          if (err instanceof McpError && err.code === ErrorCode.InvalidParams) return undefined;
          throw err;
        }
      }),
    );
    return {
      tasks: tasks.filter((t) => t !== undefined),
      ...(offset + LIST_PAGE < handles.length ? { nextCursor: String(offset + LIST_PAGE) } : {}),
    };
  }

  /**
   * A 2026-07-28 client's `tasks/get` / `tasks/update` / `tasks/cancel` about a proxied task,
   * answered in the tasks extension's shapes (a terminal task's result or error inlined).
   */
  async modern(call: TaskMethodCall, ctx: InvokeContext): Promise<Record<string, unknown>> {
    const { method, params } = call;
    const taskId = checkTaskId(params.taskId);
    const { handle, route } = this.open(taskId, call, call.catalog);
    if (method === 'tasks/update') {
      const responses = params.inputResponses;
      if (!isJsonObject(responses))
        throw new McpError(
          ErrorCode.InvalidParams,
          "params.inputResponses must be an object of responses keyed like the task's inputRequests",
        );
      if (handle.s === undefined || !this.upstream.answerTaskInput)
        throw new McpError(
          ErrorCode.InvalidParams,
          'This task takes no inputResponses: its upstream (2025-11-25) has no session to ask on',
          { taskId: taskId.slice(0, 64) },
        );
      // Keys not outstanding are ignored, as the tasks extension asks.
      await this.upstream.answerTaskInput(route, handle.s, responses as Record<string, unknown>, ctx);
      return {};
    }
    if (method === 'tasks/cancel') {
      await this.forward('tasks/cancel', handle, route, ctx);
      return {};
    }
    const task = checkTask(await this.forward('tasks/get', handle, route, ctx), route.serverId);
    const out: Record<string, unknown> = { ...modernTask(task, taskId) };
    const asked =
      handle.s !== undefined && !isTerminalStatus(task.status) ? await this.upstream.pendingTaskInput?.(route, handle.s, ctx) : undefined;
    if (asked !== undefined && Object.keys(asked).length > 0) {
      // The upstream asked on the caller's own session (whatever status it reports meanwhile):
      // the client answers with tasks/update, which the gateway passes to the waiting request.
      out.status = 'input_required';
      out.statusMessage = 'Waiting for the client to answer inputRequests';
      out.inputRequests = asked;
    } else if (task.status === 'input_required') {
      // The upstream waits for an answer it will send on a tasks/result stream, which a
      // 2026-07-28 client does not open: the task shows as working until the upstream gives up.
      out.status = 'working';
      out.statusMessage = UNRELAYED_TASK_INPUT;
    }
    if (task.status === 'completed' || task.status === 'failed') {
      try {
        const result = relabel(await this.forward('tasks/result', handle, route, ctx), handle.id, taskId);
        if (task.status === 'completed') out.result = result;
        else
          out.error = {
            code: ErrorCode.InternalError,
            message: `The upstream task failed: ${textOf(result) ?? task.statusMessage ?? 'no reason given'}`.slice(0, 1024),
          };
      } catch (err) {
        if (!(err instanceof McpError)) throw err;
        out.status = 'failed';
        out.error = { code: err.code, message: err.message };
        delete out.result;
      }
    }
    return out;
  }

  /** The `CreateTaskResult` of the tasks extension for a task {@link create} made. */
  static modernCreated(task: UpstreamTask): Record<string, unknown> {
    return { resultType: 'task', ...modernTask(task, task.taskId) };
  }

  private open(taskId: string, scope: TaskScope, catalog: CompiledCatalog): { handle: Handle; route: UpstreamRoute } {
    const notFound = () =>
      new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId.slice(0, 64)} (unknown, expired, or not this caller's)`, {
        taskId: taskId.slice(0, 64),
      });
    const checked = this.sealer.checkSecret('upstream-task', taskId.slice(UPSTREAM_TASK_PREFIX.length));
    if (!checked.ok) throw notFound();
    const handle = checked.data as unknown as Handle;
    if (handle.t !== scope.tenantId || handle.u !== scope.subject) throw notFound();
    // The tool must still route to the same upstream (a republished catalog may have moved or dropped it).
    const route = catalog.tool(handle.n)?.entry.route;
    if (route?.kind !== 'upstream' || route.serverId !== handle.srv) throw notFound();
    return { handle, route };
  }

  private async forward(
    method: UpstreamTaskRequest['method'],
    handle: Handle,
    route: UpstreamRoute,
    ctx: InvokeContext,
  ): Promise<Record<string, unknown>> {
    const { result } = await this.upstream.upstreamTask(
      route,
      { method, params: { taskId: handle.id }, ...(handle.s === undefined ? {} : { session: handle.s }) },
      ctx,
    );
    return result;
  }
}

/**
 * Whose tasks/list a task belongs to: the signed-in subject; for an anonymous caller of an
 * open tenant (all share the empty subject) its legacy session, else no list at all.
 */
export function listerOf(tenantId: string, subject: string, session: unknown): string | undefined {
  if (subject !== '') return callerKey(tenantId, `subject\n${subject}`);
  return typeof session === 'string' && session.length > 0 ? callerKey(tenantId, `session\n${session}`) : undefined;
}

/** `params.task` of a legacy task-augmented call: only `ttl` (ms) is taken, bounded. */
export function taskParams(value: unknown): Record<string, unknown> {
  if (!isJsonObject(value)) throw new McpError(ErrorCode.InvalidParams, 'params.task must be an object');
  const ttl = value.ttl;
  if (ttl === undefined || ttl === null) return {};
  if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl <= 0)
    throw new McpError(ErrorCode.InvalidParams, 'params.task.ttl must be a positive integer (milliseconds)');
  return { ttl: Math.min(ttl, MAX_HANDLE_TTL_S * 1000) };
}

function isTerminalStatus(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/** A 2025-11-25 task as the upstream sent it, checked, with that revision's field names (it goes to legacy clients as is). */
function checkTask(value: unknown, serverId: string): UpstreamTask {
  const { ttlMs, pollIntervalMs, ...rest } = checkUpstreamTask(value, serverId, 'legacy');
  return { ...rest, ttl: ttlMs, ...(pollIntervalMs === undefined ? {} : { pollInterval: pollIntervalMs }) };
}

/** The tasks extension's `Task` fields for an upstream's 2025-11-25 one. */
function modernTask(task: UpstreamTask, taskId: string): Record<string, unknown> {
  return {
    taskId,
    status: task.status,
    ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: task.ttl ?? MAX_HANDLE_TTL_S * 1000,
    pollIntervalMs: task.pollInterval ?? 1000,
  };
}

/** The upstream's `relatedTask` metadata names the handle instead of its own id. */
function relabel(result: Record<string, unknown>, upstreamId: string, handle: string): Record<string, unknown> {
  const meta = result._meta;
  if (!isJsonObject(meta)) return result;
  const related = (meta as Record<string, unknown>)[RELATED_TASK];
  if (!isJsonObject(related) || (related as Record<string, unknown>).taskId !== upstreamId) return result;
  return { ...result, _meta: { ...meta, [RELATED_TASK]: { ...related, taskId: handle } } };
}

function textOf(result: Record<string, unknown>): string | undefined {
  const content = result.content;
  if (!Array.isArray(content)) return undefined;
  const text = content.find((c): c is { type: 'text'; text: string } => isJsonObject(c) && c.type === 'text' && typeof c.text === 'string');
  return text?.text;
}

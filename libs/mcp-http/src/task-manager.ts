import { randomBytes } from 'node:crypto';
import type { InputRequest, InputRequiredResult, ToolCallResult } from '@switchboard/catalog';
import { ErrorCode } from '@switchboard/protocol';
import type { ByteBudget, TaskByteCaps } from './byte-budgets';
import { MemoryTaskStore } from './memory-task-store';
import { answerTaskRequest } from './task-requests';
import type { CreateTaskResult, TaskInput, TaskManagerOptions, TaskWork } from './task-types';
import type { StoredTask, TaskStore, TaskView, TaskWriteOutcome } from './task-store';
import {
  TaskCancelled,
  TaskTimeout,
  failOverBudget,
  settlesWithin,
  isInputRequired,
  missingTasksCapability,
  taskKey,
  wireError,
  type TaskScope,
} from './task-wire';

export { TASKS_EXTENSION, TASK_METHODS, declaresTasks, missingTasksCapability, taskKey, type TaskScope } from './task-wire';

export type { CreateTaskResult, TaskInput, TaskManagerOptions, TaskWork } from './task-types';

interface Running {
  abort: AbortController;
  wake: () => void;
  waiters: Set<() => void>;
}

type SaveTask = (patch: Partial<StoredTask>, terminal?: boolean) => Promise<boolean>;

const RECHECK_MS = 1_000;
/** A replica renews its heartbeat this often, valid for HEARTBEAT_TTL_MS (so two renewals may be missed). */
const HEARTBEAT_MS = 5_000;
const HEARTBEAT_TTL_MS = 15_000;
/** On close, how long running tasks get to record their end before the store closes. */
const CLOSE_GRACE_MS = 2_000;

/**
 * The tasks extension (SEP-2663) for tools that support tasks: a call that is still running
 * after `taskAfterMs` becomes a task (a faster one, and every MRTR round before it, is
 * answered directly). The replica that runs it owns the record in the {@link TaskStore};
 * any replica answers `tasks/get`, takes `tasks/update` answers and `tasks/cancel` requests
 * there and signals the owner, which resumes or aborts the work.
 */
export class TaskManager {
  readonly replicaId: string;
  /** Resolves once the store delivers this replica's signals. */
  readonly ready: Promise<void>;
  private readonly store: TaskStore;
  private readonly running = new Map<string, Running>();
  private readonly drives = new Set<Promise<unknown>>();
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private readonly o: Required<Omit<TaskManagerOptions, 'store' | 'replicaId' | 'onError'>>;
  private readonly onError: (err: unknown) => void;

  constructor(options: TaskManagerOptions = {}) {
    this.store = options.store ?? new MemoryTaskStore();
    this.replicaId = options.replicaId ?? randomBytes(8).toString('hex');
    const ttlMs = options.ttlMs ?? 600_000;
    this.o = {
      ttlMs,
      pollIntervalMs: options.pollIntervalMs ?? 1_000,
      taskAfterMs: options.taskAfterMs ?? 300,
      maxRunMs: Math.min(options.maxRunMs ?? 300_000, ttlMs),
      maxLive: options.maxLive ?? 32,
      maxRetained: options.maxRetained ?? 1_000,
      maxResultBytes: options.maxResultBytes ?? 1024 * 1024,
      maxTaskBytes: options.maxTaskBytes ?? 1024 * 1024,
      maxTenantBytes: options.maxTenantBytes ?? 64 * 1024 * 1024,
      maxInputRounds: options.maxInputRounds ?? 8,
      maxInputRequests: options.maxInputRequests ?? 16,
    };
    this.onError = options.onError ?? (() => undefined);
    this.ready = this.store.listen(this.replicaId, (key) => void this.onSignal(key));
  }

  /** How many tasks this replica runs now. */
  get runningHere(): number {
    return this.running.size;
  }

  /**
   * Starts `work`; answers with its own result when it settles within `taskAfterMs` (or when
   * the tenant's task caps are full), else with a `CreateTaskResult` once the task is stored.
   * `requestSignal` aborts the work only until it became a task.
   */
  async run(
    scope: TaskScope,
    work: TaskWork,
    input: TaskInput,
    requestSignal: AbortSignal,
  ): Promise<ToolCallResult | InputRequiredResult | CreateTaskResult> {
    const abort = new AbortController();
    let detached = false;
    const onRequestAbort = () => abort.abort(requestSignal.reason);
    if (requestSignal.aborted) onRequestAbort();
    else requestSignal.addEventListener('abort', onRequestAbort, { once: true });
    const first = work(input, abort.signal, () => detached);
    if (await settlesWithin(first, this.o.taskAfterMs)) {
      requestSignal.removeEventListener('abort', onRequestAbort);
      return first;
    }
    // Anonymous callers of an open tenant share one scope: their task id carries a secret that
    // only the creator gets (never stored, only hashed into the key), so the stored and logged
    // id alone reads or cancels nothing.
    const publicId = randomBytes(16).toString('base64url');
    const wireId = scope.subject === '' ? `${publicId}.${randomBytes(16).toString('base64url')}` : publicId;
    const task = this.newTask(scope, publicId);
    const key = taskKey(scope, wireId);
    if (!(await this.stored(key, task))) {
      // No slot (or no store): the call is answered on this request, as if tasks were not negotiated.
      try {
        return await first;
      } finally {
        requestSignal.removeEventListener('abort', onRequestAbort);
      }
    }
    detached = true;
    requestSignal.removeEventListener('abort', onRequestAbort);
    this.startDriving(key, task, first, work, abort);
    return {
      resultType: 'task',
      taskId: wireId,
      status: task.status,
      createdAt: task.createdAt,
      lastUpdatedAt: task.lastUpdatedAt,
      ttlMs: task.ttlMs,
      pollIntervalMs: task.pollIntervalMs,
    };
  }

  private newTask(scope: TaskScope, publicId: string): StoredTask {
    const now = new Date().toISOString();
    return {
      taskId: publicId,
      tenantId: scope.tenantId,
      owner: this.replicaId,
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: this.o.ttlMs,
      pollIntervalMs: this.o.pollIntervalMs,
    };
  }

  /** Stores the new task; false when the tenant's caps are full or the store failed. */
  private async stored(key: string, task: StoredTask): Promise<boolean> {
    let refused;
    try {
      // The heartbeat first: a reader elsewhere must never see the new task's owner as gone.
      await this.beat();
      refused = await this.store.create(key, task, { maxLive: this.o.maxLive, maxRetained: this.o.maxRetained, ...this.byteCaps });
    } catch (err) {
      this.onError(err);
      refused = 'store-unavailable';
    }
    return refused === undefined;
  }

  /** Registers the stored task as running here and follows its work to the end (bounded by `maxRunMs`). */
  private startDriving(
    key: string,
    task: StoredTask,
    first: Promise<ToolCallResult | InputRequiredResult>,
    work: TaskWork,
    abort: AbortController,
  ): void {
    const running: Running = { abort, waiters: new Set(), wake: () => undefined };
    running.wake = () => {
      for (const w of running.waiters) w();
    };
    this.running.set(key, running);
    const deadline = setTimeout(() => abort.abort(new TaskTimeout(this.o.maxRunMs)), this.o.maxRunMs);
    const drive = this.drive(key, task, first, work, running).finally(() => {
      clearTimeout(deadline);
      this.running.delete(key);
      this.drives.delete(drive);
      if (this.running.size === 0) this.stopBeating();
    });
    this.drives.add(drive);
  }

  /**
   * `tasks/get`, `tasks/update`, `tasks/cancel` of a modern request; `declared` = the request
   * declared the extension. Answers the result body (the transport adds `resultType`).
   * @throws McpError −32021 (not declared), −32602 (bad params, unknown task).
   */
  async handle(method: string, params: Record<string, unknown>, scope: TaskScope, declared: boolean): Promise<Record<string, unknown>> {
    if (!declared) throw missingTasksCapability(method);
    return answerTaskRequest({ store: this.store, replicaId: this.replicaId, caps: this.byteCaps }, method, params, scope);
  }

  private get byteCaps(): TaskByteCaps {
    return { maxTaskBytes: this.o.maxTaskBytes, maxTenantBytes: this.o.maxTenantBytes };
  }

  /** Stops listening and aborts what runs here (their records stay until their TTL). */
  async close(): Promise<void> {
    for (const r of this.running.values()) r.abort.abort(new Error('the server shut down'));
    // Let the tasks record how they ended (bounded), then stop.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.drives]), new Promise((r) => (timer = setTimeout(r, CLOSE_GRACE_MS)))]);
    clearTimeout(timer);
    this.stopBeating();
    await this.store.close();
  }

  /** Keeps this replica's heartbeat current while it runs tasks (readers elsewhere fail the tasks of a dead owner). */
  private async beat(): Promise<void> {
    if (this.heartbeatTimer) return;
    await this.store.heartbeat(this.replicaId, HEARTBEAT_TTL_MS);
    if (this.heartbeatTimer) return;
    this.heartbeatTimer = setInterval(
      () => void this.store.heartbeat(this.replicaId, HEARTBEAT_TTL_MS).catch((err: unknown) => this.onError(err)),
      HEARTBEAT_MS,
    );
    this.heartbeatTimer.unref();
  }

  private stopBeating(): void {
    clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = undefined;
  }

  private async onSignal(key: string): Promise<void> {
    const running = this.running.get(key);
    if (!running) return;
    try {
      const view = await this.store.read(key);
      if (!view || view.cancelRequested) running.abort.abort(new TaskCancelled());
      else running.wake();
    } catch (err) {
      this.onError(err);
    }
  }

  /** Follows the work to its end, parking it on input requests, and writes every transition. */
  private async drive(
    key: string,
    task: StoredTask,
    first: Promise<ToolCallResult | InputRequiredResult>,
    work: TaskWork,
    running: Running,
  ): Promise<unknown> {
    const signal = running.abort.signal;
    const save = (patch: Partial<StoredTask>, terminal = false): Promise<boolean> => this.save(key, task, running, patch, terminal);
    try {
      let current = first;
      for (let round = 1; ; round++) {
        let result: ToolCallResult | InputRequiredResult;
        try {
          result = await current;
        } catch (err) {
          if (signal.aborted) return await this.aborted(save, signal);
          return await save(
            { status: 'failed', error: wireError(err), statusMessage: 'The call failed with a protocol error', inputRequests: undefined },
            true,
          );
        }
        if (signal.aborted) return await this.aborted(save, signal);
        if (!isInputRequired(result)) return await this.finish(save, result);
        const requests = Object.entries(result.inputRequests ?? {});
        if (round > this.o.maxInputRounds || requests.length > this.o.maxInputRequests) {
          const why =
            round > this.o.maxInputRounds
              ? `asked for input more than ${this.o.maxInputRounds} times`
              : `sent ${requests.length} input requests at once (at most ${this.o.maxInputRequests})`;
          return await save(
            { status: 'failed', error: { code: ErrorCode.InternalError, message: `The tool ${why}` }, inputRequests: undefined },
            true,
          );
        }
        let answers: Record<string, unknown> = {};
        if (requests.length > 0) {
          const got = await this.askClient(key, running, save, round, requests);
          if (got === undefined) return;
          answers = got;
        }
        current = work(
          { responses: answers, ...(result.requestState === undefined ? {} : { requestState: result.requestState }) },
          signal,
          () => true,
        );
      }
    } catch (err) {
      // The store failed mid-way: the record keeps its last state until its TTL.
      this.onError(err);
    }
  }

  /**
   * Writes `patch` into the task. Resolves false when a byte budget refused the write: the task is then
   * failed with a short record naming the budget (it fits the task's reservation) and its work is stopped.
   */
  private async save(key: string, task: StoredTask, running: Running, patch: Partial<StoredTask>, terminal: boolean): Promise<boolean> {
    Object.assign(task, patch, { lastUpdatedAt: new Date().toISOString() });
    for (const k of Object.keys(patch) as (keyof StoredTask)[]) if (patch[k] === undefined) delete task[k];
    const outcome: TaskWriteOutcome = await this.store.write(key, task, terminal, this.byteCaps);
    if (outcome !== 'task-bytes' && outcome !== 'tenant-bytes') return true;
    const budget: ByteBudget = outcome === 'task-bytes' ? 'TASKS_MAX_TASK_BYTES' : 'TASKS_TENANT_MAX_BYTES';
    const limit = outcome === 'task-bytes' ? this.o.maxTaskBytes : this.o.maxTenantBytes;
    failOverBudget(task, budget, limit);
    await this.store.write(key, task, true, this.byteCaps);
    if (!terminal) running.abort.abort(new Error(`over the byte budget ${budget}`));
    return false;
  }

  /** Records the work's final result: completed, or failed when it is over the stored-result limit. */
  private finish(save: SaveTask, result: ToolCallResult): Promise<boolean> {
    const size = Buffer.byteLength(JSON.stringify(result));
    if (size > this.o.maxResultBytes) {
      return save(
        {
          status: 'failed',
          error: {
            code: ErrorCode.InternalError,
            message: `The result (${size} bytes) exceeds the stored-result limit of ${this.o.maxResultBytes} bytes`,
          },
          inputRequests: undefined,
        },
        true,
      );
    }
    return save(
      { status: 'completed', result: result as unknown as Record<string, unknown>, inputRequests: undefined, statusMessage: undefined },
      true,
    );
  }

  /**
   * Parks the task on one round's input requests and resolves with the client's answers (under the
   * tool's own keys); undefined when the drive ends here (a budget refused a write, or the task was stopped).
   */
  private async askClient(
    key: string,
    running: Running,
    save: SaveTask,
    round: number,
    requests: [string, InputRequest][],
  ): Promise<Record<string, unknown> | undefined> {
    // Keys are unique over the task's life (the spec's rule): the round number prefixes the tool's own key.
    const wire = Object.fromEntries(requests.map(([k, r]) => [`${round}.${k}`, r])) as Record<string, InputRequest>;
    if (!(await save({ status: 'input_required', inputRequests: wire, statusMessage: 'Waiting for the client to answer inputRequests' })))
      return undefined;
    const got = await this.waitForAnswers(key, Object.keys(wire), running);
    if (got === undefined) {
      await this.aborted(save, running.abort.signal);
      return undefined;
    }
    const answers = Object.fromEntries(Object.entries(got).map(([k, v]) => [k.slice(k.indexOf('.') + 1), v]));
    if (!(await save({ status: 'working', inputRequests: undefined, statusMessage: undefined }))) return undefined;
    return answers;
  }

  private async aborted(save: SaveTask, signal: AbortSignal): Promise<unknown> {
    if (signal.reason instanceof TaskCancelled)
      return save({ status: 'cancelled', statusMessage: 'Cancelled by the client', inputRequests: undefined }, true);
    const message = signal.reason instanceof Error ? signal.reason.message : 'aborted';
    return save(
      { status: 'failed', error: { code: ErrorCode.InternalError, message: `The task was stopped: ${message}` }, inputRequests: undefined },
      true,
    );
  }

  /** Resolves with the answers once every key is answered; undefined when the task is aborted or gone. */
  private async waitForAnswers(key: string, keys: readonly string[], running: Running): Promise<Record<string, unknown> | undefined> {
    const signal = running.abort.signal;
    while (!signal.aborted) {
      const view: TaskView | undefined = await this.store.read(key);
      if (!view) return undefined;
      if (view.cancelRequested) {
        running.abort.abort(new TaskCancelled());
        return undefined;
      }
      if (keys.every((k) => view.answered.includes(k))) return this.store.take(key, keys);
      // Woken by a signal, else re-read now and then (a lost pub/sub message only delays).
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          running.waiters.delete(done);
          signal.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, RECHECK_MS);
        running.waiters.add(done);
        signal.addEventListener('abort', done, { once: true });
      });
    }
    return undefined;
  }
}

import type { InputRequest } from '@switchboard/catalog';
import type { TaskByteCaps } from './byte-budgets';

/** Task status of the tasks extension (SEP-2663, `io.modelcontextprotocol/tasks`). */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** One task as stored: written only by the replica that runs it (its `owner`). */
export interface StoredTask {
  taskId: string;
  tenantId: string;
  /** The replica whose process runs the work (cancellation and answers are signalled there). */
  owner: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  pollIntervalMs: number;
  /** Outstanding requests by their (task-unique) key, while `input_required`. */
  inputRequests?: Record<string, InputRequest>;
  /** The final tool result, once `completed`. */
  result?: Record<string, unknown>;
  /** The JSON-RPC error, once `failed`. */
  error?: { code: number; message: string; data?: unknown };
}

/** What a reader sees: the owner's record plus what clients sent since (answers, a cancel request). */
export interface TaskView {
  task: StoredTask;
  /** Keys of `inputRequests` a client has answered and the owner has not taken yet. */
  answered: readonly string[];
  cancelRequested: boolean;
}

/** Why a create was refused: too many running tasks, too many retained ones, or the tenant's task bytes spent. */
export type TaskCreateRefusal = 'live-cap' | 'retained-cap' | 'bytes-cap';

/** Per-tenant bounds checked atomically at create (byte budgets default to {@link DEFAULT_TASK_BYTE_CAPS}). */
export interface TaskCaps extends Partial<TaskByteCaps> {
  maxLive: number;
  maxRetained: number;
}

/**
 * What a write did: stored; skipped (the record expired or is already terminal); or refused
 * because the record (or a task's pending answers) would pass the task's or its tenant's budget.
 */
export type TaskWriteOutcome = 'written' | 'skipped' | 'task-bytes' | 'tenant-bytes';

/**
 * Where task state lives so any replica can answer `tasks/get` / `tasks/update` /
 * `tasks/cancel`. `key` is derived from tenant + subject + task id (so another caller's
 * lookup misses); records expire `ttlMs` after creation.
 */
export interface TaskStore {
  /** Stores a new task (durably: a read right after resolves it) unless a per-tenant cap refuses. */
  create(key: string, task: StoredTask, caps: TaskCaps): Promise<TaskCreateRefusal | undefined>;
  read(key: string): Promise<TaskView | undefined>;
  /**
   * The owner's write; `terminal` frees the task's live slot. Skipped on an expired or already
   * terminal record; refused (nothing written) past a byte budget.
   */
  write(key: string, task: StoredTask, terminal: boolean, caps?: TaskByteCaps): Promise<TaskWriteOutcome>;
  /** A client's answers to outstanding input requests (the caller checked the keys are outstanding); refused whole past a byte budget. */
  answer(key: string, responses: Record<string, unknown>, caps?: TaskByteCaps): Promise<TaskWriteOutcome>;
  /** The owner takes the answers for `keys` (they stop counting as answered). */
  take(key: string, keys: readonly string[]): Promise<Record<string, unknown>>;
  requestCancel(key: string): Promise<void>;
  /** Tells the owner replica that `key` has news (an answer, a cancel request). */
  signal(owner: string, key: string): Promise<void>;
  /** Marks this replica alive for `ttlMs` (repeated while it runs tasks' work). */
  heartbeat(replicaId: string, ttlMs: number): Promise<void>;
  /** Whether a replica's heartbeat is current (a task owned by a dead replica will never finish). */
  isAlive(replicaId: string): Promise<boolean>;
  /** Receives signals for this replica's tasks. */
  listen(replicaId: string, onSignal: (key: string) => void): Promise<void>;
  close(): Promise<void>;
}

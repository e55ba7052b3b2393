import type { InputRequiredResult, ToolCallResult } from '@switchboard/catalog';
import type { StoredTask, TaskStore } from './task-store';

/** The call's answers so far and its echoed MRTR state (what a handler reads as `ctx.input`). */
export interface TaskInput {
  responses: Record<string, unknown>;
  requestState?: string;
}

/**
 * Runs (or, with the client's answers, re-runs) one call. `detached()` turns true once the call
 * became a task: its notifications have no stream to go to any more.
 */
export type TaskWork = (input: TaskInput, signal: AbortSignal, detached: () => boolean) => Promise<ToolCallResult | InputRequiredResult>;

/** A `CreateTaskResult` (flat `Result & Task`, `resultType: "task"`). */
export interface CreateTaskResult {
  resultType: 'task';
  taskId: string;
  status: StoredTask['status'];
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  pollIntervalMs: number;
}

export interface TaskManagerOptions {
  store?: TaskStore;
  replicaId?: string;
  /** How long a task stays readable after creation (its `ttlMs`). Default 10 min. */
  ttlMs?: number;
  pollIntervalMs?: number;
  /** A call still running after this long becomes a task; a faster one is answered directly. Default 300 ms. */
  taskAfterMs?: number;
  /** Longest a task's work may run before it fails (bounded by `ttlMs`). Default 5 min. */
  maxRunMs?: number;
  /** Per-tenant running tasks; past it, calls are answered synchronously instead. Default 32. */
  maxLive?: number;
  /** Per-tenant tasks kept (running or finished, until their TTL). Default 1000. */
  maxRetained?: number;
  /** Largest stored result (encoded JSON); a bigger one fails the task. Default 1 MiB. */
  maxResultBytes?: number;
  /** Largest stored task record, every field counted (result, inputRequests, error), and apart its pending answers. Default 1 MiB. */
  maxTaskBytes?: number;
  /** Bytes of all of one tenant's retained tasks; past it new tasks are refused (answered on their request) and growing ones fail. Default 64 MiB. */
  maxTenantBytes?: number;
  /** Most input rounds and requests per round one task may make. Defaults 8 and 16. */
  maxInputRounds?: number;
  maxInputRequests?: number;
  /** Unexpected failures of the task machinery (the store unreachable) for server-side logs. */
  onError?: (err: unknown) => void;
}

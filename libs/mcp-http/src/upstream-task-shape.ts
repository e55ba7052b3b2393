import type { CompiledCatalog, Route } from '@switchboard/catalog';
import { ErrorCode, McpError, isJsonObject } from '@switchboard/protocol';
import type { TaskStatus } from './task-store';
import type { TaskScope } from './task-wire';

/** A proxied task's handle lives as long as the upstream keeps its task, within these bounds (seconds). */
export const MIN_HANDLE_TTL_S = 60;
export const MAX_HANDLE_TTL_S = 24 * 3600;
/** Longest upstream task id sealed into a handle (the upstream chooses it). */
export const MAX_UPSTREAM_ID = 256;
/** Longest statusMessage (and timestamp) passed on from an upstream's task. */
export const MAX_TASK_MESSAGE = 1024;
/** The `relatedTask` metadata key (tasks/result and notifications name their task there). */
export const RELATED_TASK = 'io.modelcontextprotocol/related-task';
const STATUSES: ReadonlySet<string> = new Set<TaskStatus>(['working', 'input_required', 'completed', 'failed', 'cancelled']);

/**
 * An upstream's `Task`, checked and bounded, whichever revision sent it: 2025-11-25 names the
 * lifetime and poll interval `ttl` / `pollInterval`, the 2026-07-28 tasks extension `ttlMs` /
 * `pollIntervalMs`; both are milliseconds.
 */
export interface CheckedUpstreamTask {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs?: number;
}

/**
 * A tools/call that may become its upstream's own task: the caller (the task's scope, whose
 * fields it carries itself so no scope object is made beside it), the published tool, its
 * route and its checked arguments.
 */
export interface UpstreamTaskCall extends TaskScope {
  tool: string;
  route: Extract<Route, { kind: 'upstream' }>;
  args: Record<string, unknown>;
}

/** A client's task method about a proxied task: the caller (its scope), the method, its params, and the catalog the handle's tool is looked up in. */
export interface TaskMethodCall extends TaskScope {
  method: string;
  params: Record<string, unknown>;
  catalog: CompiledCatalog;
}

/** A client's `params.taskId`, before it is opened as a handle. */
export function checkTaskId(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 8192)
    throw new McpError(ErrorCode.InvalidParams, 'params.taskId must be a non-empty string');
  return value;
}

/** Checks a task an upstream answered (`era` says which field names it uses); a malformed one is the upstream's error. */
export function checkUpstreamTask(value: unknown, serverId: string, era: 'legacy' | 'modern'): CheckedUpstreamTask {
  if (!isJsonObject(value)) throw upstreamTaskBroke(serverId, 'its task is not an object');
  const t = value as Record<string, unknown>;
  if (typeof t.taskId !== 'string' || t.taskId.length === 0 || t.taskId.length > MAX_UPSTREAM_ID)
    throw upstreamTaskBroke(serverId, `its taskId is not a string of 1 to ${MAX_UPSTREAM_ID} characters`);
  if (typeof t.status !== 'string' || !STATUSES.has(t.status))
    throw upstreamTaskBroke(serverId, 'its task status is not one of working, input_required, completed, failed, cancelled');
  const now = new Date().toISOString();
  const short = (v: unknown): string | undefined => (typeof v === 'string' ? v.slice(0, MAX_TASK_MESSAGE) : undefined);
  const positive = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined);
  const statusMessage = short(t.statusMessage);
  const pollIntervalMs = positive(era === 'legacy' ? t.pollInterval : t.pollIntervalMs);
  return {
    taskId: t.taskId,
    status: t.status as TaskStatus,
    ...(statusMessage === undefined ? {} : { statusMessage }),
    createdAt: short(t.createdAt) ?? now,
    lastUpdatedAt: short(t.lastUpdatedAt) ?? short(t.createdAt) ?? now,
    ttlMs: positive(era === 'legacy' ? t.ttl : t.ttlMs) ?? null,
    ...(pollIntervalMs === undefined ? {} : { pollIntervalMs }),
  };
}

/** A handle's lifetime in seconds for an upstream task's own lifetime (unknown: the longest). */
export function handleTtlS(ttlMs: number | null): number {
  return ttlMs === null ? MAX_HANDLE_TTL_S : Math.min(MAX_HANDLE_TTL_S, Math.max(MIN_HANDLE_TTL_S, Math.ceil(ttlMs / 1000)));
}

export function upstreamTaskBroke(serverId: string, why: string): McpError {
  return new McpError(ErrorCode.InternalError, `Upstream server ${serverId} answered a task request wrongly: ${why}`, {
    upstream: serverId,
  });
}

import { DEFAULT_TASK_BYTE_CAPS, TASK_RESERVE_BYTES, type TaskByteCaps } from './byte-budgets';
import type { StoredTask, TaskCaps, TaskCreateRefusal, TaskStore, TaskView, TaskWriteOutcome } from './task-store';

interface Entry {
  task: StoredTask;
  /** What the record counts against its tenant's bytes (at least the reservation), and its pending answers. */
  bytes: number;
  answerBytes: number;
  expiresAt: number;
  live: boolean;
  answers: Map<string, unknown>;
  cancelRequested: boolean;
}

/**
 * A per-process {@link TaskStore} (one replica only): the transport's default. Expired
 * entries are dropped on access and on every create, so memory is bounded by the caps.
 */
export class MemoryTaskStore implements TaskStore {
  private readonly entries = new Map<string, Entry>();
  private listener: ((key: string) => void) | undefined;
  private readonly beats = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  async create(key: string, task: StoredTask, caps: TaskCaps): Promise<TaskCreateRefusal | undefined> {
    this.sweep();
    let live = 0;
    let retained = 0;
    for (const entry of this.entries.values()) {
      if (entry.task.tenantId !== task.tenantId) continue;
      retained++;
      if (entry.live) live++;
    }
    if (live >= caps.maxLive) return 'live-cap';
    if (retained >= caps.maxRetained) return 'retained-cap';
    const bytes = Math.max(Buffer.byteLength(JSON.stringify(task)), TASK_RESERVE_BYTES);
    if (this.tenantBytes(task.tenantId) + bytes > (caps.maxTenantBytes ?? DEFAULT_TASK_BYTE_CAPS.maxTenantBytes)) return 'bytes-cap';
    this.entries.set(key, {
      task: structuredClone(task),
      bytes,
      answerBytes: 0,
      expiresAt: this.now() + task.ttlMs,
      live: true,
      answers: new Map(),
      cancelRequested: false,
    });
    return undefined;
  }

  async read(key: string): Promise<TaskView | undefined> {
    const entry = this.entry(key);
    if (!entry) return undefined;
    return { task: structuredClone(entry.task), answered: [...entry.answers.keys()], cancelRequested: entry.cancelRequested };
  }

  async write(key: string, task: StoredTask, terminal: boolean, caps: TaskByteCaps = DEFAULT_TASK_BYTE_CAPS): Promise<TaskWriteOutcome> {
    const entry = this.entry(key);
    // A terminal record stays as it is (a reader may have failed the task of a replica it thought gone).
    if (!entry || ['completed', 'failed', 'cancelled'].includes(entry.task.status)) return 'skipped';
    const size = Buffer.byteLength(JSON.stringify(task));
    if (size > caps.maxTaskBytes) return 'task-bytes';
    const bytes = Math.max(size, TASK_RESERVE_BYTES);
    if (bytes > entry.bytes && this.tenantBytes(task.tenantId) + bytes - entry.bytes > caps.maxTenantBytes) return 'tenant-bytes';
    entry.task = structuredClone(task);
    entry.bytes = bytes;
    if (terminal) {
      entry.live = false;
      entry.answers.clear();
      entry.answerBytes = 0;
    }
    return 'written';
  }

  async answer(key: string, responses: Record<string, unknown>, caps: TaskByteCaps = DEFAULT_TASK_BYTE_CAPS): Promise<TaskWriteOutcome> {
    const entry = this.entry(key);
    if (!entry) return 'skipped';
    const fresh = Object.entries(responses).filter(([k]) => !entry.answers.has(k));
    const add = fresh.reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(JSON.stringify(v)), 0);
    if (entry.answerBytes + add > caps.maxTaskBytes) return 'task-bytes';
    if (this.tenantBytes(entry.task.tenantId) + add > caps.maxTenantBytes) return 'tenant-bytes';
    for (const [k, v] of fresh) entry.answers.set(k, structuredClone(v));
    entry.answerBytes += add;
    return 'written';
  }

  async take(key: string, keys: readonly string[]): Promise<Record<string, unknown>> {
    const entry = this.entry(key);
    const out: Record<string, unknown> = {};
    if (!entry) return out;
    for (const k of keys) {
      if (!entry.answers.has(k)) continue;
      out[k] = entry.answers.get(k);
      entry.answerBytes -= Buffer.byteLength(k) + Buffer.byteLength(JSON.stringify(out[k]));
      entry.answers.delete(k);
    }
    return out;
  }

  async requestCancel(key: string): Promise<void> {
    const entry = this.entry(key);
    if (entry) entry.cancelRequested = true;
  }

  async heartbeat(replicaId: string, ttlMs: number): Promise<void> {
    this.beats.set(replicaId, this.now() + ttlMs);
  }

  async isAlive(replicaId: string): Promise<boolean> {
    return (this.beats.get(replicaId) ?? 0) > this.now();
  }

  async signal(_owner: string, key: string): Promise<void> {
    // One process: the owner is this one.
    queueMicrotask(() => this.listener?.(key));
  }

  async listen(_replicaId: string, onSignal: (key: string) => void): Promise<void> {
    this.listener = onSignal;
  }

  async close(): Promise<void> {
    this.listener = undefined;
    this.entries.clear();
  }

  private entry(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  private tenantBytes(tenantId: string): number {
    this.sweep();
    let total = 0;
    for (const entry of this.entries.values()) if (entry.task.tenantId === tenantId) total += entry.bytes + entry.answerBytes;
    return total;
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
  }
}

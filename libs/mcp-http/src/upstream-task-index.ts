import { createHash } from 'node:crypto';

/** Handles remembered per tenant (all its callers together); past it the soonest to expire go first. */
export const UPSTREAM_TASK_INDEX_MAX = 1_000;

/**
 * Which proxied upstream tasks (their sealed handles) belong to which caller, for a 2025-11-25
 * `tasks/list`: the handles themselves hold everything else. Bounded per tenant; an entry
 * lives as long as its handle. `caller` is {@link callerKey} (never the subject in clear).
 */
export interface UpstreamTaskIndex {
  add(tenantId: string, caller: string, handle: string, expiresAtMs: number): Promise<void>;
  /** The caller's live handles, the latest to expire first (at most {@link UPSTREAM_TASK_INDEX_MAX}). */
  list(tenantId: string, caller: string): Promise<string[]>;
  close(): Promise<void>;
}

/** A caller's key in the index: tenant and subject hashed together. */
export function callerKey(tenantId: string, subject: string): string {
  return createHash('sha256').update(`${tenantId}\n${subject}`).digest('base64url').slice(0, 22);
}

/** The index of one process (a single gateway, tests); the gateway uses a Redis one across replicas. */
export class MemoryUpstreamTaskIndex implements UpstreamTaskIndex {
  private readonly tenants = new Map<string, Array<{ caller: string; handle: string; expiresAt: number }>>();

  add(tenantId: string, caller: string, handle: string, expiresAtMs: number): Promise<void> {
    const now = Date.now();
    const entries = (this.tenants.get(tenantId) ?? []).filter((e) => e.expiresAt > now);
    entries.push({ caller, handle, expiresAt: expiresAtMs });
    entries.sort((x, y) => y.expiresAt - x.expiresAt);
    this.tenants.set(tenantId, entries.slice(0, UPSTREAM_TASK_INDEX_MAX));
    return Promise.resolve();
  }

  list(tenantId: string, caller: string): Promise<string[]> {
    const now = Date.now();
    return Promise.resolve((this.tenants.get(tenantId) ?? []).filter((e) => e.caller === caller && e.expiresAt > now).map((e) => e.handle));
  }

  close(): Promise<void> {
    this.tenants.clear();
    return Promise.resolve();
  }
}

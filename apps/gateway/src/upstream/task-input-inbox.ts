import { randomBytes } from 'node:crypto';
import { ErrorCode, McpError } from '@switchboard/protocol';

/** Questions one caller's upstream session may have waiting at once (a further one is refused to the upstream). */
export const MAX_TASK_INPUTS_PER_SESSION = 8;
/** Questions waiting in one replica across all callers. */
export const MAX_TASK_INPUTS = 10_000;
/** Largest question (its params as JSON) held for a client; a bigger one is refused to the upstream. */
export const MAX_TASK_INPUT_BYTES = 64 * 1024;
/** Largest answer (as JSON) passed back to the upstream. */
export const MAX_TASK_ANSWER_BYTES = 256 * 1024;
/** A question nobody answers within this long is refused to the upstream (which then ends or retries its work). */
export const TASK_INPUT_WAIT_MS = 10 * 60_000;

/** One server→client request an upstream's task asked, as the tasks extension shows it in `inputRequests`. */
export interface TaskInputRequest {
  method: string;
  params: Record<string, unknown>;
}

/** Shares held requests between replicas (see RedisTaskInputRelay); absent ⇒ only this replica sees them. */
export interface TaskInputShare {
  readonly replicaId: string;
  hold(owner: string, key: string, request: TaskInputRequest, ttlMs: number): void;
  release(owner: string, key: string): void;
  pending(owner: string): Promise<Record<string, TaskInputRequest & { replica: string }>>;
  /** Sends answers to the replica holding their requests. */
  forward(replica: string, owner: string, answers: Record<string, unknown>): Promise<void>;
}

interface Waiting extends TaskInputRequest {
  resolve(result: Record<string, unknown>): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * Server→client requests a 2025-11-25 upstream sends on a caller's own session while none of
 * that caller's calls can take them: each waits here (bounded) until the 2026-07-28 client,
 * which only polls its task, answers through `tasks/update`. Keyed by owner (tenant, upstream,
 * caller, session), so one caller's questions are never shown to another; a {@link TaskInputShare}
 * lets every replica list and answer them.
 */
export class TaskInputInbox {
  private readonly byOwner = new Map<string, Map<string, Waiting>>();
  private size = 0;

  constructor(
    private readonly waitMs = TASK_INPUT_WAIT_MS,
    private readonly perSession = MAX_TASK_INPUTS_PER_SESSION,
    private readonly max = MAX_TASK_INPUTS,
    private readonly share?: TaskInputShare,
  ) {}

  /** Holds the upstream's request until the client answers it; rejects (to the upstream) past a bound or the wait. */
  ask(owner: string, method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const mine = this.byOwner.get(owner);
    if ((mine?.size ?? 0) >= this.perSession || this.size >= this.max) {
      return Promise.reject(
        new McpError(
          ErrorCode.InternalError,
          `${method}: the gateway already holds ${this.perSession} unanswered requests for this client; answer them first`,
        ),
      );
    }
    if (JSON.stringify(params).length > MAX_TASK_INPUT_BYTES) {
      return Promise.reject(
        new McpError(
          ErrorCode.InvalidParams,
          `${method}: the request is larger than the ${MAX_TASK_INPUT_BYTES} bytes the gateway holds for a client`,
        ),
      );
    }
    return new Promise((resolve, reject) => {
      const key = `u${randomBytes(9).toString('base64url')}`;
      const done = (): void => {
        clearTimeout(entry.timer);
        if (this.remove(owner, key)) this.share?.release(owner, key);
      };
      const entry: Waiting = {
        method,
        params,
        resolve: (r) => (done(), resolve(r)),
        reject: (e) => (done(), reject(e)),
        timer: setTimeout(
          () => entry.reject(new McpError(ErrorCode.InternalError, `${method}: the client did not answer within ${this.waitMs} ms`)),
          this.waitMs,
        ),
      };
      entry.timer.unref();
      let map = mine;
      if (!map) this.byOwner.set(owner, (map = new Map()));
      map.set(key, entry);
      this.size += 1;
      this.share?.hold(owner, key, { method, params }, this.waitMs);
    });
  }

  /** The owner's unanswered requests held here, by key (empty when none). */
  pending(owner: string): Record<string, TaskInputRequest> {
    const mine = this.byOwner.get(owner);
    if (!mine) return {};
    return Object.fromEntries([...mine].map(([k, w]) => [k, { method: w.method, params: w.params }]));
  }

  /** The owner's unanswered requests held by any replica (this one's alone when they cannot be read). */
  async list(owner: string): Promise<Record<string, TaskInputRequest>> {
    const local = this.pending(owner);
    if (!this.share) return local;
    const shared = await this.share.pending(owner).catch(() => ({}));
    const out: Record<string, TaskInputRequest> = {};
    // This replica's own entries count only while it still holds them (a stale one is not shown).
    for (const [k, h] of Object.entries(shared)) if (h.replica !== this.share.replicaId) out[k] = { method: h.method, params: h.params };
    return { ...out, ...local };
  }

  /**
   * Passes the client's answers to the waiting upstream requests, wherever they are held: only
   * keys outstanding for `owner` are taken (others ignored, as the tasks extension asks).
   * @throws McpError −32602 naming the field when an answer is not an object or too large.
   */
  async answer(owner: string, responses: Record<string, unknown>): Promise<string[]> {
    const taken = this.answerLocal(owner, responses);
    if (!this.share) return taken;
    const rest = Object.keys(responses).filter((k) => !taken.includes(k));
    if (rest.length === 0) return taken;
    const shared = await this.share.pending(owner);
    const byReplica = new Map<string, Record<string, unknown>>();
    for (const k of rest) {
      const held = shared[k];
      if (!held || held.replica === this.share.replicaId) continue;
      checkAnswer(k, responses[k]);
      let group = byReplica.get(held.replica);
      if (!group) byReplica.set(held.replica, (group = {}));
      group[k] = responses[k];
    }
    await Promise.all([...byReplica].map(([replica, answers]) => this.share!.forward(replica, owner, answers)));
    return [...taken, ...[...byReplica.values()].flatMap((g) => Object.keys(g))];
  }

  /** {@link answer} for the requests held here only (also what another replica relays). */
  answerLocal(owner: string, responses: Record<string, unknown>): string[] {
    const mine = this.byOwner.get(owner);
    if (!mine) return [];
    const taken = Object.keys(responses).filter((k) => mine.has(k));
    for (const key of taken) checkAnswer(key, responses[key]);
    for (const key of taken) mine.get(key)!.resolve(responses[key] as Record<string, unknown>);
    return taken;
  }

  /** The connection holding `owner`'s session closed: its requests can no longer be answered, so they end now. */
  forget(owner: string): void {
    const mine = this.byOwner.get(owner);
    if (!mine) return;
    for (const w of [...mine.values()])
      w.reject(
        new McpError(ErrorCode.InternalError, `${w.method}: the gateway closed this session's connection before the client answered`),
      );
  }

  /** Ends every wait (the replica shuts down): the upstreams get an error instead of a stream held forever. */
  close(): void {
    for (const mine of [...this.byOwner.values()])
      for (const w of [...mine.values()])
        w.reject(new McpError(ErrorCode.InternalError, `${w.method}: the gateway shut down before the client answered`));
  }

  /** Requests waiting in this replica. */
  count(): number {
    return this.size;
  }

  private remove(owner: string, key: string): boolean {
    const mine = this.byOwner.get(owner);
    if (!mine?.delete(key)) return false;
    this.size -= 1;
    if (mine.size === 0) this.byOwner.delete(owner);
    return true;
  }
}

function checkAnswer(key: string, value: unknown): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new McpError(ErrorCode.InvalidParams, `params.inputResponses.${key} must be an object (the result of the request)`);
  if (JSON.stringify(value).length > MAX_TASK_ANSWER_BYTES)
    throw new McpError(ErrorCode.InvalidParams, `params.inputResponses.${key} is larger than ${MAX_TASK_ANSWER_BYTES} bytes`);
}

/** The inbox key of a caller's upstream session: tenant, upstream, caller scope and the upstream's session id. */
export function inboxOwner(tenantId: string, serverId: string, caller: string, session: string): string {
  return `${tenantId}\n${serverId}\n${caller}\n${session}`;
}

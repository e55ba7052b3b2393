import { createHash } from 'node:crypto';
import { createRedis, type RedisClient } from '@switchboard/redis-connection';
import type { Logger } from 'pino';
import type { TaskInputInbox, TaskInputRequest, TaskInputShare } from './task-input-inbox';

/** A held request as other replicas read it: which replica holds it, and what it asks. */
interface Held {
  r: string;
  m: string;
  p: Record<string, unknown>;
}

/**
 * Lets every replica serve a held task-input round (see {@link TaskInputInbox}): the replica
 * holding an upstream's request writes it under its owner (`<ns>sb:tinput:<hash>`, expiring
 * with the wait), so any replica's tasks/get lists it; a tasks/update on another replica is
 * published to the holder (`<ns>sb:tinput:<replica>`), which passes the answer upstream.
 */
export class RedisTaskInputRelay implements TaskInputShare {
  private readonly publisher: RedisClient;
  private readonly subscriber: RedisClient;

  constructor(
    redisUrl: string,
    private readonly namespace: string,
    private readonly logger: Logger,
    readonly replicaId: string,
  ) {
    this.publisher = createRedis(redisUrl, {
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      commandTimeout: 2_000,
      lazyConnect: true,
    });
    this.subscriber = createRedis(redisUrl, { maxRetriesPerRequest: null, lazyConnect: true });
    for (const client of [this.publisher, this.subscriber])
      client.on('error', (err: Error) => this.logger.warn({ err: err.message }, 'task-input relay: Redis error'));
  }

  /** Takes answers other replicas received for requests `inbox` holds. */
  async attach(inbox: TaskInputInbox): Promise<void> {
    this.subscriber.on('message', (_channel: string, raw: string) => {
      try {
        const m = JSON.parse(raw) as { o?: unknown; a?: unknown };
        if (typeof m.o !== 'string' || typeof m.a !== 'object' || m.a === null || Array.isArray(m.a)) return;
        inbox.answerLocal(m.o, m.a as Record<string, unknown>);
      } catch (err) {
        this.logger.warn({ err: (err as Error).message }, 'task-input relay: a relayed answer was refused');
      }
    });
    await Promise.all([this.publisher.connect(), this.subscriber.connect()]);
    await this.subscriber.subscribe(this.channel(this.replicaId));
  }

  hold(owner: string, key: string, request: TaskInputRequest, ttlMs: number): void {
    const value: Held = { r: this.replicaId, m: request.method, p: request.params };
    const k = this.key(owner);
    void this.publisher
      .multi()
      .hset(k, key, JSON.stringify(value))
      .pexpire(k, ttlMs)
      .exec()
      .catch((err: Error) => this.logger.warn({ err: err.message }, 'task-input relay: hold not shared'));
  }

  release(owner: string, key: string): void {
    void this.publisher
      .hdel(this.key(owner), key)
      .catch((err: Error) => this.logger.warn({ err: err.message }, 'task-input relay: release not shared'));
  }

  async pending(owner: string): Promise<Record<string, TaskInputRequest & { replica: string }>> {
    const all = await this.publisher.hgetall(this.key(owner));
    const out: Record<string, TaskInputRequest & { replica: string }> = {};
    for (const [key, raw] of Object.entries(all)) {
      try {
        const h = JSON.parse(raw) as Held;
        out[key] = { method: h.m, params: h.p, replica: h.r };
      } catch {
        // Not ours to show.
      }
    }
    return out;
  }

  async forward(replica: string, owner: string, answers: Record<string, unknown>): Promise<void> {
    await this.publisher.publish(this.channel(replica), JSON.stringify({ o: owner, a: answers }));
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.subscriber.quit(), this.publisher.quit()]);
  }

  private key(owner: string): string {
    return `${this.namespace}sb:tinput:${createHash('sha256').update(owner).digest('base64url')}`;
  }

  private channel(replicaId: string): string {
    return `${this.namespace}sb:tinput:r:${replicaId}`;
  }
}

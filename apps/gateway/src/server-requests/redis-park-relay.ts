import { randomBytes } from 'node:crypto';
import { createRedis, type RedisClient } from '@switchboard/redis-connection';
import type { Logger } from 'pino';
import type { ParkRelay, ParkResume, ParkedCalls } from '@switchboard/mcp-http';
import { ErrorCode, McpError } from '@switchboard/protocol';

/** Largest relayed retry (the client's inputResponses); bigger ones are refused, not forwarded. */
export const MAX_RELAYED_RESUME_BYTES = 256 * 1024;
/** Largest relayed outcome (a tool result is already bounded by the upstream response limit). */
export const MAX_RELAYED_OUTCOME_BYTES = 8 * 1024 * 1024;
/** Replies this replica waits for at once (each is one in-flight retry). */
const MAX_WAITING = 10_000;

type Wire =
  { t: 'resume'; m: ParkResume; r: string; id: string } | { t: 'outcome'; id: string; o?: object; e?: { code: number; message: string } };

/**
 * Carries modern retries of parked calls between gateway replicas over Redis pub/sub
 * (`<ns>sb:park:<replica>`): the replica that got the retry publishes the client's answers to
 * the replica holding the call, which resumes it and publishes the call's next outcome back
 * to the asker's channel. Nothing is stored; a holder that is gone reaches no subscriber.
 */
export class RedisParkRelay implements ParkRelay {
  private readonly publisher: RedisClient;
  private readonly subscriber: RedisClient;
  private readonly waiting = new Map<string, { resolve(o: object | undefined): void; reject(e: Error): void; timer: NodeJS.Timeout }>();
  private replicaId = '';

  constructor(
    redisUrl: string,
    private readonly namespace: string,
    private readonly logger: Logger,
    private readonly waitMs: number,
  ) {
    this.publisher = createRedis(redisUrl, {
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      commandTimeout: 2_000,
      lazyConnect: true,
    });
    this.subscriber = createRedis(redisUrl, { maxRetriesPerRequest: null, lazyConnect: true });
    for (const client of [this.publisher, this.subscriber])
      client.on('error', (err: Error) => this.logger.warn({ err: err.message }, 'parked-call relay: Redis error'));
  }

  /** Subscribes this replica's channel: resumes for `parks` run here, outcomes go to the waiting retries. */
  async attach(parks: ParkedCalls): Promise<void> {
    this.replicaId = parks.replicaId;
    this.subscriber.on('message', (_channel: string, raw: string) => {
      let message: Wire;
      try {
        message = JSON.parse(raw) as Wire;
      } catch {
        return;
      }
      if (message.t === 'outcome') return this.settle(message);
      if (message.t === 'resume' && typeof message.id === 'string' && typeof message.r === 'string') void this.serve(parks, message);
    });
    await Promise.all([this.publisher.connect(), this.subscriber.connect()]);
    await this.subscriber.subscribe(this.channel(this.replicaId));
  }

  async resume(replicaId: string, message: ParkResume): Promise<object | undefined> {
    if (this.waiting.size >= MAX_WAITING) return undefined;
    const id = randomBytes(12).toString('base64url');
    const raw = JSON.stringify({ t: 'resume', m: message, r: this.replicaId, id } satisfies Wire);
    if (raw.length > MAX_RELAYED_RESUME_BYTES)
      throw new McpError(ErrorCode.InvalidParams, `params.inputResponses exceeds ${MAX_RELAYED_RESUME_BYTES} bytes`);
    const outcome = new Promise<object | undefined>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        resolve(undefined);
      }, this.waitMs);
      this.waiting.set(id, { resolve, reject, timer });
    });
    let receivers = 0;
    try {
      receivers = await this.publisher.publish(this.channel(replicaId), raw);
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'parked-call relay: publish failed');
    }
    if (receivers === 0) this.settle({ t: 'outcome', id });
    return outcome;
  }

  async close(): Promise<void> {
    for (const [id, w] of this.waiting) {
      clearTimeout(w.timer);
      w.resolve(undefined);
      this.waiting.delete(id);
    }
    await Promise.allSettled([this.subscriber.quit(), this.publisher.quit()]);
  }

  private settle(message: Extract<Wire, { t: 'outcome' }>): void {
    const w = typeof message.id === 'string' ? this.waiting.get(message.id) : undefined;
    if (!w) return;
    this.waiting.delete(message.id);
    clearTimeout(w.timer);
    if (message.e) w.reject(new McpError(Number(message.e.code), String(message.e.message)));
    else w.resolve(typeof message.o === 'object' && message.o !== null ? message.o : undefined);
  }

  private async serve(parks: ParkedCalls, message: Extract<Wire, { t: 'resume' }>): Promise<void> {
    let reply: Wire;
    try {
      const m = message.m;
      const responses = typeof m?.responses === 'object' && m.responses !== null && !Array.isArray(m.responses) ? m.responses : {};
      reply = { t: 'outcome', id: message.id, o: await parks.resumeLocal({ nonce: String(m?.nonce), round: Number(m?.round), responses }) };
    } catch (err) {
      const e = err instanceof McpError ? err : new McpError(ErrorCode.InternalError, 'the parked call could not be resumed');
      reply = { t: 'outcome', id: message.id, e: { code: e.code, message: e.message } };
    }
    let raw = JSON.stringify(reply);
    if (raw.length > MAX_RELAYED_OUTCOME_BYTES) {
      raw = JSON.stringify({
        t: 'outcome',
        id: message.id,
        o: {
          isError: true,
          content: [
            { type: 'text', text: `the tool result exceeds ${MAX_RELAYED_OUTCOME_BYTES} bytes and cannot be relayed between replicas` },
          ],
        },
      } satisfies Wire);
    }
    await this.publisher
      .publish(this.channel(message.r), raw)
      .catch((err: Error) => this.logger.warn({ err: err.message }, 'parked-call relay: reply failed'));
  }

  private channel(replicaId: string): string {
    return `${this.namespace}sb:park:${replicaId}`;
  }
}

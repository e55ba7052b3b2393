import { createRedis, type RedisClient } from '@switchboard/redis-connection';
import type { Logger } from 'pino';
import type { ClientAnswer, ClientAnswerRelay, ClientRequestBroker } from '@switchboard/mcp-http';

/** Largest relayed answer (a client's elicitation / sampling result); bigger ones are refused, not forwarded. */
export const MAX_RELAYED_ANSWER_BYTES = 256 * 1024;

/**
 * Carries clients' answers to server→client requests between gateway replicas over Redis
 * pub/sub: every replica subscribes to its own channel `<ns>sb:s2c:<replica>`; the replica
 * that received the answer POST publishes it there. Nothing is stored: an answer for a
 * replica that is gone reaches no subscriber, and the client is told nothing waits for it.
 */
export class RedisAnswerRelay implements ClientAnswerRelay {
  private readonly publisher: RedisClient;
  private readonly subscriber: RedisClient;
  private broker: ClientRequestBroker | undefined;

  constructor(
    redisUrl: string,
    private readonly namespace: string,
    private readonly logger: Logger,
  ) {
    this.publisher = createRedis(redisUrl, {
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      commandTimeout: 2_000,
      lazyConnect: true,
    });
    this.subscriber = createRedis(redisUrl, { maxRetriesPerRequest: null, lazyConnect: true });
    for (const client of [this.publisher, this.subscriber])
      client.on('error', (err: Error) => this.logger.warn({ err: err.message }, 'server-to-client relay: Redis error'));
  }

  /** Subscribes `broker`'s replica channel; answers published there resolve its waiters. */
  async attach(broker: ClientRequestBroker): Promise<void> {
    this.broker = broker;
    this.subscriber.on('message', (_channel: string, raw: string) => {
      try {
        const message = JSON.parse(raw) as { n?: unknown; a?: unknown };
        if (typeof message.n === 'string' && typeof message.a === 'object' && message.a !== null)
          broker.receive(message.n, message.a as ClientAnswer);
      } catch {
        // Not ours (or truncated): nothing waits for it.
      }
    });
    await Promise.all([this.publisher.connect(), this.subscriber.connect()]);
    await this.subscriber.subscribe(this.channel(broker.replicaId));
  }

  async forward(replicaId: string, nonce: string, answer: ClientAnswer): Promise<boolean> {
    const raw = JSON.stringify({ n: nonce, a: answer });
    if (raw.length > MAX_RELAYED_ANSWER_BYTES) return false;
    try {
      return (await this.publisher.publish(this.channel(replicaId), raw)) > 0;
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'server-to-client relay: publish failed');
      return false;
    }
  }

  async close(): Promise<void> {
    this.broker = undefined;
    await Promise.allSettled([this.subscriber.quit(), this.publisher.quit()]);
  }

  private channel(replicaId: string): string {
    return `${this.namespace}sb:s2c:${replicaId}`;
  }
}

import { createRedis, type RedisClient } from '@switchboard/redis-connection';
import type { Logger } from 'pino';
import type { StoredTask, TaskCaps, TaskCreateRefusal, TaskStore, TaskView } from '@switchboard/mcp-http';

/**
 * Atomic create under the per-tenant caps: drops expired members of the tenant's live and
 * retained sets, refuses when either is full, else stores the record with its TTL.
 * KEYS: record, live set, retained set. ARGV: now, expiresAt, maxLive, maxRetained, json, ttlMs.
 */
const CREATE = `
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then return 1 end
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[4]) then return 2 end
redis.call('SET', KEYS[1], ARGV[5], 'PX', ARGV[6])
redis.call('ZADD', KEYS[2], ARGV[2], KEYS[1])
redis.call('ZADD', KEYS[3], ARGV[2], KEYS[1])
redis.call('PEXPIRE', KEYS[2], ARGV[6])
redis.call('PEXPIRE', KEYS[3], ARGV[6])
return 0
`;

/**
 * An owner's write: never revives an expired record (no key ⇒ nothing), never changes a
 * terminal one (a reader may have failed the task of a replica it thought gone), keeps the TTL.
 * KEYS: record, live set, answers, cancel. ARGV: json, terminal (1/0).
 */
const WRITE = `
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local status = cjson.decode(current).status
if status == 'completed' or status == 'failed' or status == 'cancelled' then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'KEEPTTL')
if ARGV[2] == '1' then
  redis.call('ZREM', KEYS[2], KEYS[1])
  redis.call('DEL', KEYS[3], KEYS[4])
end
return 1
`;

/**
 * Task state shared by every gateway replica (tasks extension). Keys, under the namespace:
 * `sb:task:<key>` the owner's record (JSON, expires at the task's TTL), `sb:task:<key>:in`
 * clients' answers (hash), `sb:task:<key>:cancel` a cancel request, `sb:tasks:{<tenant>}:live`
 * / `:all` the tenant's running and retained tasks (sorted by expiry, for the caps),
 * `sb:tasks-replica:<replica>` a replica's heartbeat (its tasks fail when it is gone). Owners
 * are signalled on `sb:tasks:<replica>` (pub/sub); a lost signal only delays (owners re-read).
 */
export class RedisTaskStore implements TaskStore {
  private readonly redis: RedisClient;
  private readonly subscriber: RedisClient;

  constructor(
    redisUrl: string,
    private readonly namespace: string,
    private readonly logger: Logger,
  ) {
    this.redis = createRedis(redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, commandTimeout: 2_000, lazyConnect: true });
    this.subscriber = createRedis(redisUrl, { maxRetriesPerRequest: null, lazyConnect: true });
    for (const client of [this.redis, this.subscriber]) client.on('error', (err: Error) => this.logger.warn({ err: err.message }, 'tasks: Redis error'));
  }

  async create(key: string, task: StoredTask, caps: TaskCaps): Promise<TaskCreateRefusal | undefined> {
    const now = Date.now();
    const outcome = await this.redis.eval(
      CREATE,
      3,
      this.record(key),
      this.tenantSet(task.tenantId, 'live'),
      this.tenantSet(task.tenantId, 'all'),
      String(now),
      String(now + task.ttlMs),
      String(caps.maxLive),
      String(caps.maxRetained),
      JSON.stringify(task),
      String(task.ttlMs),
    );
    return outcome === 1 ? 'live-cap' : outcome === 2 ? 'retained-cap' : undefined;
  }

  async read(key: string): Promise<TaskView | undefined> {
    const [[, raw], [, answered], [, cancel]] = ((await this.redis.multi().get(this.record(key)).hkeys(this.answers(key)).exists(this.cancel(key)).exec()) ?? []) as [
      [unknown, string | null],
      [unknown, string[]],
      [unknown, number],
    ];
    if (typeof raw !== 'string') return undefined;
    return { task: JSON.parse(raw) as StoredTask, answered, cancelRequested: cancel === 1 };
  }

  async write(key: string, task: StoredTask, terminal: boolean): Promise<void> {
    await this.redis.eval(WRITE, 4, this.record(key), this.tenantSet(task.tenantId, 'live'), this.answers(key), this.cancel(key), JSON.stringify(task), terminal ? '1' : '0');
  }

  async answer(key: string, responses: Record<string, unknown>): Promise<void> {
    const ttl = await this.redis.pttl(this.record(key));
    if (ttl <= 0) return;
    const multi = this.redis.multi();
    for (const [k, v] of Object.entries(responses)) multi.hsetnx(this.answers(key), k, JSON.stringify(v));
    await multi.pexpire(this.answers(key), ttl).exec();
  }

  async take(key: string, keys: readonly string[]): Promise<Record<string, unknown>> {
    if (keys.length === 0) return {};
    const values = await this.redis.hmget(this.answers(key), ...keys);
    await this.redis.hdel(this.answers(key), ...keys);
    const out: Record<string, unknown> = {};
    keys.forEach((k, i) => {
      const raw = values[i];
      if (typeof raw === 'string') out[k] = JSON.parse(raw) as unknown;
    });
    return out;
  }

  async requestCancel(key: string): Promise<void> {
    const ttl = await this.redis.pttl(this.record(key));
    if (ttl > 0) await this.redis.set(this.cancel(key), '1', 'PX', ttl);
  }

  async heartbeat(replicaId: string, ttlMs: number): Promise<void> {
    await this.redis.set(this.beat(replicaId), '1', 'PX', ttlMs);
  }

  async isAlive(replicaId: string): Promise<boolean> {
    return (await this.redis.exists(this.beat(replicaId))) === 1;
  }

  async signal(owner: string, key: string): Promise<void> {
    await this.redis.publish(this.channel(owner), key);
  }

  async listen(replicaId: string, onSignal: (key: string) => void): Promise<void> {
    this.subscriber.on('message', (_channel: string, key: string) => onSignal(key));
    await Promise.all([this.redis.connect(), this.subscriber.connect()]);
    await this.subscriber.subscribe(this.channel(replicaId));
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.subscriber.quit(), this.redis.quit()]);
  }

  private record(key: string): string {
    return `${this.namespace}sb:task:${key}`;
  }

  private answers(key: string): string {
    return `${this.namespace}sb:task:${key}:in`;
  }

  private cancel(key: string): string {
    return `${this.namespace}sb:task:${key}:cancel`;
  }

  private tenantSet(tenantId: string, which: 'live' | 'all'): string {
    return `${this.namespace}sb:tasks:{${tenantId}}:${which}`;
  }

  private beat(replicaId: string): string {
    return `${this.namespace}sb:tasks-replica:${replicaId}`;
  }

  private channel(replicaId: string): string {
    return `${this.namespace}sb:tasks:${replicaId}`;
  }
}

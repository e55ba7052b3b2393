import { createRedis, type RedisClient } from '@switchboard/redis-connection';
import type { Logger } from 'pino';
import {
  DEFAULT_TASK_BYTE_CAPS,
  TASK_RESERVE_BYTES,
  type StoredTask,
  type TaskByteCaps,
  type TaskCaps,
  type TaskCreateRefusal,
  type TaskStore,
  type TaskView,
  type TaskWriteOutcome,
} from '@switchboard/mcp-http';

// Task bytes: a per-tenant ledger hash `sb:tasks:{<tenant>}:bytes` holds, per record key, the
// bytes the record counts (at least the reservation ARGV reserve), per `<record>:in` the
// bytes of its pending answers, and their total under `#`. Every script that writes a task's
// keys updates it in the same call, and a create first gives back the bytes of the tenant's
// expired tasks (their records, answers and cancel flags expire with them), so the ledger
// holds only what Redis holds and never grows past the retained tasks.
const FORGET_EXPIRED = `
local function forget(ledger, m)
  local b = tonumber(redis.call('HGET', ledger, m) or '0') + tonumber(redis.call('HGET', ledger, m .. ':in') or '0')
  redis.call('HDEL', ledger, m, m .. ':in')
  if b > 0 then redis.call('HINCRBY', ledger, '#', -b) end
end
`;

/**
 * Atomic create under the per-tenant caps: drops expired members of the tenant's live and
 * retained sets (and their bytes), refuses when a set is full or the tenant's bytes are spent,
 * else stores the record with its TTL.
 * KEYS: record, live set, retained set, ledger. ARGV: now, expiresAt, maxLive, maxRetained, json, ttlMs, maxTenantBytes, reserve.
 */
const CREATE = `${FORGET_EXPIRED}
for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', ARGV[1])) do forget(KEYS[4], m) end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then return 1 end
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[4]) then return 2 end
local size = math.max(string.len(ARGV[5]), tonumber(ARGV[8]))
if tonumber(redis.call('HGET', KEYS[4], '#') or '0') + size > tonumber(ARGV[7]) then return 3 end
redis.call('SET', KEYS[1], ARGV[5], 'PX', ARGV[6])
redis.call('ZADD', KEYS[2], ARGV[2], KEYS[1])
redis.call('ZADD', KEYS[3], ARGV[2], KEYS[1])
redis.call('HSET', KEYS[4], KEYS[1], size)
redis.call('HINCRBY', KEYS[4], '#', size)
for i = 2, 4 do
  if redis.call('PTTL', KEYS[i]) < tonumber(ARGV[6]) then redis.call('PEXPIRE', KEYS[i], ARGV[6]) end
end
return 0
`;

/**
 * An owner's write: never revives an expired record (no key ⇒ nothing), never changes a
 * terminal one (a reader may have failed the task of a replica it thought gone), keeps the TTL,
 * and refuses a record over the task's budget or growth over the tenant's (2 / 3, nothing written).
 * KEYS: record, live set, answers, cancel, ledger. ARGV: json, terminal (1/0), maxTaskBytes, maxTenantBytes, reserve.
 */
const WRITE = `
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local status = cjson.decode(current).status
if status == 'completed' or status == 'failed' or status == 'cancelled' then return 0 end
local len = string.len(ARGV[1])
if len > tonumber(ARGV[3]) then return 2 end
local size = math.max(len, tonumber(ARGV[5]))
local delta = size - tonumber(redis.call('HGET', KEYS[5], KEYS[1]) or '0')
if delta > 0 and tonumber(redis.call('HGET', KEYS[5], '#') or '0') + delta > tonumber(ARGV[4]) then return 3 end
redis.call('SET', KEYS[1], ARGV[1], 'KEEPTTL')
if delta ~= 0 then
  redis.call('HSET', KEYS[5], KEYS[1], size)
  redis.call('HINCRBY', KEYS[5], '#', delta)
  local ttl = redis.call('PTTL', KEYS[1])
  if redis.call('PTTL', KEYS[5]) < ttl then redis.call('PEXPIRE', KEYS[5], ttl) end
end
if ARGV[2] == '1' then
  redis.call('ZREM', KEYS[2], KEYS[1])
  redis.call('DEL', KEYS[3], KEYS[4])
  local answers = tonumber(redis.call('HGET', KEYS[5], KEYS[3]) or '0')
  redis.call('HDEL', KEYS[5], KEYS[3])
  if answers > 0 then redis.call('HINCRBY', KEYS[5], '#', -answers) end
end
return 1
`;

/**
 * A client's answers, each kept once (HSETNX), all or none: refused when the task's pending
 * answers would pass the task budget (2) or the tenant's bytes (3); 0 when the task is gone.
 * KEYS: record, answers, ledger. ARGV: maxTaskBytes, maxTenantBytes, then key, value pairs.
 */
const ANSWER = `
local ttl = redis.call('PTTL', KEYS[1])
if ttl <= 0 then return 0 end
local add = 0
for i = 3, #ARGV, 2 do
  if redis.call('HEXISTS', KEYS[2], ARGV[i]) == 0 then add = add + string.len(ARGV[i]) + string.len(ARGV[i + 1]) end
end
if add == 0 then return 1 end
if tonumber(redis.call('HGET', KEYS[3], KEYS[2]) or '0') + add > tonumber(ARGV[1]) then return 2 end
if tonumber(redis.call('HGET', KEYS[3], '#') or '0') + add > tonumber(ARGV[2]) then return 3 end
for i = 3, #ARGV, 2 do redis.call('HSETNX', KEYS[2], ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIRE', KEYS[2], ttl)
redis.call('HINCRBY', KEYS[3], KEYS[2], add)
redis.call('HINCRBY', KEYS[3], '#', add)
if redis.call('PTTL', KEYS[3]) < ttl then redis.call('PEXPIRE', KEYS[3], ttl) end
return 1
`;

/** The owner takes answers: read and removed, their bytes given back. KEYS: answers, ledger. ARGV: keys. */
const TAKE = `
local values = redis.call('HMGET', KEYS[1], unpack(ARGV))
local freed = 0
for i, v in ipairs(values) do
  if v then freed = freed + string.len(ARGV[i]) + string.len(v) end
end
redis.call('HDEL', KEYS[1], unpack(ARGV))
if freed > 0 and redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('HINCRBY', KEYS[2], KEYS[1], -freed)
  redis.call('HINCRBY', KEYS[2], '#', -freed)
end
return values
`;

const WRITE_OUTCOME = ['skipped', 'written', 'task-bytes', 'tenant-bytes'] as const;

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
    for (const client of [this.redis, this.subscriber])
      client.on('error', (err: Error) => this.logger.warn({ err: err.message }, 'tasks: Redis error'));
  }

  async create(key: string, task: StoredTask, caps: TaskCaps): Promise<TaskCreateRefusal | undefined> {
    const now = Date.now();
    const outcome = await this.redis.eval(
      CREATE,
      4,
      this.record(key),
      this.tenantSet(task.tenantId, 'live'),
      this.tenantSet(task.tenantId, 'all'),
      this.tenantSet(task.tenantId, 'bytes'),
      String(now),
      String(now + task.ttlMs),
      String(caps.maxLive),
      String(caps.maxRetained),
      JSON.stringify(task),
      String(task.ttlMs),
      String(caps.maxTenantBytes ?? DEFAULT_TASK_BYTE_CAPS.maxTenantBytes),
      String(TASK_RESERVE_BYTES),
    );
    return outcome === 1 ? 'live-cap' : outcome === 2 ? 'retained-cap' : outcome === 3 ? 'bytes-cap' : undefined;
  }

  async read(key: string): Promise<TaskView | undefined> {
    const [[, raw], [, answered], [, cancel]] = ((await this.redis
      .multi()
      .get(this.record(key))
      .hkeys(this.answers(key))
      .exists(this.cancel(key))
      .exec()) ?? []) as [[unknown, string | null], [unknown, string[]], [unknown, number]];
    if (typeof raw !== 'string') return undefined;
    return { task: JSON.parse(raw) as StoredTask, answered, cancelRequested: cancel === 1 };
  }

  async write(key: string, task: StoredTask, terminal: boolean, caps: TaskByteCaps = DEFAULT_TASK_BYTE_CAPS): Promise<TaskWriteOutcome> {
    const outcome = await this.redis.eval(
      WRITE,
      5,
      this.record(key),
      this.tenantSet(task.tenantId, 'live'),
      this.answers(key),
      this.cancel(key),
      this.tenantSet(task.tenantId, 'bytes'),
      JSON.stringify(task),
      terminal ? '1' : '0',
      String(caps.maxTaskBytes),
      String(caps.maxTenantBytes),
      String(TASK_RESERVE_BYTES),
    );
    return WRITE_OUTCOME[Number(outcome)] ?? 'skipped';
  }

  async answer(key: string, responses: Record<string, unknown>, caps: TaskByteCaps = DEFAULT_TASK_BYTE_CAPS): Promise<TaskWriteOutcome> {
    const pairs = Object.entries(responses).flatMap(([k, v]) => [k, JSON.stringify(v)]);
    if (pairs.length === 0) return 'written';
    const outcome = await this.redis.eval(
      ANSWER,
      3,
      this.record(key),
      this.answers(key),
      this.ledgerOf(key),
      String(caps.maxTaskBytes),
      String(caps.maxTenantBytes),
      ...pairs,
    );
    return outcome === 0 ? 'skipped' : (WRITE_OUTCOME[Number(outcome)] ?? 'skipped');
  }

  async take(key: string, keys: readonly string[]): Promise<Record<string, unknown>> {
    if (keys.length === 0) return {};
    const values = (await this.redis.eval(TAKE, 2, this.answers(key), this.ledgerOf(key), ...keys)) as Array<string | null>;
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

  private tenantSet(tenantId: string, which: 'live' | 'all' | 'bytes'): string {
    return `${this.namespace}sb:tasks:{${tenantId}}:${which}`;
  }

  /** The byte ledger of the tenant a task key belongs to (`{tenant}:…`, see taskKey). */
  private ledgerOf(key: string): string {
    const tenant = /^\{([^}]*)\}/.exec(key)?.[1];
    return `${this.namespace}sb:tasks:{${tenant ?? ''}}:bytes`;
  }

  private beat(replicaId: string): string {
    return `${this.namespace}sb:tasks-replica:${replicaId}`;
  }

  private channel(replicaId: string): string {
    return `${this.namespace}sb:tasks:${replicaId}`;
  }
}

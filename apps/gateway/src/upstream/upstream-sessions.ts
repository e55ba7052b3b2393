import { createHash } from 'node:crypto';
import { createRedis, type RedisClient } from '@switchboard/redis-connection';
import type { Logger } from 'pino';

/** A stateful upstream's session as every replica joins it. */
export interface SharedUpstreamSession {
  id: string;
  protocolVersion?: string;
}

/**
 * Where gateway replicas share a stateful upstream's session per connection key (tenant,
 * server, URL, credential, relayed client capabilities), so what one replica's call left in
 * the session (a session resource, a log level) is there for a call landing on another.
 */
export interface UpstreamSessions {
  /** The session replicas use for this key, if one is known. */
  get(connectionKey: string): Promise<SharedUpstreamSession | undefined>;
  /** Offers a fresh session; resolves with the one replicas use (this one, or one stored first). */
  claim(connectionKey: string, session: SharedUpstreamSession): Promise<SharedUpstreamSession>;
  /** Forgets the key's session if it is still `id` (the upstream answered 404 for it). */
  forget(connectionKey: string, id: string): Promise<void>;
  close(): Promise<void>;
}

/** How long an unused shared session id is kept (each use renews it); an upstream usually expires idle sessions sooner. */
const SESSION_TTL_MS = 30 * 60_000;
/** Longest session id stored: the upstream chooses it. */
const MAX_SESSION_ID = 256;

const FORGET = `
local current = redis.call('GET', KEYS[1])
if current and cjson.decode(current).id == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0
`;

/**
 * Shared sessions in Redis: `sb:upstream-session:<sha256 of the connection key>` (the key holds
 * the credential's digest, never the credential), JSON `{id, protocolVersion}`, expiring after
 * {@link SESSION_TTL_MS} unused. Redis down ⇒ each replica keeps its own session, as before.
 */
export class RedisUpstreamSessions implements UpstreamSessions {
  private readonly redis: RedisClient;
  private connecting: Promise<void> | undefined;
  private closed = false;

  constructor(
    redisUrl: string,
    private readonly namespace: string,
    private readonly logger: Logger,
  ) {
    this.redis = createRedis(redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, commandTimeout: 2_000, lazyConnect: true });
    this.redis.on('error', (err: Error) => this.logger.warn({ err: err.message }, 'upstream sessions: Redis error'));
  }

  async get(connectionKey: string): Promise<SharedUpstreamSession | undefined> {
    const raw = await this.ready(() => this.redis.getex(this.key(connectionKey), 'PX', SESSION_TTL_MS));
    return parse(raw);
  }

  async claim(connectionKey: string, session: SharedUpstreamSession): Promise<SharedUpstreamSession> {
    if (session.id.length > MAX_SESSION_ID) return session;
    const key = this.key(connectionKey);
    const stored = await this.ready(() => this.redis.set(key, JSON.stringify(session), 'PX', SESSION_TTL_MS, 'NX'));
    if (stored === 'OK') return session;
    return parse(await this.ready(() => this.redis.get(key))) ?? session;
  }

  async forget(connectionKey: string, id: string): Promise<void> {
    await this.ready(() => this.redis.eval(FORGET, 1, this.key(connectionKey), id));
  }

  async close(): Promise<void> {
    this.closed = true;
    // A connect still under way would finish after quit() and leave the client open: drop it instead.
    if (this.redis.status !== 'ready') return this.redis.disconnect();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private async ready<T>(command: () => Promise<T>): Promise<T | undefined> {
    if (this.closed) return undefined;
    try {
      await (this.connecting ??= this.redis.connect());
      if (this.closed) return undefined;
      return await command();
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'upstream sessions: Redis unavailable, keeping this replica’s own session');
      return undefined;
    }
  }

  private key(connectionKey: string): string {
    return `${this.namespace}sb:upstream-session:${createHash('sha256').update(connectionKey).digest('base64url')}`;
  }
}

function parse(raw: string | null | undefined): SharedUpstreamSession | undefined {
  if (typeof raw !== 'string') return undefined;
  try {
    const v = JSON.parse(raw) as Partial<SharedUpstreamSession>;
    if (typeof v.id !== 'string' || v.id.length === 0 || v.id.length > MAX_SESSION_ID) return undefined;
    return { id: v.id, ...(typeof v.protocolVersion === 'string' ? { protocolVersion: v.protocolVersion } : {}) };
  } catch {
    return undefined;
  }
}

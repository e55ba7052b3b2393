import { metrics } from '@opentelemetry/api';
import type { RedisClient } from '@switchboard/redis-connection';
import type { Logger } from 'pino';
import type { TenantCallLogPolicy, TenantCatalog } from '@switchboard/catalog';
import { encodeUsageRecord, limiterRedis, redactCaptured, usageStreamKey, type UsageRecord } from '@switchboard/limits';
import { answerLength, type EncodedAnswer, type McpRequestInfo, type McpRequestObservation, type McpTarget } from '@switchboard/mcp-http';

export interface UsageRecorderOptions {
  redisUrl: string;
  namespace: string;
  /** Flush at least this often (ms) … */
  flushMs: number;
  /** … or as soon as this many records wait. */
  maxBatch: number;
  /** Records kept while Redis is unavailable; past it the oldest are dropped (counted). */
  maxBuffered: number;
  /** Approximate cap of the Redis stream (entries of up to maxBatch records) while the registry does not drain it. */
  streamMaxLen: number;
  /** Where a target's routes are looked up (server id of a tool). */
  target(tenantId: string): McpTarget | undefined;
  logger: Logger;
}

const CAPTURE_BYTES = 4096;
const LOGGED_METHODS: ReadonlySet<string> = new Set(['tools/call', 'resources/read', 'prompts/get']);
/** Other methods are rolled up under their name when known, else `other` (a client-chosen string must not grow the rollups). */
const KNOWN_METHODS: ReadonlySet<string> = new Set(['initialize', 'server/discover', 'ping', 'tools/list', 'resources/list', 'resources/templates/list', 'prompts/list', 'resources/subscribe', 'resources/unsubscribe', 'completion/complete', 'logging/setLevel']);

/**
 * Usage metering off the hot path: each MCP request's record is pushed onto an in-memory
 * buffer when it ends and written to a Redis stream in batches (one XADD per flush, every
 * `flushMs` or `maxBatch` records); the registry drains the stream into Postgres. No Postgres
 * (and no Redis round trip) per request. Arguments/results are captured only for tenants whose
 * `limits.callLog` opts in, redacted here, before they leave the gateway.
 */
export class UsageRecorder {
  private readonly redis: RedisClient;
  private readonly key: string;
  private buffer: string[] = [];
  private readonly policies = new Map<string, TenantCallLogPolicy>();
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> | undefined;
  private readonly dropped = metrics.getMeter('switchboard').createCounter('usage.records.dropped', { description: 'Usage records dropped because Redis stayed unavailable past the buffer bound' });
  private warned = false;

  constructor(private readonly options: UsageRecorderOptions) {
    this.redis = limiterRedis(options.redisUrl, { commandTimeoutMs: 2_000 });
    this.key = usageStreamKey(options.namespace);
    this.timer = setInterval(() => void this.flush(), options.flushMs);
    this.timer.unref();
  }

  /** Takes a tenant's call-log policy from its document. */
  apply(tenant: TenantCatalog): void {
    const policy = tenant.limits?.callLog;
    if (policy) this.policies.set(tenant.id, policy);
    else this.policies.delete(tenant.id);
  }

  /** Wraps a request's span observation so that its end also records usage. */
  observe(info: McpRequestInfo, inner: McpRequestObservation): McpRequestObservation {
    const started = performance.now();
    let surface = 'generic';
    let toolError = false;
    return {
      classified: (c) => {
        surface = c.surfaceId;
        inner.classified(c);
      },
      toolFailed: () => {
        toolError = true;
        inner.toolFailed();
      },
      run: (fn) => inner.run(fn),
      end: (result) => {
        inner.end(result);
        this.push(info, surface, toolError, performance.now() - started, result.errorCode, result.body);
      },
    };
  }

  /** Writes what is buffered (also on shutdown). */
  async flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    if (this.buffer.length === 0) return;
    const batch = this.buffer;
    this.buffer = [];
    this.flushing = (async () => {
      try {
        await this.redis.xadd(this.key, 'MAXLEN', '~', String(this.options.streamMaxLen), '*', 'r', `[${batch.join(',')}]`);
        this.warned = false;
      } catch (err) {
        // Keep them for the next flush, bounded: an outage costs the oldest records, never memory.
        this.buffer = batch.concat(this.buffer);
        const excess = this.buffer.length - this.options.maxBuffered;
        if (excess > 0) {
          this.buffer.splice(0, excess);
          this.dropped.add(excess);
        }
        if (!this.warned) this.options.logger.warn({ err: (err as Error).message }, 'usage records not written (Redis unavailable); buffering');
        this.warned = true;
      } finally {
        this.flushing = undefined;
      }
    })();
    return this.flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
    this.redis.disconnect();
  }

  private push(info: McpRequestInfo, surface: string, toolError: boolean, ms: number, errorCode: number | undefined, body: EncodedAnswer | undefined): void {
    const { serverId, tool } = this.whatWasCalled(info);
    const auth = info.auth;
    // One shape for every record, built in one literal: an absent optional field is undefined,
    // which JSON.stringify leaves out, so the bytes are those of a record without it. (Conditional
    // spreads here took V8's runtime path for every literal and gave records several shapes.)
    const record: UsageRecord = {
      t: Date.now(),
      tenant: info.tenantId,
      method: LOGGED_METHODS.has(info.method) || KNOWN_METHODS.has(info.method) ? info.method : 'other',
      tool,
      server: serverId,
      subject: auth?.subject ? `sub:${auth.subject}` : auth?.clientId ? `client:${auth.clientId}` : `ip:${info.clientIp ?? '?'}`,
      client: auth?.clientId || undefined,
      surface,
      outcome: errorCode === -32029 ? 'rate_limited' : errorCode !== undefined ? 'error' : toolError ? 'tool_error' : 'ok',
      code: errorCode,
      ms: Math.round(ms * 100) / 100,
      in: info.bytesIn ?? 0,
      out: body === undefined ? 0 : answerLength(body),
      args: undefined,
      result: undefined,
    };
    const policy = this.policies.get(info.tenantId);
    if (policy && LOGGED_METHODS.has(info.method)) {
      if (policy.captureArguments) record.args = redactCaptured(info.params?.arguments ?? info.params?.uri ?? null, policy.redactKeys, CAPTURE_BYTES);
      if (policy.captureResults && body !== undefined) record.result = redactCaptured(resultOf(body), policy.redactKeys, CAPTURE_BYTES);
    }
    this.buffer.push(encodeUsageRecord(record));
    if (this.buffer.length >= this.options.maxBatch) void this.flush();
  }

  private whatWasCalled(info: McpRequestInfo): { serverId: string; tool: string } {
    const params = info.params;
    const catalog = this.options.target(info.tenantId)?.catalog;
    if (info.method === 'tools/call' || info.method === 'prompts/get') {
      if (!info.name || !catalog) return { serverId: '-', tool: '?' };
      const route = info.method === 'tools/call' ? catalog.tool(info.name)?.entry.route : catalog.prompt(info.name)?.route;
      return { serverId: route?.kind === 'upstream' ? route.serverId : 'local', tool: info.name };
    }
    if (info.method === 'resources/read') {
      const found = typeof params?.uri === 'string' ? catalog?.resource(params.uri) : undefined;
      if (!found) return { serverId: '-', tool: '?' };
      const [route, name] = 'entry' in found ? [found.entry.route, found.entry.definition.uri] : [found.template.route, found.template.definition.uriTemplate];
      return { serverId: route.kind === 'upstream' ? route.serverId : 'local', tool: name };
    }
    return { serverId: '-', tool: KNOWN_METHODS.has(info.method) ? info.method : 'other' };
  }
}

/** The `result` (or `error`) of an encoded JSON-RPC response; an SSE-framed or odd body is kept as text. */
function resultOf(body: EncodedAnswer): unknown {
  try {
    const parsed = JSON.parse(body.toString()) as { result?: unknown; error?: unknown };
    return parsed.result ?? parsed.error ?? null;
  } catch {
    return String(body).slice(0, CAPTURE_BYTES);
  }
}

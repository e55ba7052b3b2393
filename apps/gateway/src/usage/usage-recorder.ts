import { metrics } from '@opentelemetry/api';
import type { RedisClient } from '@switchboard/redis-connection';
import type { Logger } from 'pino';
import type { TenantCallLogPolicy, TenantCatalog } from '@switchboard/catalog';
import {
  limiterRedis,
  redactCapturedSized,
  subjectIdOf,
  subjectKindOf,
  USAGE_BATCH_FIELD,
  UsageBatchWriter,
  usageStreamKey,
  type UsageEvent,
} from '@switchboard/limits';
import { type EncodedAnswer, type McpRequestInfo, type McpRequestObservation } from '@switchboard/mcp-http';

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
  /** Bytes of undrained batches the stream keeps; past it the oldest batches are trimmed (in the script that adds). Default 256 MiB. */
  streamMaxBytes?: number;
  /** Captured call-log bytes (arguments and results) one tenant may put in one batch; past it its records go without captures. Default 64 KiB. */
  tenantCaptureBytes?: number;
  logger: Logger;
}

/** Most bytes (JSON) of one captured value: a record carries at most two (arguments, result). */
const CAPTURE_BYTES = 4096;
/** Most captured bytes in one batch (one stream entry): a batch that reaches it is sealed before the next capture. */
export const CAPTURE_BATCH_BYTES = 256 * 1024;
/** Stands in for a capture over the tenant's per-batch budget (the record itself is kept). */
const NOT_CAPTURED = '[not captured: over USAGE_TENANT_CAPTURE_BYTES]';

/**
 * Appends one batch under the stream's byte budget. Every entry carries `c`, the running total
 * of batch bytes appended (through this one), so the bytes the stream holds are read from its
 * two ends in O(1): c(newest) - c(oldest) + len(oldest). Over the budget the oldest batches are
 * deleted first, in this script, so replicas appending at once cannot overshoot it; what the
 * registry drained (XDEL) simply is no longer at the front. One key: cluster-safe.
 * KEYS: stream. ARGV: batch, maxBytes, maxLen, batch field. Returns 0 when the batch alone is over the budget.
 */
const APPEND_BATCH = `
local len = string.len(ARGV[1])
local budget = tonumber(ARGV[2])
if len > budget then return 0 end
local function sizes(entry)
  local f = entry[2]
  local c, n = 0, 0
  for i = 1, #f, 2 do
    if f[i] == 'c' then c = tonumber(f[i + 1]) elseif f[i] == ARGV[4] then n = string.len(f[i + 1]) end
  end
  return c, n
end
local top = 0
local newest = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)[1]
if newest then top = sizes(newest) end
while true do
  local oldest = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)[1]
  if not oldest then
    top = 0
    break
  end
  local c, n = sizes(oldest)
  if top - (c - n) + len <= budget then break end
  redis.call('XDEL', KEYS[1], oldest[1])
end
redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[3], '*', ARGV[4], ARGV[1], 'c', tostring(top + len))
return 1
`;
const LOGGED_METHODS: ReadonlySet<string> = new Set(['tools/call', 'resources/read', 'prompts/get']);
/** Other methods are rolled up under their name when known, else `other` (a client-chosen string must not grow the rollups). */
const KNOWN_METHODS: ReadonlySet<string> = new Set([
  'initialize',
  'server/discover',
  'ping',
  'tools/list',
  'resources/list',
  'resources/templates/list',
  'prompts/list',
  'resources/subscribe',
  'resources/unsubscribe',
  'completion/complete',
  'logging/setLevel',
]);

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
  /** The batch records are added to … */
  private batch = new UsageBatchWriter();
  /** … and batches waiting for their XADD (more than one only while Redis is unavailable), with their record counts. */
  private sealed: Array<{ bytes: Buffer; count: number }> = [];
  private sealedCount = 0;
  /** The sealed batch an XADD is under way for. */
  private writing: { bytes: Buffer; count: number } | undefined;
  /** Captured bytes in `batch`. */
  private batchCaptured = 0;
  private readonly policies = new Map<string, TenantCallLogPolicy>();
  /** Captured bytes per tenant in the batch being filled (reset when it is sealed). */
  private captured = new Map<string, number>();
  private readonly streamMaxBytes: number;
  private readonly tenantCaptureBytes: number;
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> | undefined;
  private readonly dropped = metrics.getMeter('switchboard').createCounter('usage.records.dropped', {
    description: 'Usage records dropped because Redis stayed unavailable past the buffer bound',
  });
  private warned = false;

  constructor(private readonly options: UsageRecorderOptions) {
    this.redis = limiterRedis(options.redisUrl, { commandTimeoutMs: 2_000 });
    this.key = usageStreamKey(options.namespace);
    this.streamMaxBytes = options.streamMaxBytes ?? 256 * 1024 * 1024;
    this.tenantCaptureBytes = options.tenantCaptureBytes ?? 64 * 1024;
    this.timer = setInterval(() => void this.flush(), options.flushMs);
    this.timer.unref();
  }

  /** Takes a tenant's call-log policy from its document. */
  apply(tenant: TenantCatalog): void {
    const policy = tenant.limits?.callLog;
    if (policy) this.policies.set(tenant.id, policy);
    else this.policies.delete(tenant.id);
  }

  /** The tenant left this replica's working set: no call-log policy until it is applied again. */
  forget(tenantId: string): void {
    this.policies.delete(tenantId);
  }

  /** Wraps a request's span observation so that its end also records usage. */
  observe(info: McpRequestInfo, inner: McpRequestObservation): McpRequestObservation {
    return new UsageObservation(this, info, inner);
  }

  /** Writes what is buffered (also on shutdown). */
  async flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    this.seal();
    if (this.sealed.length === 0) return;
    this.flushing = (async () => {
      try {
        while (this.sealed.length > 0) {
          const next = (this.writing = this.sealed[0]);
          const added = await this.redis.eval(
            APPEND_BATCH,
            1,
            this.key,
            next.bytes,
            String(this.streamMaxBytes),
            String(this.options.streamMaxLen),
            USAGE_BATCH_FIELD,
          );
          // A batch over the whole budget cannot be kept: dropped, counted, never retried.
          if (added === 0) this.dropped.add(next.count);
          this.sealed.shift();
          this.sealedCount -= next.count;
        }
        this.warned = false;
      } catch (err) {
        // Kept for the next flush, bounded (seal): an outage costs the oldest records, never memory.
        if (!this.warned)
          this.options.logger.warn({ err: (err as Error).message }, 'usage records not written (Redis unavailable); buffering');
        this.warned = true;
      } finally {
        this.writing = undefined;
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

  /** @internal A request's end (UsageObservation): what was asked, what was learned on the way, and the answer. */
  push(
    info: McpRequestInfo,
    observed: ObservedRequest,
    answer: { errorCode: number | undefined; body?: EncodedAnswer; bytes: number },
  ): void {
    const { method, called, auth } = info;
    const { surface, toolError } = observed;
    const { errorCode, body, bytes } = answer;
    const endedAt = performance.now();
    const ms = endedAt - observed.started;
    const methodName = LOGGED_METHODS.has(method) || KNOWN_METHODS.has(method) ? method : 'other';
    // One shape for every event, built in one literal (absent optional fields are undefined):
    // conditional spreads took V8's runtime path for every literal and gave events several shapes.
    const event: UsageEvent = {
      endedAt,
      tenant: info.tenantId,
      method: methodName,
      // A call / read / get the catalog does not know is `?`; other methods are named by their (known) method.
      tool: called.name ?? (LOGGED_METHODS.has(method) ? '?' : methodName),
      server: called.serverId,
      subjectKind: subjectKindOf(auth),
      subjectId: subjectIdOf(auth, info.clientIp),
      client: auth?.clientId || undefined,
      surface,
      outcome: errorCode === -32029 ? 'rate_limited' : errorCode !== undefined ? 'error' : toolError ? 'tool_error' : 'ok',
      code: errorCode,
      ms,
      in: info.bytesIn ?? 0,
      out: bytes,
      args: undefined,
      result: undefined,
    };
    const policy = this.policies.get(info.tenantId);
    let captured = 0;
    if (policy && LOGGED_METHODS.has(info.method)) {
      if (policy.captureArguments) {
        const args = this.capture(
          info.tenantId,
          redactCapturedSized(info.params?.arguments ?? info.params?.uri ?? null, policy.redactKeys, CAPTURE_BYTES),
        );
        event.args = args.value;
        captured += args.bytes;
      }
      if (policy.captureResults && body !== undefined) {
        const result = this.capture(info.tenantId, redactCapturedSized(resultOf(body), policy.redactKeys, CAPTURE_BYTES));
        event.result = result.value;
        captured += result.bytes;
      }
    }
    // Captures are what make a batch big: it is sealed before it would pass its byte bound.
    if (captured > 0 && this.batchCaptured + captured > CAPTURE_BATCH_BYTES && this.batch.count > 0) {
      this.seal();
      void this.flush();
    }
    this.batchCaptured += captured;
    this.batch.add(event);
    if (this.batch.count >= this.options.maxBatch) {
      this.seal();
      void this.flush();
    }
  }

  /** A capture, or its stand-in once the tenant's captures in this batch pass their byte budget (one tenant cannot fill the batch). */
  private capture(tenantId: string, sized: { value: unknown; bytes: number }): { value: unknown; bytes: number } {
    const used = this.captured.get(tenantId) ?? 0;
    if (used + sized.bytes > this.tenantCaptureBytes) return { value: NOT_CAPTURED, bytes: 0 };
    this.captured.set(tenantId, used + sized.bytes);
    return sized;
  }

  /** Closes the batch being filled; past `maxBuffered` waiting records, the oldest batches go (counted). */
  private seal(): void {
    const count = this.batch.count;
    if (count === 0) return;
    this.captured = new Map();
    this.sealed.push({ bytes: this.batch.take(), count });
    this.batchCaptured = 0;
    this.sealedCount += count;
    while (this.sealedCount > this.options.maxBuffered) {
      // Never the batch an XADD is writing, never the newest.
      const at = this.sealed[0] === this.writing ? 1 : 0;
      if (this.sealed.length <= at + 1) break;
      const [oldest] = this.sealed.splice(at, 1);
      this.sealedCount -= oldest.count;
      this.dropped.add(oldest.count);
    }
  }
}

/** What a request's observation learned by its end. */
export interface ObservedRequest {
  readonly surface: string;
  readonly toolError: boolean;
  /** `performance.now()` when the request started. */
  readonly started: number;
}

/** One request's observation: the span's, plus its usage record when it ends (one object per request, no closures). */
class UsageObservation implements McpRequestObservation, ObservedRequest {
  readonly started = performance.now();
  surface = 'generic';
  toolError = false;

  constructor(
    private readonly recorder: UsageRecorder,
    private readonly info: McpRequestInfo,
    private readonly inner: McpRequestObservation,
  ) {}

  classified(c: { era: string; protocolVersion: string; surfaceId: string }): void {
    this.surface = c.surfaceId;
    this.inner.classified(c);
  }

  toolFailed(): void {
    this.toolError = true;
    this.inner.toolFailed();
  }

  run<T>(fn: () => Promise<T>): Promise<T> {
    return this.inner.run(fn);
  }

  end(result: { errorCode: number | undefined; httpStatus: number; body?: EncodedAnswer; bytes: number }): void {
    this.inner.end(result);
    this.recorder.push(this.info, this, result);
  }
}

/** The `result` (or `error`) of an encoded JSON-RPC response; an SSE-framed or odd body is kept as text. */
function resultOf(body: EncodedAnswer): unknown {
  try {
    const parsed = JSON.parse(body.toString()) as { result?: { resultType?: unknown; taskId?: unknown }; error?: unknown };
    // An anonymous caller's task id carries its secret after the dot: the call log keeps only the public part.
    const r = parsed.result;
    if (r?.resultType === 'task' && typeof r.taskId === 'string') return { ...r, taskId: r.taskId.split('.')[0] };
    return parsed.result ?? parsed.error ?? null;
  } catch {
    return String(body).slice(0, CAPTURE_BYTES);
  }
}

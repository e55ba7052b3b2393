import {
  deploymentMode,
  isSecretsKeys,
  parseSecretsKeys,
  productionSecretsRefusal,
  SECRETS_KEYS_FORMAT,
  SWITCHBOARD_ENVS,
  type SwitchboardEnv,
} from '@switchboard/secret-box';
import { redisUrlSchema } from '@switchboard/redis-connection';
import { z } from 'zod';
import { trustProxySchema } from '@switchboard/limits';

/**
 * The gateway's configuration, read once at boot from the environment. Every key is
 * documented beside its schema; a bad value lists every problem and stops the process.
 */
const schema = z.object({
  /** TCP port of the public MCP edge. */
  GATEWAY_PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Interface to bind; loopback by default so a dev machine does not expose the edge. */
  GATEWAY_HOST: z.string().min(1).default('127.0.0.1'),
  /** Public base URL clients use (canonical MCP URLs, server cards). Defaults to http://GATEWAY_HOST:GATEWAY_PORT. */
  GATEWAY_PUBLIC_URL: z.url().optional(),
  /** When set (e.g. `mcp.example.com`), `https://{tenant}.{domain}/mcp` serves that tenant (host-based layout). */
  GATEWAY_DOMAIN: z
    .string()
    .regex(/^[a-z0-9.-]+$/i, 'must be a DNS name')
    .optional(),
  /**
   * Which catalog sources to serve, comma-separated: `file` (TENANTS_FILE), `registry`
   * (Redis snapshots + the registry's internal API). Default: `registry` when REGISTRY_URL
   * or REDIS_URL is set, else `file`. `npm start` uses both.
   */
  CATALOG_SOURCES: z
    .string()
    .regex(/^(file|registry)(,(file|registry))*$/, 'must be a comma-separated list of file, registry')
    .optional(),
  /** The file catalog source: tenants and their catalogs (validated at boot). */
  TENANTS_FILE: z.string().min(1).default('config/tenants.yaml'),
  /** Largest accepted MCP POST body in bytes (413 above). */
  GATEWAY_BODY_LIMIT: z.coerce
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * 1024)
    .default(1024 * 1024),
  /**
   * Memory for compiled list pages of every tenant together, in MiB: pages are compiled on a
   * tenant's first request and kept in an LRU bounded by their (content-addressed) bytes.
   */
  GATEWAY_PAGE_CACHE_MB: z.coerce.number().min(0).max(16_384).default(64),
  /** Registry tenants: `lazy` fetches each on first use into a working set bounded by GATEWAY_TENANT_CACHE_MB; `eager` loads all at boot. */
  GATEWAY_TENANT_LOADING: z.enum(['lazy', 'eager']).default('lazy'),
  /** Estimated memory of the fetched tenants' compiled catalogs, in MiB (least recently used evicted past it). */
  GATEWAY_TENANT_CACHE_MB: z.coerce.number().min(1).max(65_536).default(256),
  /** Unknown tenant ids remembered (404 without a look-up) and for how long, in ms; a publish of the id ends it at once. */
  GATEWAY_TENANT_NEGATIVE_MAX: z.coerce.number().int().min(0).max(1_000_000).default(10_000),
  GATEWAY_TENANT_NEGATIVE_TTL_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
  /** Look-ups of tenants not held, per second per replica (burst 2×); past it a cold id answers 404 without one. */
  GATEWAY_TENANT_FETCH_PER_SEC: z.coerce.number().min(1).max(100_000).default(200),
  /** Most members of one JSON-RPC batch (2025-03-26); more ⇒ 400 + −32600 naming batchMaxItems, nothing run. A tenant's `limits.batchMaxItems` overrides it. */
  BATCH_MAX_ITEMS: z.coerce.number().int().min(1).max(1_000).default(50),
  /** Most bytes of a batch's combined response; past it the batch stops ⇒ 400 + −32600 naming batchMaxResponseBytes. Tenant override `limits.batchMaxResponseBytes`. */
  BATCH_MAX_RESPONSE_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * 1024)
    .default(4 * 1024 * 1024),
  /** Per-call timeout for upstream tool calls, in ms. */
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  /**
   * In-flight calls allowed per (tenant, upstream server) in this replica; up to
   * UPSTREAM_MAX_QUEUE more wait, beyond that a call is refused at once. Per replica: the
   * cluster-wide cap is this × replicas (see k8s/README.md).
   */
  UPSTREAM_MAX_CONCURRENCY: z.coerce.number().int().min(1).max(10_000).default(32),
  /** Calls that may wait for one of an upstream's slots (default: UPSTREAM_MAX_CONCURRENCY). */
  UPSTREAM_MAX_QUEUE: z.coerce.number().int().min(0).max(100_000).optional(),
  /** Largest upstream response body, or single server-sent event, in bytes; counted while streaming (tenant override `limits.upstreamResponseBytes`). */
  UPSTREAM_RESPONSE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 * 1024 * 1024)
    .default(4 * 1024 * 1024),
  /**
   * Largest event-stream answer to one upstream call, in bytes: every event (progress, logs,
   * server→client requests) and the answer together. Past it the call is stopped with an error
   * naming this key, so an upstream that keeps streaming cannot hold a gateway core until
   * UPSTREAM_TIMEOUT_MS (per-event bound: UPSTREAM_RESPONSE_MAX_BYTES).
   */
  UPSTREAM_CALL_STREAM_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 * 1024 * 1024)
    .default(16 * 1024 * 1024),
  /**
   * Each tenant's share, in this replica, of the notification bytes (progress, logs) its
   * upstreams stream during calls: past the burst, reading a call's stream pauses so the tenant
   * gets this rate, and a flooding upstream is slowed instead of taking other tenants' CPU.
   */
  UPSTREAM_NOTIFY_BYTES_PER_SEC: z.coerce
    .number()
    .int()
    .min(1024)
    .max(2 ** 30)
    .default(256 * 1024),
  UPSTREAM_NOTIFY_BURST_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(2 ** 30)
    .default(1024 * 1024),
  /** Upstream calls one tenant may have in flight (or waiting) in this replica (tenant override `limits.maxInflight`). */
  GATEWAY_TENANT_MAX_INFLIGHT: z.coerce.number().int().min(1).max(100_000).default(64),
  /** URL of the chain-reader's MCP endpoint, used by `builtin: chain` catalogs. */
  CHAIN_READER_URL: z.url().optional(),
  /** Heartbeat interval and bounded lifetime of the legacy GET event stream, in ms. */
  SSE_HEARTBEAT_MS: z.coerce.number().int().min(100).default(15_000),
  SSE_MAX_LIFETIME_MS: z.coerce.number().int().min(1000).default(300_000),
  /**
   * On SIGTERM: time between readiness going 503 and the listener closing, in ms (0 in k8s,
   * where the preStop sleep already waited for endpoints to drop the pod).
   */
  SHUTDOWN_DRAIN_DELAY_MS: z.coerce.number().int().min(0).max(120_000).default(0),
  /** On SIGTERM: bound for in-flight calls to finish, in ms; default the call timeout (UPSTREAM_TIMEOUT_MS + 5 s) + 2 s. */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).optional(),
  /** Registry base URL: with REDIS_URL, selects the registry catalog source (its `/internal/catalogs` is the fallback when Redis misses). */
  REGISTRY_URL: z.url().optional(),
  /** Redis holding the registry's published catalogs (`sb:catalog:<tenant>`, `sb:tenants`, channel `catalog:changed`). */
  REDIS_URL: redisUrlSchema().optional(),
  /** Prefix of the registry's Redis keys and channel (must equal the registry's REDIS_NAMESPACE); default none. */
  REDIS_NAMESPACE: z
    .string()
    .regex(/^[A-Za-z0-9:_-]*$/)
    .default(''),
  /** Bearer token for the registry's `/internal/*` API (the registry's INTERNAL_TOKEN). */
  INTERNAL_TOKEN: z.string().min(16).optional(),
  /** The registry's SECRETS_KEY (its keys, comma-separated, newest first): opens the sealed upstream credentials. Unset: the public dev key (warned). */
  SECRETS_KEY: z.string().refine(isSecretsKeys, SECRETS_KEYS_FORMAT).optional(),
  /**
   * `production` refuses to start on development, placeholder or short secrets and on missing
   * GATEWAY_STATE_KEYS (naming each variable); `development` allows them (warnings only).
   * Unset: development on a loopback GATEWAY_HOST, production on any other address.
   */
  SWITCHBOARD_ENV: z.preprocess((v) => (v === '' ? undefined : v), z.enum(SWITCHBOARD_ENVS).optional()),
  /** SSRF allow-list for registry-sourced upstreams: hosts reachable over plain http / private addresses (e.g. `127.0.0.1,localhost` in dev). */
  UPSTREAM_ALLOW_HTTP_HOSTS: z
    .string()
    .default('')
    .transform((s) =>
      s
        .split(',')
        .map((h) => h.trim().toLowerCase())
        .filter(Boolean),
    ),
  /** Full re-sync of registry catalogs (catches missed `catalog:changed` messages), in ms. */
  REGISTRY_RESYNC_MS: z.coerce.number().int().min(0).default(30_000),
  /**
   * `true` (default): legacy Streamable HTTP upstreams get `tools/call`, `resources/read` and
   * `prompts/get` as direct requests on the session the SDK client opened (a third of the
   * gateway's CPU per proxied call); `false` sends every call through the SDK client.
   */
  UPSTREAM_DIRECT_REQUESTS: z.enum(['true', 'false']).default('true'),
  /** Consecutive upstream failures that open its circuit breaker, and how long it stays open (ms). */
  UPSTREAM_BREAKER_FAILURES: z.coerce.number().int().min(1).max(1000).default(5),
  UPSTREAM_BREAKER_OPEN_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  /**
   * A client-sent W3C `traceparent`: `trust` continues the client's trace; `link` (default:
   * a public edge should not let clients choose trace ids or sampling) starts a new trace
   * with a span link to the client's.
   */
  GATEWAY_TRACE_CLIENT_CONTEXT: z.enum(['trust', 'link']).default('link'),
  /** Public base URL of the auth service: path-based tenants' issuers are `${AUTH_PUBLIC_URL}/t/<tenant>` (host-based: the tenant origin). */
  AUTH_PUBLIC_URL: z.url().default('http://127.0.0.1:3200'),
  /** Auth service URL for gateway→auth calls (token exchange); defaults to AUTH_PUBLIC_URL. */
  AUTH_INTERNAL_URL: z.url().optional(),
  /** Bearer secret for the auth service's /internal/* endpoints (its INTERNAL_TOKEN). */
  AUTH_INTERNAL_TOKEN: z.string().min(16).optional(),
  /**
   * Longest a user's vaulted connector token is reused without asking auth again (never past its
   * expiry), in ms: an unlink or failed refresh reaches a replica within this. Default 0 — every
   * connector call asks the vault, so an unlink is seen by the very next call on every replica.
   */
  CONNECTOR_TOKEN_CACHE_MS: z.coerce.number().int().min(0).max(300_000).default(0),
  /** Least time between JWKS refetches when a token names an unknown `kid` (key rotation), in ms. */
  AUTH_JWKS_COOLDOWN_MS: z.coerce.number().int().min(0).default(30_000),
  /** How long a verified access token is remembered (never past its `exp`), in ms; 0 disables the cache. */
  AUTH_TOKEN_CACHE_MS: z.coerce.number().int().min(0).max(300_000).default(30_000),
  /**
   * Rate limits and quotas (README "Rate limits"): `auto` (default) enforces them when a Redis
   * is configured (one budget for every replica), `true` also without Redis (per-replica
   * buckets), `false` turns them off.
   */
  LIMITS_ENABLED: z.enum(['auto', 'true', 'false']).default('auto'),
  /** Redis holding the shared buckets; default REDIS_URL. */
  LIMITS_REDIS_URL: redisUrlSchema().optional(),
  /** Prefix of bucket keys (tests isolate with it); default REDIS_NAMESPACE. */
  LIMITS_KEY_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9:_-]*$/)
    .optional(),
  /**
   * Longest a limit decision waits for Redis before the per-replica fallback decides, in ms. Not
   * lower: the timer runs on the event loop, so a loop stall longer than this (GC, a busy CPU)
   * fires it even when Redis has answered, and the fallback would decide needlessly.
   */
  LIMITS_REDIS_TIMEOUT_MS: z.coerce.number().int().min(5).max(5_000).default(500),
  /** Operator defaults, for what a tenant's plan (`limits.rate`) leaves out: the tenant budget (every request)… */
  LIMITS_TENANT_RPS: z.coerce.number().positive().default(1_000),
  LIMITS_TENANT_BURST: z.coerce.number().int().min(1).default(2_000),
  /** …each caller × server × tool (calls, reads, prompt gets) or × list method… */
  LIMITS_SUBJECT_RPS: z.coerce.number().positive().default(50),
  LIMITS_SUBJECT_BURST: z.coerce.number().int().min(1).default(100),
  /** …and `tools/call`s per UTC day per tenant (0 = no daily quota). */
  LIMITS_DAILY_CALLS: z.coerce.number().int().min(0).default(0),
  /** Ceilings no tenant plan may pass (a plan is written by the tenant itself). */
  LIMITS_MAX_TENANT_RPS: z.coerce.number().positive().default(5_000),
  LIMITS_MAX_TENANT_BURST: z.coerce.number().int().min(1).default(10_000),
  LIMITS_MAX_SUBJECT_RPS: z.coerce.number().positive().default(1_000),
  LIMITS_MAX_SUBJECT_BURST: z.coerce.number().int().min(1).default(2_000),
  /** Highest daily quota a plan may set (0 = no ceiling). */
  LIMITS_MAX_DAILY_CALLS: z.coerce.number().int().min(0).default(0),
  /** While Redis is down each replica enforces the limits divided by this (set it to the replica count). */
  LIMITS_FALLBACK_DIVISOR: z.coerce.number().int().min(1).max(1_000).default(1),
  /**
   * Largest token lease a replica takes from a hot rule set per Redis round trip, as a share of
   * the set's smallest burst (a tenant's 2,000 ⇒ up to 200 units; below a burst of 10, never
   * leased); 0 turns leases off (one round trip per request). Redis grants only units that
   * exist, so replicas together never pass a limit; a lease unspent for a second is given back.
   */
  LIMITS_LEASE_SHARE: z.coerce.number().min(0).max(0.5).default(0.1),
  /**
   * Proxies in front of the gateway whose `X-Forwarded-For` entries are believed (the client
   * address keys anonymous callers' limits): unset/`false` none, a hop count, or proxy
   * addresses/CIDRs. `true` is refused (a client could choose its own key).
   */
  GATEWAY_TRUST_PROXY: trustProxySchema(),
  /** Usage metering + call log (a Redis stream the registry drains): `auto` (default) on when REDIS_URL is set. */
  USAGE_ENABLED: z.enum(['auto', 'true', 'false']).default('auto'),
  /** Usage records are written in batches: at least every USAGE_FLUSH_MS, or at USAGE_MAX_BATCH records. */
  USAGE_FLUSH_MS: z.coerce.number().int().min(10).max(60_000).default(1_000),
  USAGE_MAX_BATCH: z.coerce.number().int().min(1).max(10_000).default(500),
  /** Records kept in memory while Redis is down (oldest dropped past it, counted in usage.records.dropped). */
  USAGE_MAX_BUFFERED: z.coerce.number().int().min(100).max(1_000_000).default(50_000),
  /** Approximate cap of the usage stream's entries while the registry does not drain it. */
  USAGE_STREAM_MAXLEN: z.coerce.number().int().min(100).default(100_000),
  /**
   * Keys (comma-separated, base64, ≥ 32 bytes each) sealing what travels through clients and
   * back to any replica: legacy `Mcp-Session-Id`s, server→client request ids, MRTR
   * `requestState`. The first signs, all verify (rotate by prepending). Every replica must
   * share them; required in production. Unset (development only) ⇒ keys derived from
   * SECRETS_KEY, and with neither set a random per-process key (one replica only; warned).
   */
  GATEWAY_STATE_KEYS: z
    .string()
    .refine(
      (s) => s.split(',').every((k) => Buffer.from(k.trim(), 'base64').length >= 32),
      'each key must be at least 32 bytes, base64-encoded',
    )
    .optional(),
  /** This replica's id on the server→client relay channel (default: random per process). */
  GATEWAY_REPLICA_ID: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/)
    .optional(),
  /** Tasks extension: a task-supporting call still running after this long becomes a task (ms). */
  TASKS_AFTER_MS: z.coerce.number().int().min(0).max(60_000).default(300),
  /** How long a task stays readable after creation (its ttlMs); also bounds its run time. */
  TASKS_TTL_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(600_000),
  /** Longest a task's work runs before it fails (capped by TASKS_TTL_MS). */
  TASKS_MAX_RUN_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(300_000),
  /** Per tenant: running tasks (past it, calls are answered on their request) and tasks kept until their TTL. */
  TASKS_MAX_LIVE: z.coerce.number().int().min(0).max(10_000).default(32),
  TASKS_MAX_RETAINED: z.coerce.number().int().min(1).max(100_000).default(1_000),
  /**
   * Byte budgets of what a tenant (or its upstreams) makes the gateway store in Redis; see
   * docs/operations.md "Redis budgets and sizing". Resumable SSE streams: per stream (oldest
   * events trimmed past it; a bigger single event is not stored) and per tenant (its least
   * recently written streams dropped past it).
   */
  SSE_STREAM_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(4_096)
    .max(2 ** 30)
    .default(2 * 1024 * 1024),
  SSE_TENANT_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(4_096)
    .max(2 ** 40)
    .default(16 * 1024 * 1024),
  /** Notifications (progress, log) relayed to the client per call; past it they are dropped, with one warning. */
  NOTIFY_MAX_BYTES_PER_CALL: z.coerce
    .number()
    .int()
    .min(1_024)
    .max(2 ** 30)
    .default(4 * 1024 * 1024),
  /** Tasks: one task's stored record (result, inputRequests, error, answers), and all of one tenant's tasks. */
  TASKS_MAX_TASK_BYTES: z.coerce
    .number()
    .int()
    .min(4_096)
    .max(2 ** 30)
    .default(1024 * 1024),
  TASKS_TENANT_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(65_536)
    .max(2 ** 40)
    .default(64 * 1024 * 1024),
  /** Usage stream: bytes of undrained entries kept (oldest trimmed past it), and captured call-log bytes one tenant may put in one batch. */
  USAGE_STREAM_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(2 ** 20)
    .max(2 ** 40)
    .default(256 * 1024 * 1024),
  USAGE_TENANT_CAPTURE_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .max(2 ** 30)
    .default(64 * 1024),
  /**
   * Redis for the gateway's ephemeral state (resumable SSE streams, tasks): default REDIS_URL.
   * A separate instance may run with an evicting policy; the shared one must not.
   */
  EPHEMERAL_REDIS_URL: redisUrlSchema().optional(),
  /** pino level. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type GatewayConfig = Omit<z.infer<typeof schema>, 'SWITCHBOARD_ENV'> & {
  publicUrl: string;
  /** The mode in force: SWITCHBOARD_ENV, or the default for GATEWAY_HOST (`deploymentMode`). */
  SWITCHBOARD_ENV: SwitchboardEnv;
};

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Parses the environment; throws ConfigError listing every invalid key. */
export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n');
    throw new ConfigError(`Invalid gateway configuration:\n${problems}`);
  }
  const c = parsed.data;
  const registrySource = c.CATALOG_SOURCES
    ? c.CATALOG_SOURCES.includes('registry')
    : c.REGISTRY_URL !== undefined || c.REDIS_URL !== undefined;
  const mode = deploymentMode(c.SWITCHBOARD_ENV, { variable: 'GATEWAY_HOST', host: c.GATEWAY_HOST });
  const refusal = productionSecretsRefusal('gateway', mode, {
    ...(registrySource
      ? {
          SECRETS_KEY: {
            kind: 'keys' as const,
            keys: c.SECRETS_KEY ? parseSecretsKeys(c.SECRETS_KEY) : undefined,
            fallback: 'the public development key',
          },
          INTERNAL_TOKEN: { kind: 'token' as const, value: c.INTERNAL_TOKEN },
        }
      : {}),
    ...(c.AUTH_INTERNAL_TOKEN !== undefined ? { AUTH_INTERNAL_TOKEN: { kind: 'token' as const, value: c.AUTH_INTERNAL_TOKEN } } : {}),
    // Sealed sessions and request ids must verify on every replica and after a restart, under keys of their own.
    GATEWAY_STATE_KEYS: {
      kind: 'keys' as const,
      keys: c.GATEWAY_STATE_KEYS?.split(',').map((k) => Buffer.from(k.trim(), 'base64')),
      fallback: 'keys derived from SECRETS_KEY, or a random key per process',
    },
  });
  if (refusal) throw new ConfigError(refusal);
  const publicUrl = (c.GATEWAY_PUBLIC_URL ?? `http://${c.GATEWAY_HOST}:${c.GATEWAY_PORT}`).replace(/\/+$/, '');
  return { ...c, SWITCHBOARD_ENV: mode.env, publicUrl };
}

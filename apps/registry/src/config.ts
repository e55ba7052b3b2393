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
import { CRASH_STEPS } from './publishing/crash-steps';

/** The dev-only secrets key (32 zero-ish bytes, base64). Never use it outside a laptop. */
export const DEV_SECRETS_KEY = Buffer.from('switchboard-dev-secrets-key-0001').toString('base64');
const DEV_INTERNAL_TOKEN = 'dev-internal-token';
const DEV_OPERATOR_KEY = 'dev-operator-key';

const csv = z
  .string()
  .default('')
  .transform((s) =>
    s
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
  );

/**
 * The registry's configuration, read once at boot from the environment. Each key is
 * documented beside its schema; a bad value lists every problem and stops the process;
 * unsafe development defaults print a loud warning.
 */
const schema = z.object({
  /**
   * Longest a booting registry waits for the migration lock (auth's migrations and other
   * replicas take the same one), in ms; then it exits naming the lock.
   */
  MIGRATION_LOCK_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(120_000),
  /** TCP port of the admin API. */
  REGISTRY_PORT: z.coerce.number().int().min(0).max(65535).default(3100),
  /** Interface to bind; loopback by default. */
  REGISTRY_HOST: z.string().min(1).default('127.0.0.1'),
  /** Postgres URL. Unset: `startRegistry` starts an embedded Postgres under `.data/registry-pg`. */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  /** Redis for BullMQ discovery jobs and published snapshots. */
  REDIS_URL: redisUrlSchema().default('redis://127.0.0.1:6379'),
  /** Prepended to every Redis key and channel of the catalog contract (tests isolate with it); default none. */
  REDIS_NAMESPACE: z
    .string()
    .regex(/^[A-Za-z0-9:_-]*$/)
    .default(''),
  /** BullMQ key prefix. */
  REGISTRY_QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9:_-]+$/)
    .default('sb-bull'),
  /**
   * AES-256-GCM keys (32 bytes each, base64 or hex) for secrets at rest and credentials handed to
   * gateways (shared with the gateway): comma-separated, newest first. The first seals; all open.
   * Rotate by prepending a new key, running `node apps/registry/dist/reseal.js`, then dropping the old one.
   */
  SECRETS_KEY: z.string().refine(isSecretsKeys, SECRETS_KEYS_FORMAT).optional(),
  /**
   * `production` refuses to start on development, placeholder or short secrets (naming each
   * variable); `development` allows them (warnings only). Unset: development on a loopback
   * REGISTRY_HOST, production on any other address.
   */
  SWITCHBOARD_ENV: z.preprocess((v) => (v === '' ? undefined : v), z.enum(SWITCHBOARD_ENVS).optional()),
  /** Public base URL of the gateway, used for tenants' MCP URLs and the `claude mcp add` line. */
  GATEWAY_PUBLIC_URL: z.url().default('http://127.0.0.1:3000'),
  /** When set, tenants' MCP URLs are host-based: `https://{tenant}.{domain}/mcp`. */
  GATEWAY_DOMAIN: z
    .string()
    .regex(/^[a-z0-9.-]+$/i, 'must be a DNS name')
    .optional(),
  /** Hosts an operator trusts for plain http and private addresses (SSRF allow-list), e.g. `127.0.0.1,localhost` in dev. */
  REGISTRY_ALLOW_HTTP_HOSTS: csv,
  /** Bearer token gateways present on `/internal/*`. */
  INTERNAL_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /** Operator bootstrap key: creates tenants and their first API key (`POST /v1/tenants`). */
  REGISTRY_OPERATOR_KEY: z.string().min(16, 'must be at least 16 characters').optional(),
  /** Run the BullMQ discovery worker in this process. */
  REGISTRY_WORKER: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  /** Interval of the repeatable refresh (rediscovery of every server), in ms; 0 disables it. */
  DISCOVERY_REFRESH_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(15 * 60_000),
  /** Timeout of one discovery connection / list call, in ms. */
  DISCOVERY_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(15_000),
  /** Attempts per discovery job (exponential backoff from 1 s). */
  DISCOVERY_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(3),
  /** How long a renamed or removed tool keeps answering under its old name, in seconds. */
  TOOL_GRACE_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .default(24 * 3600),
  /** Seconds clients are told to wait (`Retry-After`) when Postgres is unavailable. */
  /** Drain the gateways' usage stream (`<REDIS_NAMESPACE>sb:usage`) into usage rollups and the call log (replicas share it through a consumer group). */
  USAGE_DRAIN: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  /** Days call records are kept when the tenant's `callLog.retentionDays` is unset, and days usage rollups are kept. */
  CALL_LOG_RETENTION_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  USAGE_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(400),
  /** Period of the audit exporter's poll for tenants with entries to export, in ms; 0 runs no exporter in this process. */
  AUDIT_EXPORT_INTERVAL_MS: z.coerce.number().int().min(0).max(3_600_000).default(10_000),
  /** Audit entries read per batch (one object per day in the batch). */
  AUDIT_EXPORT_BATCH_SIZE: z.coerce.number().int().min(1).max(10_000).default(1_000),
  /** Timeout of one object upload, in ms. */
  AUDIT_EXPORT_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(15_000),
  RETRY_AFTER_SECONDS: z.coerce.number().int().min(1).max(3600).default(5),
  /** Seed the demo tenant (`startRegistry` from `npm start`). */
  REGISTRY_SEED_DEMO: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  /** With REGISTRY_SEED_DEMO: the development tenants seed whose `seed: registry` tenants (e.g. `secure`) are created through the admin API. */
  REGISTRY_SEED_FILE: z.string().min(1).default('config/tenants.yaml'),
  /** Port and interface of the demo upstream the seed starts beside the registry (0: any free port). */
  REGISTRY_DEMO_UPSTREAM_PORT: z.coerce.number().int().min(0).max(65535).default(3199),
  REGISTRY_DEMO_UPSTREAM_HOST: z.string().min(1).default('127.0.0.1'),
  /**
   * The demo upstream's URL as the registry's discovery and the gateways reach it, registered
   * for the seeded tenant (compose: `http://registry:3199/mcp`; its host must be in
   * REGISTRY_ALLOW_HTTP_HOSTS and the gateway's UPSTREAM_ALLOW_HTTP_HOSTS). Default: the address bound.
   */
  REGISTRY_DEMO_UPSTREAM_URL: z.url().optional(),
  /** Chain-reader MCP URL registered as the demo tenant's second upstream when seeding. */
  CHAIN_READER_URL: z.url().optional(),
  /**
   * The platform OAuth issuer the tenant console signs in with (BFF), e.g. `http://127.0.0.1:3200/platform`.
   * Unset: no OAuth sign-in (`GET /console/auth.json` says `oauth: false`); API keys still work.
   */
  CONSOLE_ISSUER: z.url().optional(),
  /**
   * Where the registry itself reaches the platform issuer when its public URL does not resolve
   * from inside the deployment (compose: `http://auth:3200`). Only the origin is used: metadata,
   * token and JWKS requests go to this origin; browsers are still sent to the public issuer.
   */
  CONSOLE_ISSUER_INTERNAL_URL: z.url().optional(),
  /**
   * The auth service's internal base URL (its vault): the registry links the tenant admin's
   * upstream account for `oauth_user` servers and fetches that token to discover them
   * (Bearer INTERNAL_TOKEN). Unset ⇒ `oauth_user` servers cannot be linked or discovered.
   */
  AUTH_INTERNAL_URL: z.url().optional(),
  /**
   * The registry's public base URL: the console's redirect URI is `${REGISTRY_PUBLIC_URL}/console/callback`
   * and platform tokens' audience `${REGISTRY_PUBLIC_URL}/v1`. Default `http://${REGISTRY_HOST}:${REGISTRY_PORT}`
   * (with port 0, the address actually bound). An https URL makes the session cookie `Secure`.
   */
  REGISTRY_PUBLIC_URL: z.url().optional(),
  /**
   * The auth service's public base URL (path-based tenant issuers are `${AUTH_PUBLIC_URL}/t/<tenant>`;
   * with GATEWAY_DOMAIN they are `https://<tenant>.<domain>`): where the console's "test sign-in"
   * of a tenant's IdP starts. Default: CONSOLE_ISSUER without its `/platform` path. Unset and no
   * CONSOLE_ISSUER: the test sign-in answers 409 naming this variable.
   */
  AUTH_PUBLIC_URL: z.url().optional(),
  /** The console's client id at the platform issuer (public client, PKCE). */
  CONSOLE_CLIENT_ID: z.string().min(1).max(200).default('switchboard-console'),
  /**
   * Period of the Redis verification (each published tenant's key compared with Postgres by
   * version; missing or stale keys rewritten, schedulers re-declared, pending discoveries and
   * publications finished), in ms; 0 turns it off (Redis reconnects still re-push everything).
   */
  REGISTRY_REDIS_VERIFY_MS: z.coerce.number().int().min(0).default(30_000),
  /**
   * Tenants one verification checks: up to this many that changed since the previous one, plus
   * the next this many of a rolling window over all published tenants. Every tenant is verified
   * at least once every ceil(published / batch) × REGISTRY_REDIS_VERIFY_MS (100k tenants with
   * the defaults: 50 periods, 25 minutes).
   */
  REGISTRY_REDIS_VERIFY_BATCH: z.coerce.number().int().min(10).max(50_000).default(2_000),
  /**
   * TEST ONLY (chaos tests): kill the process with SIGKILL at this step of every publish
   * (`before-publish`, `after-rows`, `after-snapshot`, `after-commit`, `after-push`). Never set it in production.
   */
  REGISTRY_CRASH_AT: z.enum(CRASH_STEPS).optional(),
  /** On SIGTERM: time between readiness going 503 and the listener closing, in ms (0 in k8s: preStop waits). */
  SHUTDOWN_DRAIN_DELAY_MS: z.coerce.number().int().min(0).max(120_000).default(0),
  /** On SIGTERM: bound for in-flight requests (admin API, publishes) to finish, in ms. */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(20_000),
  /**
   * The MCP Registry that `POST /v1/servers/import` reads `server.json` documents from (its
   * `/v0.1/servers/{name}/versions/{version}`), through the SSRF guard like every tenant-named URL.
   */
  MCP_REGISTRY_URL: z.url().default('https://registry.modelcontextprotocol.io'),
  /** Bound of one registry fetch (`POST /v1/servers/import`), in ms. */
  MCP_REGISTRY_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /**
   * Namespace of the names the per-tenant registry endpoint (`/t/<tenant>/v0.1/servers`) serves
   * (`<namespace>/<tenant>`, reverse-DNS). Default: the gateway's host reversed (GATEWAY_DOMAIN, else GATEWAY_PUBLIC_URL's host).
   */
  MCP_REGISTRY_NAMESPACE: z
    .string()
    .regex(/^[a-zA-Z0-9.-]+$/, 'must be a reverse-DNS name')
    .optional(),
  /** Attempts per webhook delivery (exponential backoff from WEBHOOK_BACKOFF_MS). */
  WEBHOOK_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(8),
  /** First retry delay of a webhook delivery, in ms (doubles per attempt). */
  WEBHOOK_BACKOFF_MS: z.coerce.number().int().min(10).max(3_600_000).default(10_000),
  /** Bound of one delivery attempt, in ms. */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** How often the outbox of recorded events is moved onto the delivery queue, in ms. */
  WEBHOOK_DISPATCH_MS: z.coerce.number().int().min(20).max(60_000).default(1_000),
  /** Finished deliveries kept per tenant (the console's delivery log). */
  WEBHOOK_LOG_MAX: z.coerce.number().int().min(10).max(100_000).default(1_000),
  /** After a secret rotation, how long the previous secret keeps signing beside the new one, in seconds. */
  WEBHOOK_ROTATION_GRACE_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(7 * 86_400)
    .default(86_400),
  /** pino level. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

type Parsed = z.infer<typeof schema>;

/** The validated configuration with dev defaults applied. */
export type RegistryConfig = Omit<
  Parsed,
  'SECRETS_KEY' | 'INTERNAL_TOKEN' | 'REGISTRY_OPERATOR_KEY' | 'REGISTRY_PUBLIC_URL' | 'SWITCHBOARD_ENV'
> & {
  /** The mode in force: SWITCHBOARD_ENV, or the default for REGISTRY_HOST (`deploymentMode`). */
  SWITCHBOARD_ENV: SwitchboardEnv;
  /** Resolved (default applied, no trailing slash); `startRegistry` fills in the bound port when REGISTRY_PORT is 0. */
  REGISTRY_PUBLIC_URL: string;
  /** True when REGISTRY_PUBLIC_URL came from the environment (never rewritten after listen). */
  publicUrlConfigured: boolean;
  /** SECRETS_KEY's keys, newest first. */
  secretsKey: Buffer[];
  INTERNAL_TOKEN: string;
  REGISTRY_OPERATOR_KEY: string;
  /** Unsafe defaults in use (printed loudly at boot). */
  warnings: string[];
};

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Parses the environment; throws ConfigError listing every invalid key. */
export function loadRegistryConfig(env: NodeJS.ProcessEnv = process.env): RegistryConfig {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n');
    throw new ConfigError(`Invalid registry configuration:\n${problems}`);
  }
  const { SECRETS_KEY, INTERNAL_TOKEN, REGISTRY_OPERATOR_KEY, REGISTRY_PUBLIC_URL, CONSOLE_ISSUER, ...rest } = parsed.data;
  const mode = deploymentMode(rest.SWITCHBOARD_ENV, { variable: 'REGISTRY_HOST', host: rest.REGISTRY_HOST });
  const refusal = productionSecretsRefusal('registry', mode, {
    SECRETS_KEY: { kind: 'keys', keys: SECRETS_KEY ? parseSecretsKeys(SECRETS_KEY) : undefined, fallback: 'the public development key' },
    INTERNAL_TOKEN: { kind: 'token', value: INTERNAL_TOKEN, fallback: `the development token "${DEV_INTERNAL_TOKEN}"` },
    REGISTRY_OPERATOR_KEY: { kind: 'token', value: REGISTRY_OPERATOR_KEY, fallback: `the development operator key "${DEV_OPERATOR_KEY}"` },
  });
  if (refusal) throw new ConfigError(refusal);
  const warnings: string[] = [];
  if (!SECRETS_KEY) warnings.push('SECRETS_KEY is not set: using the PUBLIC development key; secrets at rest are NOT protected');
  if (!INTERNAL_TOKEN) warnings.push('INTERNAL_TOKEN is not set: using the development token for /internal/*');
  if (!REGISTRY_OPERATOR_KEY) warnings.push(`REGISTRY_OPERATOR_KEY is not set: the operator key is "${DEV_OPERATOR_KEY}"`);
  return {
    ...rest,
    SWITCHBOARD_ENV: mode.env,
    // Issuer identifiers are compared exactly with `iss`: one canonical form, without a trailing slash.
    ...(CONSOLE_ISSUER ? { CONSOLE_ISSUER: CONSOLE_ISSUER.replace(/\/+$/, '') } : {}),
    REGISTRY_PUBLIC_URL: (REGISTRY_PUBLIC_URL ?? `http://${rest.REGISTRY_HOST}:${rest.REGISTRY_PORT}`).replace(/\/+$/, ''),
    publicUrlConfigured: REGISTRY_PUBLIC_URL !== undefined,
    secretsKey: parseSecretsKeys(SECRETS_KEY ?? DEV_SECRETS_KEY),
    INTERNAL_TOKEN: INTERNAL_TOKEN ?? DEV_INTERNAL_TOKEN,
    REGISTRY_OPERATOR_KEY: REGISTRY_OPERATOR_KEY ?? DEV_OPERATOR_KEY,
    warnings,
  };
}

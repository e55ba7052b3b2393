import { trustProxySchema } from '@switchboard/limits';
import { redisUrlSchema } from '@switchboard/redis-connection';
import {
  deploymentMode,
  type DeploymentMode,
  parseSecretsKeys,
  productionSecretsRefusal,
  SWITCHBOARD_ENVS,
  type SwitchboardEnv,
} from '@switchboard/secret-box';
import { z } from 'zod';

/** Development-only key: 32 zero-ish bytes spelled out so nobody mistakes it for a real secret. */
const DEV_SECRETS_KEY = Buffer.from('switchboard-dev-secrets-key-0000').toString('base64');
/** The registry's development key (compose and `npm start` hand it to every service): just as public. */
const REGISTRY_DEV_SECRETS_KEY = Buffer.from('switchboard-dev-secrets-key-0001');
/** The registry's public development key as its config spells it: opens secrets sealed in tenant documents on local runs. */
const DEV_CATALOG_SECRETS_KEY = REGISTRY_DEV_SECRETS_KEY.toString('base64');

/** An unset variable and an empty one mean the same (compose files pass empty values through). */
const optionalText = z.preprocess((v) => (v === '' ? undefined : v), z.string().optional());
const httpUrl = z.url({ protocol: /^https?$/ });

function redirectList(value: string): boolean {
  return splitList(value).every((u) => {
    const url = URL.parse(u);
    return url !== null && (url.protocol === 'https:' || url.protocol === 'http:') && url.hash === '' && !u.includes('#');
  });
}

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean);
}

const schema = z.object({
  /** TCP port of the authorization server. */
  AUTH_PORT: z.coerce.number().int().min(0).max(65535).default(3200),
  /** Interface to bind; loopback by default. */
  AUTH_HOST: z.string().min(1).default('127.0.0.1'),
  /** Public base URL of this service; path-based tenant issuers are `${AUTH_PUBLIC_URL}/t/<tenant>`. */
  AUTH_PUBLIC_URL: z.url().optional(),
  /** Postgres connection string; state lives in schema AUTH_DB_SCHEMA. */
  DATABASE_URL: z.string().min(1, 'is required (postgres://…)'),
  /** Schema owned by this service (tests use a unique one per file). */
  AUTH_DB_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lower-case SQL identifier')
    .default('auth'),
  /**
   * Longest a booting auth waits for the migration lock (the registry's migrations and other
   * replicas take the same one), in ms; then it exits naming the lock.
   */
  MIGRATION_LOCK_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(120_000),
  /**
   * AES-256-GCM key (32 bytes, base64 or hex) encrypting signing keys, vaulted tokens and
   * client secrets at rest. The development default is public: never use it in production.
   */
  SECRETS_KEY: z.string().min(1).default(DEV_SECRETS_KEY),
  /**
   * `production` refuses to start on development, placeholder or short secrets (naming each
   * variable); `development` allows them (warnings only) and the development-only sign-in.
   * Unset: development on a loopback AUTH_HOST, production on any other address.
   */
  SWITCHBOARD_ENV: z.preprocess((v) => (v === '' ? undefined : v), z.enum(SWITCHBOARD_ENVS).optional()),
  /** The gateway's public base URL; canonical MCP URLs of path-based tenants are `${GATEWAY_PUBLIC_URL}/t/<tenant>/mcp`. */
  GATEWAY_PUBLIC_URL: z.url().default('http://127.0.0.1:3000'),
  /** Host-based layout: tenant `acme` lives at `https://acme.<domain>` (MCP at `/mcp`, issuer at the origin). */
  GATEWAY_DOMAIN: z
    .string()
    .regex(/^[a-z0-9.-]+$/i, 'must be a DNS name')
    .optional(),
  /** Bearer secret the gateway presents on /internal/* (token exchange, key rotation). Unset ⇒ internal endpoints answer 404. */
  INTERNAL_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /**
   * The development tenants seed (same file as the gateway's, read by libs/tenant-config): its
   * file-served tenants with an `auth:` block get an authorization server. Absent file ⇒ none.
   */
  TENANTS_FILE: z.string().min(1).default('config/tenants.yaml'),
  /** Redis holding the registry's tenant documents (`sb:catalog:<tenant>`) and `catalog:changed`; set ⇒ registry tenants are served, hot-swapped. */
  REDIS_URL: z.preprocess((v) => (v === '' ? undefined : v), redisUrlSchema().optional()),
  /** Prefix of those keys and of the channel (tests isolate with it). */
  REDIS_NAMESPACE: z
    .string()
    .regex(/^[A-Za-z0-9:_-]{0,64}$/)
    .default(''),
  /** Re-sync of tenant documents (catches missed messages; lazy: held tenants only), in ms; 0 = only on (re)connect. */
  TENANT_RESYNC_MS: z.coerce.number().int().min(0).default(30_000),
  /**
   * `lazy` (default) reads a registry tenant on its first request and holds at most
   * AUTH_TENANT_CACHE_MAX, so boot and memory do not grow with the tenant count; `eager` reads every
   * registry tenant at boot and on each re-sync (docs/operations.md "Tenant working set").
   */
  AUTH_TENANT_LOADING: z.enum(['eager', 'lazy']).default('lazy'),
  /** Registry tenants held at once in lazy mode (least recently used dropped). */
  AUTH_TENANT_CACHE_MAX: z.coerce.number().int().min(1).max(1_000_000).default(20_000),
  /** Ids no store has, remembered at most (lazy mode), and for how long (ms). */
  AUTH_TENANT_NEGATIVE_MAX: z.coerce.number().int().min(0).max(1_000_000).default(10_000),
  AUTH_TENANT_NEGATIVE_TTL_MS: z.coerce.number().int().min(0).default(30_000),
  /** Cold tenant look-ups per second (burst twice as many); past it a cold id answers 404 without one. */
  AUTH_TENANT_FETCH_PER_SEC: z.coerce.number().int().min(1).default(200),
  /**
   * The registry's SECRETS_KEY (32 bytes, base64 or hex): opens the IdP and connector client
   * secrets the registry seals into tenant documents. Default: the registry's public dev key.
   */
  CATALOG_SECRETS_KEY: z.string().min(1).default(DEV_CATALOG_SECRETS_KEY),
  /**
   * Hosts the service may reach over plain http and inside private/loopback ranges when it calls
   * a tenant's IdP or connector AS (net-guard allow-list, comma-separated). Unset: loopback in
   * development, none otherwise.
   */
  AUTH_ALLOW_HTTP_HOSTS: optionalText.transform((s) =>
    s === undefined
      ? undefined
      : s
          .split(',')
          .map((h) => h.trim().toLowerCase())
          .filter(Boolean),
  ),
  /** A vaulted upstream token is refreshed when it expires within this many seconds (before it is handed out). */
  VAULT_REFRESH_SKEW_S: z.coerce.number().int().min(0).max(3600).default(30),
  /** Access-token lifetime in seconds (JWTs cannot be revoked, so keep it short). */
  ACCESS_TOKEN_TTL_S: z.coerce.number().int().min(30).max(3600).default(300),
  /** Refresh-token lifetime in seconds (each rotation issues a fresh one with this lifetime, capped by the grant). */
  REFRESH_TOKEN_TTL_S: z.coerce
    .number()
    .int()
    .min(60)
    .default(14 * 24 * 3600),
  /** Dynamic client registrations allowed per source IP and tenant per minute. */
  DCR_RATE_LIMIT_PER_MIN: z.coerce.number().int().min(1).max(10_000).default(20),
  /**
   * A dynamically registered client unused this many days expires (its authorize and token
   * requests fail as for an unknown client; the periodic sweep deletes it and its grants).
   */
  DCR_CLIENT_IDLE_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  /** Live registered clients per tenant; one more registration ⇒ 400 `invalid_client_metadata` (RFC 7591). */
  DCR_MAX_CLIENTS_PER_TENANT: z.coerce.number().int().min(1).max(1_000_000).default(1000),
  /** Tenant providers kept in memory (LRU). */
  PROVIDER_CACHE_SIZE: z.coerce.number().int().min(1).max(100_000).default(1000),
  /** How long a cached provider trusts its key set before re-reading it (another replica may have rotated). */
  PROVIDER_MAX_AGE_S: z.coerce.number().int().min(1).default(300),
  /**
   * Proxies in front of auth whose X-Forwarded-* are believed: unset/`false` none, a hop count
   * (`1` = one ingress: the rightmost X-Forwarded-For entry is the client), or proxy
   * addresses/CIDRs. The client address keys the DCR, token and sign-in limits, so `true`
   * (the leftmost, client-written entry) is refused.
   */
  TRUST_PROXY: trustProxySchema(),
  /** Redis of the shared limiter (DCR, token and sign-in limits and account locks shared by every auth replica); unset ⇒ per replica. */
  LIMITS_REDIS_URL: redisUrlSchema().optional(),
  /** Prefix of the limiter's Redis keys (tests isolate with it). */
  LIMITS_KEY_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9:_-]*$/)
    .default(''),
  /** Token-endpoint requests allowed per client IP and tenant per minute. */
  TOKEN_RATE_LIMIT_PER_MIN: z.coerce.number().int().min(1).max(100_000).default(300),
  /**
   * Platform issuer (console sign-in), enabled only when this, CONSOLE_AUDIENCE,
   * REGISTRY_INTERNAL_URL and INTERNAL_TOKEN are all set: the registry's console callback
   * URL(s), absolute http(s), comma-separated when several registry URLs serve the console.
   */
  CONSOLE_REDIRECT_URI: optionalText.pipe(
    z.string().refine(redirectList, 'must be absolute http(s) URLs without a fragment, comma-separated').optional(),
  ),
  /** The admin API URL: the only `resource` the platform issuer accepts and the `aud` of its access tokens. */
  CONSOLE_AUDIENCE: optionalText.pipe(httpUrl.optional()),
  /** Where the registry listens for internal calls (`POST /internal/console/verify-login`). */
  REGISTRY_INTERNAL_URL: optionalText.pipe(httpUrl.optional()),
  /** Console sign-in attempts per client IP per CONSOLE_LOGIN_WINDOW_S, counted before the password is checked (then 429). */
  CONSOLE_LOGIN_RATE_LIMIT_PER_MIN: z.coerce.number().int().min(1).max(10_000).default(10),
  CONSOLE_LOGIN_WINDOW_S: z.coerce.number().int().min(1).max(3600).default(60),
  /** Password verifications in flight per client IP and in total on one replica (more ⇒ 429 at once). */
  CONSOLE_LOGIN_MAX_CONCURRENT_PER_IP: z.coerce.number().int().min(1).max(1000).default(2),
  CONSOLE_LOGIN_MAX_CONCURRENT: z.coerce.number().int().min(1).max(10_000).default(16),
  /** Failed sign-ins of one account before it is locked; the lock starts at BASE_S and doubles per further failure up to MAX_S. */
  CONSOLE_LOCKOUT_THRESHOLD: z.coerce.number().int().min(1).max(1000).default(5),
  CONSOLE_LOCKOUT_BASE_S: z.coerce.number().int().min(1).max(86_400).default(30),
  CONSOLE_LOCKOUT_MAX_S: z.coerce.number().int().min(1).max(86_400).default(900),
  /** pino level. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

/** The platform issuer's settings; present only when every variable it needs is set. */
export interface PlatformIssuerSettings {
  /** Redirect URIs of the `switchboard-console` client (CONSOLE_REDIRECT_URI). */
  redirectUris: string[];
  /** CONSOLE_AUDIENCE: resource and `aud`. */
  audience: string;
  /** REGISTRY_INTERNAL_URL without a trailing slash. */
  registryUrl: string;
  /** INTERNAL_TOKEN, presented to the registry. */
  internalToken: string;
}

export type AuthConfig = Omit<z.infer<typeof schema>, 'SWITCHBOARD_ENV'> & {
  /** The mode in force: SWITCHBOARD_ENV, or the default for AUTH_HOST (`deploymentMode`); development-only features check this. */
  SWITCHBOARD_ENV: SwitchboardEnv;
  publicUrl: string;
  gatewayPublicUrl: string;
  /** SECRETS_KEY's keys, newest first (the first seals, all open). */
  secretsKey: Buffer[];
  /** CATALOG_SECRETS_KEY's keys (the registry's SECRETS_KEY): open the secrets sealed into tenant documents. */
  catalogSecretsKey: Buffer[];
  devSecretsKey: boolean;
  /** Undefined ⇒ the platform issuer is off and every /platform/* path answers 404. */
  platform?: PlatformIssuerSettings;
};

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Parses the environment once at boot; throws ConfigError listing every invalid key. */
export function loadAuthConfig(env: NodeJS.ProcessEnv = process.env): AuthConfig {
  const parsed = schema.safeParse(env);
  const problems = parsed.success ? [] : parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
  let secretsKey: Buffer[] | undefined;
  let catalogSecretsKey: Buffer[] | undefined;
  if (parsed.success) {
    try {
      secretsKey = parseSecretsKeys(parsed.data.SECRETS_KEY);
    } catch (err) {
      problems.push(`  SECRETS_KEY: ${(err as Error).message}`);
    }
    try {
      catalogSecretsKey = parseSecretsKeys(parsed.data.CATALOG_SECRETS_KEY);
    } catch (err) {
      problems.push(`  CATALOG_SECRETS_KEY: ${(err as Error).message}`);
    }
    // The signing keys, vaulted tokens and client secrets are sealed under SECRETS_KEY: in production it must be real.
    const refusal = secretsKey
      ? productionSecretsRefusal('auth', authMode(parsed.data), {
          SECRETS_KEY: {
            kind: 'keys',
            keys: env.SECRETS_KEY === undefined ? undefined : secretsKey,
            fallback: 'the public development key',
          },
          CATALOG_SECRETS_KEY: {
            kind: 'keys',
            keys: env.CATALOG_SECRETS_KEY === undefined ? undefined : catalogSecretsKey,
            fallback: "the registry's public development key",
          },
          ...(parsed.data.INTERNAL_TOKEN !== undefined
            ? { INTERNAL_TOKEN: { kind: 'token' as const, value: parsed.data.INTERNAL_TOKEN } }
            : {}),
        })
      : undefined;
    if (refusal) throw new ConfigError(problems.length ? `${refusal}\n${problems.join('\n')}` : refusal);
  }
  if (!parsed.success || !secretsKey || !catalogSecretsKey || problems.length) {
    throw new ConfigError(`Invalid auth configuration:\n${problems.join('\n')}`);
  }
  const c = parsed.data;
  const devKey = Buffer.from(DEV_SECRETS_KEY, 'base64');
  const devSecretsKey = secretsKey.some((k) => k.equals(devKey) || k.equals(REGISTRY_DEV_SECRETS_KEY));
  if (devSecretsKey && c.LOG_LEVEL !== 'silent') {
    console.warn(
      'WARNING: auth is using the built-in development SECRETS_KEY; signing keys and vaulted tokens are NOT protected. Set SECRETS_KEY in production.',
    );
  }
  const publicUrl = (c.AUTH_PUBLIC_URL ?? `http://${c.AUTH_HOST}:${c.AUTH_PORT}`).replace(/\/+$/, '');
  const platform = platformSettings(c);
  return {
    ...c,
    SWITCHBOARD_ENV: authMode(c).env,
    publicUrl,
    gatewayPublicUrl: c.GATEWAY_PUBLIC_URL.replace(/\/+$/, ''),
    secretsKey,
    catalogSecretsKey,
    devSecretsKey,
    ...(platform ? { platform } : {}),
  };
}

/** The one rule (`deploymentMode`) applied to auth's bind address. */
function authMode(c: z.infer<typeof schema>): DeploymentMode {
  return deploymentMode(c.SWITCHBOARD_ENV, { variable: 'AUTH_HOST', host: c.AUTH_HOST });
}

function platformSettings(c: z.infer<typeof schema>): PlatformIssuerSettings | undefined {
  const { CONSOLE_REDIRECT_URI: redirects, CONSOLE_AUDIENCE: audience, REGISTRY_INTERNAL_URL: registry, INTERNAL_TOKEN: token } = c;
  if (!redirects || !audience || !registry || !token) {
    // Half a configuration is most likely a deployment mistake: say what is missing.
    if ((redirects || audience || registry) && c.LOG_LEVEL !== 'silent') {
      const missing = Object.entries({
        CONSOLE_REDIRECT_URI: redirects,
        CONSOLE_AUDIENCE: audience,
        REGISTRY_INTERNAL_URL: registry,
        INTERNAL_TOKEN: token,
      }).filter(([, v]) => !v);
      console.warn(`WARNING: the platform issuer (console sign-in) is off; missing ${missing.map(([k]) => k).join(', ')}.`);
    }
    return undefined;
  }
  return { redirectUris: splitList(redirects), audience, registryUrl: registry.replace(/\/+$/, ''), internalToken: token };
}

import { parseTrustProxy } from '@switchboard/limits';
import { z } from 'zod';

/** Development-only key: 32 zero-ish bytes spelled out so nobody mistakes it for a real secret. */
const DEV_SECRETS_KEY = Buffer.from('switchboard-dev-secrets-key-0000').toString('base64');

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
  return value.split(',').map((u) => u.trim()).filter(Boolean);
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
  AUTH_DB_SCHEMA: z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lower-case SQL identifier').default('auth'),
  /**
   * AES-256-GCM key (32 bytes, base64 or hex) encrypting signing keys, vaulted tokens and
   * client secrets at rest. The development default is public: never use it in production.
   */
  SECRETS_KEY: z.string().min(1).default(DEV_SECRETS_KEY),
  /** The gateway's public base URL; canonical MCP URLs of path-based tenants are `${GATEWAY_PUBLIC_URL}/t/<tenant>/mcp`. */
  GATEWAY_PUBLIC_URL: z.url().default('http://127.0.0.1:3000'),
  /** Host-based layout: tenant `acme` lives at `https://acme.<domain>` (MCP at `/mcp`, issuer at the origin). */
  GATEWAY_DOMAIN: z.string().regex(/^[a-z0-9.-]+$/i, 'must be a DNS name').optional(),
  /** Bearer secret the gateway presents on /internal/* (token exchange, key rotation). Unset ⇒ internal endpoints answer 404. */
  INTERNAL_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /** The tenants file (same file as the gateway's); each tenant's optional `auth:` block configures its authorization server. */
  TENANTS_FILE: z.string().min(1).default('config/tenants.yaml'),
  /** Access-token lifetime in seconds (JWTs cannot be revoked, so keep it short). */
  ACCESS_TOKEN_TTL_S: z.coerce.number().int().min(30).max(3600).default(300),
  /** Refresh-token lifetime in seconds (each rotation issues a fresh one with this lifetime, capped by the grant). */
  REFRESH_TOKEN_TTL_S: z.coerce.number().int().min(60).default(14 * 24 * 3600),
  /** Dynamic client registrations allowed per source IP and tenant per minute. */
  DCR_RATE_LIMIT_PER_MIN: z.coerce.number().int().min(1).max(10_000).default(20),
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
  TRUST_PROXY: z
    .string()
    .optional()
    .superRefine((v, ctx) => {
      try {
        parseTrustProxy(v);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
      }
    }),
  /** Redis of the shared limiter (DCR, token and sign-in limits and account locks shared by every auth replica); unset ⇒ per replica. */
  LIMITS_REDIS_URL: z.string().regex(/^rediss?:\/\//, 'must be a redis:// URL').optional(),
  /** Prefix of the limiter's Redis keys (tests isolate with it). */
  LIMITS_KEY_PREFIX: z.string().regex(/^[A-Za-z0-9:_-]*$/).default(''),
  /** Token-endpoint requests allowed per client IP and tenant per minute. */
  TOKEN_RATE_LIMIT_PER_MIN: z.coerce.number().int().min(1).max(100_000).default(300),
  /**
   * Platform issuer (console sign-in), enabled only when this, CONSOLE_AUDIENCE,
   * REGISTRY_INTERNAL_URL and INTERNAL_TOKEN are all set: the registry's console callback
   * URL(s), absolute http(s), comma-separated when several registry URLs serve the console.
   */
  CONSOLE_REDIRECT_URI: optionalText.pipe(z.string().refine(redirectList, 'must be absolute http(s) URLs without a fragment, comma-separated').optional()),
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

export type AuthConfig = z.infer<typeof schema> & {
  publicUrl: string;
  gatewayPublicUrl: string;
  secretsKey: Buffer;
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
  let secretsKey: Buffer | undefined;
  if (parsed.success) {
    secretsKey = decodeKey(parsed.data.SECRETS_KEY);
    if (!secretsKey) problems.push('  SECRETS_KEY: must be 32 bytes, base64 or hex encoded');
  }
  if (!parsed.success || !secretsKey || problems.length) {
    throw new ConfigError(`Invalid auth configuration:\n${problems.join('\n')}`);
  }
  const c = parsed.data;
  const devSecretsKey = c.SECRETS_KEY === DEV_SECRETS_KEY;
  if (devSecretsKey && c.LOG_LEVEL !== 'silent') {
    console.warn('WARNING: auth is using the built-in development SECRETS_KEY; signing keys and vaulted tokens are NOT protected. Set SECRETS_KEY in production.');
  }
  const publicUrl = (c.AUTH_PUBLIC_URL ?? `http://${c.AUTH_HOST}:${c.AUTH_PORT}`).replace(/\/+$/, '');
  const platform = platformSettings(c);
  return { ...c, publicUrl, gatewayPublicUrl: c.GATEWAY_PUBLIC_URL.replace(/\/+$/, ''), secretsKey, devSecretsKey, ...(platform ? { platform } : {}) };
}

function platformSettings(c: z.infer<typeof schema>): PlatformIssuerSettings | undefined {
  const { CONSOLE_REDIRECT_URI: redirects, CONSOLE_AUDIENCE: audience, REGISTRY_INTERNAL_URL: registry, INTERNAL_TOKEN: token } = c;
  if (!redirects || !audience || !registry || !token) {
    // Half a configuration is most likely a deployment mistake: say what is missing.
    if ((redirects || audience || registry) && c.LOG_LEVEL !== 'silent') {
      const missing = Object.entries({ CONSOLE_REDIRECT_URI: redirects, CONSOLE_AUDIENCE: audience, REGISTRY_INTERNAL_URL: registry, INTERNAL_TOKEN: token }).filter(([, v]) => !v);
      console.warn(`WARNING: the platform issuer (console sign-in) is off; missing ${missing.map(([k]) => k).join(', ')}.`);
    }
    return undefined;
  }
  return { redirectUris: splitList(redirects), audience, registryUrl: registry.replace(/\/+$/, ''), internalToken: token };
}

function decodeKey(value: string): Buffer | undefined {
  if (/^[0-9a-f]{64}$/i.test(value)) return Buffer.from(value, 'hex');
  const b = Buffer.from(value, 'base64');
  return b.length === 32 ? b : undefined;
}

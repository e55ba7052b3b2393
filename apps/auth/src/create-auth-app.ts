import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { LogController } from 'fastify';
import { Pool } from 'pg';
import type { Logger } from 'pino';
import { PROMETHEUS_CONTENT_TYPE, createLogger, startTelemetry } from '@switchboard/telemetry';
import { AuthModule } from './app.module';
import type { AuthServices } from './auth-services';
import type { HostLookup } from './clients/outbound-url';
import type { AuthConfig } from './config';
import { SecretBox } from '@switchboard/secret-box';
import { migrateAuthSchema } from './db/migrate';
import { deleteExpiredArtefacts } from './db/pg-adapter';
import { FederationStateStore } from './federation/federation-state';
import { UpstreamOidc, upstreamAllowHosts } from './federation/upstream-oidc';
import { AuthLimits } from './http/auth-limits';
import { AccountLockout } from './platform/account-lockout';
import { VerificationSlots } from './platform/verification-slots';
import { parseTrustProxy } from '@switchboard/limits';
import type { ShutdownGate } from '@switchboard/mcp-http';
import { SigningKeys } from './keys/signing-keys';
import { mountOidc } from './oidc/oidc-mount';
import { ProviderCache } from './oidc/provider-cache';
import { ConsoleAccounts } from './platform/console-accounts';
import { platformIssuer } from './platform/platform-issuer';
import { existsSync } from 'node:fs';
import { LazyTenantDocumentFeed, readTenantSeed, TenantDocumentFeed } from '@switchboard/tenant-config';
import type { PublishedCatalog } from '@switchboard/catalog';
import type { AuthTenantDocument } from './tenants/tenant-auth';
import { installTenantLoading } from './tenants/tenant-loading';
import { exportTenantMetrics } from './tenants/tenant-metrics';
import { TenantRegistry } from './tenants/tenant-registry';
import { TenantSecrets } from './tenants/tenant-secrets';
import { IdpChangePurge } from './users/idp-change-purge';
import { isCurrentIdentity } from './users/identity-sources';
import { EnterpriseJwks } from './enterprise/enterprise-jwks';
import { IdJagStore } from './enterprise/id-jag-store';
import { UserDirectory } from './users/user-directory';
import { reportVaultPurges } from './users/vault-purge-audit';
import { VaultStore } from './vault/vault-store';

export interface CreateAuthAppOptions {
  logger?: Logger;
  /** Tenant documents to serve instead of reading TENANTS_FILE (the registry feed still runs when configured). */
  tenants?: AuthTenantDocument[];
  /** CIMD fetch plumbing for tests (public-looking names that resolve to loopback servers). */
  cimd?: { lookup?: HostLookup; fetch?: (url: string, init: RequestInit) => Promise<Response> };
  /** Installed as the first request hook; main.ts attaches the graceful shutdown to it once the server exists. */
  shutdownGate?: ShutdownGate;
}

/**
 * Builds the auth service (migrations run, routes registered) without listening, so tests can
 * drive it and `main` can `listen()`. Closing the app closes its Postgres pool.
 */
export async function createAuthApp(
  config: AuthConfig,
  options: CreateAuthAppOptions = {},
): Promise<{ app: NestFastifyApplication; services: AuthServices; lazyTenants: LazyTenantDocumentFeed | undefined }> {
  const logger = options.logger ?? createLogger({ service: 'auth', level: config.LOG_LEVEL });
  const pool = await openDatabase(config, logger);
  const limits = await openLimits(config, logger);
  const trustProxy = parseTrustProxy(config.TRUST_PROXY);
  const services = composeServices(config, options, { logger, pool, limits, trustProxy: trustProxy !== false });
  const feed = tenantFeed(config, logger, services.tenants);

  const adapter = new FastifyAdapter({
    loggerInstance: logger,
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy,
    bodyLimit: 64 * 1024,
  });
  // Every response (ours and oidc-provider's, which writes to the raw socket) is served with
  // nosniff: login pages, error pages and JSON must never be sniffed into something executable.
  adapter.getInstance().addHook('onRequest', async (_req, reply) => {
    reply.raw.setHeader('x-content-type-options', 'nosniff');
  });
  // Next (before oidc-provider and Nest): while draining, readiness is answered 503 here.
  options.shutdownGate?.install(adapter.getInstance());
  // Then the tenants a request names are read if not held, before any synchronous look-up of them.
  if (feed instanceof LazyTenantDocumentFeed) installTenantLoading(adapter.getInstance(), services.tenants, feed);
  mountOidc(adapter.getInstance(), {
    tenants: services.tenants,
    providers: services.providers,
    limits,
    logger,
    platform: services.platform?.issuer,
  });
  const app = await NestFactory.create<NestFastifyApplication>(AuthModule.forRoot(services), adapter, { logger: ['error', 'warn'] });
  // No Nest signal hooks: main.ts drains first (GracefulShutdown, through the gate), then closes the app.
  mountProbes(adapter, pool);
  // After mountProbes: the meter exists once telemetry started.
  const stopMetrics = feed instanceof LazyTenantDocumentFeed ? exportTenantMetrics(feed) : undefined;
  keepHouse(adapter, services, { limits, feed, stopMetrics });

  // Not awaited: boot does not wait for the registry; unreported purges are retried at the next boot.
  reportVaultPurges(pool, config.AUTH_DB_SCHEMA, services.users, logger).catch((err: unknown) =>
    logger.warn({ err }, 'vault purge audit failed; retried at the next boot'),
  );

  await app.init();
  await adapter.getInstance().ready();
  await feed?.start((doc) => services.tenants.apply(doc));
  // Tenants served before the listener existed (the seed), and a retry loop for unreported purges.
  for (const t of services.tenants.all()) services.idpPurge.schedule(t.id);
  services.idpPurge.start();
  return { app, services, lazyTenants: feed instanceof LazyTenantDocumentFeed ? feed : undefined };
}

/** A Postgres pool on a migrated schema; the pool is closed again when the migration fails. */
async function openDatabase(config: AuthConfig, logger: Logger): Promise<Pool> {
  const pool = new Pool({ connectionString: config.DATABASE_URL, max: 20 });
  pool.on('error', (err) => logger.error({ err }, 'postgres pool error'));
  try {
    await migrateAuthSchema(pool, config.AUTH_DB_SCHEMA, config.MIGRATION_LOCK_TIMEOUT_MS);
  } catch (err) {
    await pool.end();
    throw err;
  }
  return pool;
}

async function openLimits(config: AuthConfig, logger: Logger): Promise<AuthLimits> {
  const limits = new AuthLimits({
    redisUrl: config.LIMITS_REDIS_URL,
    prefix: config.LIMITS_KEY_PREFIX,
    dcrPerMin: config.DCR_RATE_LIMIT_PER_MIN,
    tokenPerMin: config.TOKEN_RATE_LIMIT_PER_MIN,
    signInLimit: config.CONSOLE_LOGIN_RATE_LIMIT_PER_MIN,
    signInWindowS: config.CONSOLE_LOGIN_WINDOW_S,
    logger,
  });
  await limits.ready();
  return limits;
}

/** What bounds password sign-ins: concurrent verifications per IP and in all, and lockout after repeated failures. */
function signInGuards(config: AuthConfig, limits: AuthLimits): { slots: VerificationSlots; lockout: AccountLockout } {
  return {
    slots: new VerificationSlots(config.CONSOLE_LOGIN_MAX_CONCURRENT_PER_IP, config.CONSOLE_LOGIN_MAX_CONCURRENT),
    lockout: new AccountLockout({
      redis: limits.redis,
      prefix: config.LIMITS_KEY_PREFIX,
      threshold: config.CONSOLE_LOCKOUT_THRESHOLD,
      baseS: config.CONSOLE_LOCKOUT_BASE_S,
      maxS: config.CONSOLE_LOCKOUT_MAX_S,
    }),
  };
}

interface Foundations {
  logger: Logger;
  pool: Pool;
  limits: AuthLimits;
  trustProxy: boolean;
}

/** Every service of the app, wired to one another. */
function composeServices(config: AuthConfig, options: CreateAuthAppOptions, base: Foundations): AuthServices {
  const { logger, pool, limits } = base;
  const urls = { authPublicUrl: config.publicUrl, gatewayPublicUrl: config.gatewayPublicUrl, domain: config.GATEWAY_DOMAIN };
  const tenants = new TenantRegistry(urls, options.tenants ?? seedTenants(config.TENANTS_FILE));
  const box = new SecretBox(config.secretsKey);
  const keys = new SigningKeys(pool, config.AUTH_DB_SCHEMA, box);
  const platform = config.platform
    ? {
        issuer: platformIssuer(config.platform, config.publicUrl),
        settings: config.platform,
        accounts: new ConsoleAccounts(pool, config.AUTH_DB_SCHEMA, box, config.REFRESH_TOKEN_TTL_S),
        limits,
        ...signInGuards(config, limits),
      }
    : undefined;
  const directory =
    config.REGISTRY_INTERNAL_URL && config.INTERNAL_TOKEN
      ? { registryUrl: config.REGISTRY_INTERNAL_URL.replace(/\/+$/, ''), internalToken: config.INTERNAL_TOKEN }
      : undefined;
  const devLogin = config.SWITCHBOARD_ENV === 'development';
  const guards = signInGuards(config, limits);
  const users = new UserDirectory(directory, limits, guards.slots, guards.lockout);
  // Enterprise IdP keys are fetched under the same outbound policy as the IdP federation.
  const enterprise = {
    jwks: new EnterpriseJwks({ allowHosts: upstreamAllowHosts(config) }),
    store: new IdJagStore(pool, config.AUTH_DB_SCHEMA),
    logger,
  };
  const providers = new ProviderCache(
    keys,
    {
      pool,
      schema: config.AUTH_DB_SCHEMA,
      box,
      accessTokenTtl: config.ACCESS_TOKEN_TTL_S,
      refreshTokenTtl: config.REFRESH_TOKEN_TTL_S,
      dcrClients: { idleSeconds: config.DCR_CLIENT_IDLE_DAYS * 86_400, maxPerTenant: config.DCR_MAX_CLIENTS_PER_TENANT },
      secureCookies: config.publicUrl.startsWith('https:') || config.GATEWAY_DOMAIN !== undefined,
      trustProxy: base.trustProxy,
      cimd: options.cimd,
      ...(platform ? { accountClaims: (accountId: string) => platform.accounts.claims(accountId) } : {}),
      // An identity of a former IdP of the tenant is signed out at once, before the purge removes what it left.
      accountActive: async (tenant, accountId, issuedAt) =>
        isCurrentIdentity(tenant, accountId, devLogin) && users.accountActive(tenant.id, accountId, issuedAt, logger),
      enterprise,
    },
    config.PROVIDER_CACHE_SIZE,
    config.PROVIDER_MAX_AGE_S * 1000,
  );
  // A new tenant document version drops the tenant's provider at once (LRU eviction on change).
  tenants.onChange((id) => providers.evict(id));
  const vault = new VaultStore(pool, config.AUTH_DB_SCHEMA, box);
  // Every document learnt (at boot too) reconciles what is stored per subject with the tenant's identity sources.
  const idpPurge = new IdpChangePurge({ pool, schema: config.AUTH_DB_SCHEMA, box, vault, tenants, directory, devLogin, logger });
  tenants.onChange((id) => idpPurge.schedule(id));
  return {
    config,
    pool,
    box,
    tenants,
    secrets: new TenantSecrets(config.catalogSecretsKey),
    providers,
    keys,
    federation: new FederationStateStore(pool, config.AUTH_DB_SCHEMA, box),
    upstream: new UpstreamOidc({ allowHosts: upstreamAllowHosts(config) }),
    vault,
    idpPurge,
    logger,
    users,
    enterprise,
    ...(platform ? { platform } : {}),
  };
}

/** What feeds the tenant registry with the registry's tenant documents (all at boot, or each on use). */
interface TenantFeed {
  start(listener: (doc: PublishedCatalog) => void): Promise<void>;
  close(): Promise<void>;
}

/** Tenant documents pushed by the registry (Redis) or pulled from it; none when neither is configured. */
function tenantFeed(config: AuthConfig, logger: Logger, tenants: TenantRegistry): TenantFeed | undefined {
  if (!config.REDIS_URL && !(config.REGISTRY_INTERNAL_URL && config.INTERNAL_TOKEN)) return undefined;
  const options = {
    redisUrl: config.REDIS_URL,
    namespace: config.REDIS_NAMESPACE,
    registryUrl: config.REGISTRY_INTERNAL_URL,
    internalToken: config.INTERNAL_TOKEN,
    resyncMs: config.TENANT_RESYNC_MS,
    warn: (message: string, details: Record<string, unknown>) => logger.warn(details, message),
  };
  if (config.AUTH_TENANT_LOADING === 'eager') return new TenantDocumentFeed(options);
  return new LazyTenantDocumentFeed({
    ...options,
    maxResident: config.AUTH_TENANT_CACHE_MAX,
    negativeMax: config.AUTH_TENANT_NEGATIVE_MAX,
    negativeTtlMs: config.AUTH_TENANT_NEGATIVE_TTL_MS,
    fetchesPerSec: config.AUTH_TENANT_FETCH_PER_SEC,
    onEvict: (id) => tenants.forget(id),
  });
}

/** Readiness (Postgres answers) and the Prometheus scrape target; liveness is InternalController's /healthz. */
function mountProbes(adapter: FastifyAdapter, pool: Pool): void {
  const telemetry = startTelemetry({ serviceName: 'auth', serviceVersion: '0.1.0' });
  adapter.getInstance().get('/readyz', async (_req, reply) => {
    const postgres = await pool.query('SELECT 1').then(
      () => true,
      () => false,
    );
    return reply.code(postgres ? 200 : 503).send({ status: postgres ? 'ready' : 'not ready', postgres });
  });
  adapter
    .getInstance()
    .get('/metrics', async (_req, reply) => reply.header('content-type', PROMETHEUS_CONTENT_TYPE).send(await telemetry.metricsText()));
}

/** The periodic sweep of expired artefacts, and closing what the app opened when it closes. */
function keepHouse(
  adapter: FastifyAdapter,
  services: AuthServices,
  owned: { limits: AuthLimits; feed: TenantFeed | undefined; stopMetrics: (() => void) | undefined },
): void {
  const { config, pool, logger } = services;
  const sweep = setInterval(() => {
    deleteExpiredArtefacts(pool, config.AUTH_DB_SCHEMA, config.DCR_CLIENT_IDLE_DAYS * 86_400).catch((err: unknown) =>
      logger.warn({ err }, 'expired-artefact cleanup failed'),
    );
  }, 10 * 60_000);
  sweep.unref();
  adapter.getInstance().addHook('onClose', async () => {
    clearInterval(sweep);
    owned.stopMetrics?.();
    services.idpPurge.close();
    owned.limits.close();
    await owned.feed?.close();
    await pool.end();
  });
}

/** The seed file's file-served tenants (the registry's reach auth through the feed). */
function seedTenants(file: string): AuthTenantDocument[] {
  if (!existsSync(file)) return [];
  return readTenantSeed(file)
    .filter((t) => t.seed === 'file' && t.settings.auth)
    .map((t) => ({ id: t.settings.id, name: t.settings.name, auth: t.settings.auth }));
}

import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { LogController } from 'fastify';
import { Pool } from 'pg';
import pino, { type Logger } from 'pino';
import { PROMETHEUS_CONTENT_TYPE, startTelemetry } from '@switchboard/telemetry';
import { AuthModule } from './app.module';
import type { AuthServices } from './auth-services';
import type { HostLookup } from './clients/ssrf-guard';
import type { AuthConfig } from './config';
import { SecretBox } from '@switchboard/secret-box';
import { migrateAuthSchema } from './db/migrate';
import { deleteExpiredArtefacts } from './db/pg-adapter';
import { FederationStateStore } from './federation/federation-state';
import { UpstreamOidc } from './federation/upstream-oidc';
import { AuthLimits } from './http/auth-limits';
import { AccountLockout } from './platform/account-lockout';
import { VerificationSlots } from './platform/verification-slots';
import { parseTrustProxy } from '@switchboard/limits';
import { SigningKeys } from './keys/signing-keys';
import { mountOidc } from './oidc/oidc-mount';
import { ProviderCache } from './oidc/provider-cache';
import { ConsoleAccounts } from './platform/console-accounts';
import { platformIssuer } from './platform/platform-issuer';
import { loadTenantAuthFile, type AuthTenant } from './tenants/tenant-auth';
import { TenantRegistry } from './tenants/tenant-registry';
import { VaultStore } from './vault/vault-store';

export interface CreateAuthAppOptions {
  logger?: Logger;
  /** Tenants to serve instead of reading TENANTS_FILE. */
  tenants?: Map<string, AuthTenant>;
  /** CIMD fetch plumbing for tests (public-looking names that resolve to loopback servers). */
  cimd?: { lookup?: HostLookup; fetch?: (url: string, init: RequestInit) => Promise<Response> };
}

/**
 * Builds the auth service (migrations run, routes registered) without listening, so tests can
 * drive it and `main` can `listen()`. Closing the app closes its Postgres pool.
 */
export async function createAuthApp(config: AuthConfig, options: CreateAuthAppOptions = {}): Promise<{ app: NestFastifyApplication; services: AuthServices }> {
  const logger =
    options.logger ??
    pino({
      level: config.LOG_LEVEL,
      base: { service: 'auth' },
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], censor: '[redacted]' },
    });
  const urls = { authPublicUrl: config.publicUrl, gatewayPublicUrl: config.gatewayPublicUrl, domain: config.GATEWAY_DOMAIN };
  const tenants = new TenantRegistry(options.tenants ?? loadTenantAuthFile(config.TENANTS_FILE, urls), config.GATEWAY_DOMAIN);

  const pool = new Pool({ connectionString: config.DATABASE_URL, max: 20 });
  pool.on('error', (err) => logger.error({ err }, 'postgres pool error'));
  try {
    await migrateAuthSchema(pool, config.AUTH_DB_SCHEMA);
  } catch (err) {
    await pool.end();
    throw err;
  }
  const box = new SecretBox(config.secretsKey);
  const keys = new SigningKeys(pool, config.AUTH_DB_SCHEMA, box);
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
  const trustProxy = parseTrustProxy(config.TRUST_PROXY);
  const platform = config.platform
    ? {
        issuer: platformIssuer(config.platform, config.publicUrl),
        settings: config.platform,
        accounts: new ConsoleAccounts(pool, config.AUTH_DB_SCHEMA, box, config.REFRESH_TOKEN_TTL_S),
        limits,
        slots: new VerificationSlots(config.CONSOLE_LOGIN_MAX_CONCURRENT_PER_IP, config.CONSOLE_LOGIN_MAX_CONCURRENT),
        lockout: new AccountLockout({ redis: limits.redis, prefix: config.LIMITS_KEY_PREFIX, threshold: config.CONSOLE_LOCKOUT_THRESHOLD, baseS: config.CONSOLE_LOCKOUT_BASE_S, maxS: config.CONSOLE_LOCKOUT_MAX_S }),
      }
    : undefined;
  const providers = new ProviderCache(
    keys,
    {
      pool,
      schema: config.AUTH_DB_SCHEMA,
      box,
      accessTokenTtl: config.ACCESS_TOKEN_TTL_S,
      refreshTokenTtl: config.REFRESH_TOKEN_TTL_S,
      secureCookies: config.publicUrl.startsWith('https:') || config.GATEWAY_DOMAIN !== undefined,
      trustProxy: trustProxy !== false,
      cimd: options.cimd,
      ...(platform ? { accountClaims: (accountId: string) => platform.accounts.claims(accountId) } : {}),
    },
    config.PROVIDER_CACHE_SIZE,
    config.PROVIDER_MAX_AGE_S * 1000,
  );
  const services: AuthServices = {
    config,
    pool,
    box,
    tenants,
    providers,
    keys,
    federation: new FederationStateStore(pool, config.AUTH_DB_SCHEMA, box),
    upstream: new UpstreamOidc(),
    vault: new VaultStore(pool, config.AUTH_DB_SCHEMA, box),
    logger,
    ...(platform ? { platform } : {}),
  };

  const adapter = new FastifyAdapter({ loggerInstance: logger, logController: new LogController({ disableRequestLogging: true }), trustProxy, bodyLimit: 64 * 1024 });
  mountOidc(adapter.getInstance(), { tenants, providers, limits, logger, platform: platform?.issuer });
  const app = await NestFactory.create<NestFastifyApplication>(AuthModule.forRoot(services), adapter, { logger: ['error', 'warn'] });
  app.enableShutdownHooks();
  // Readiness (Postgres answers) and the Prometheus scrape target; liveness is InternalController's /healthz.
  const telemetry = startTelemetry({ serviceName: 'auth', serviceVersion: '0.1.0' });
  adapter.getInstance().get('/readyz', async (_req, reply) => {
    const postgres = await pool.query('SELECT 1').then(() => true, () => false);
    return reply.code(postgres ? 200 : 503).send({ status: postgres ? 'ready' : 'not ready', postgres });
  });
  adapter.getInstance().get('/metrics', async (_req, reply) => reply.header('content-type', PROMETHEUS_CONTENT_TYPE).send(await telemetry.metricsText()));

  const sweep = setInterval(() => {
    deleteExpiredArtefacts(pool, config.AUTH_DB_SCHEMA).catch((err: unknown) => logger.warn({ err }, 'expired-artefact cleanup failed'));
  }, 10 * 60_000);
  sweep.unref();
  adapter.getInstance().addHook('onClose', async () => {
    clearInterval(sweep);
    limits.close();
    await pool.end();
  });

  await app.init();
  await adapter.getInstance().ready();
  return { app, services };
}

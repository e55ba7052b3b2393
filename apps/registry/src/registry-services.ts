import type { Provider } from '@nestjs/common';
import type { GuardedFetch, NetGuardPolicy } from '@switchboard/net-guard';
import type { RedisClient } from '@switchboard/redis-connection';
import { SecretBox } from '@switchboard/secret-box';
import type { Logger } from 'pino';
import type { RegistryConfig } from './config';
import { SsoClients } from './console-sso/sso-client';
import { ConnectorVault } from './credentials/connector-vault';
import { Credentials } from './credentials/credentials';
import { Database } from './db/database';
import { ExplainService } from './explain/explain.service';
import { DiscoveryQueue } from './discovery/discovery-queue';
import { Authenticator } from './http/authenticator';
import { ConsoleSessions } from './http/console-session';
import type { PlatformIssuer } from './http/platform-issuer';
import { GUARDED_FETCH, LOGGER, NET_POLICY, PLATFORM_ISSUER, REDIS, REGISTRY_CONFIG } from './http/registry-tokens';
import { InternalGuard, OperatorGuard, TenantGuard } from './http/tenant-guard';
import { Publisher } from './publishing/publisher';
import { UserRevocations } from './scim/user-revocations';
import { ServersController } from './servers/servers.controller';

/** The registry's collaborators, built once at boot by createRegistry (the composition root only; controllers inject single ones). */
export interface RegistryServices {
  config: RegistryConfig;
  db: Database;
  redis: RedisClient;
  box: SecretBox;
  auth: Authenticator;
  credentials: Credentials;
  /** The auth service's vault: the tenant admin's linked upstream accounts (`oauth_user` servers). */
  vault: ConnectorVault;
  publisher: Publisher;
  queue: DiscoveryQueue;
  policy: NetGuardPolicy;
  fetch: GuardedFetch;
  logger: Logger;
  /** The console's sealed cookies (session and sign-in in progress). */
  sessions: ConsoleSessions;
  platform?: PlatformIssuer;
  /** Sends deprovisioned directory users to the auth service (grants, tokens, vault entries). */
  revocations: UserRevocations;
  /** openid-client configurations of tenants' console IdPs (net-guarded). */
  sso: SsoClients;
}

/** One provider per collaborator, so each controller injects exactly what it uses (tokens in http/registry-tokens.ts). */
export function registryProviders(s: RegistryServices): Provider[] {
  const value = (provide: symbol | (abstract new (...args: never[]) => unknown), v: unknown): Provider => ({
    provide,
    useFactory: () => v,
  });
  return [
    value(REGISTRY_CONFIG, s.config),
    value(Database, s.db),
    value(REDIS, s.redis),
    value(SecretBox, s.box),
    value(Authenticator, s.auth),
    value(Credentials, s.credentials),
    value(ConnectorVault, s.vault),
    value(Publisher, s.publisher),
    value(DiscoveryQueue, s.queue),
    value(NET_POLICY, s.policy),
    value(GUARDED_FETCH, s.fetch),
    value(LOGGER, s.logger),
    value(ConsoleSessions, s.sessions),
    // A factory, not useValue: the issuer is undefined when console OAuth sign-in is off.
    value(PLATFORM_ISSUER, s.platform),
    value(UserRevocations, s.revocations),
    value(SsoClients, s.sso),
    TenantGuard,
    OperatorGuard,
    InternalGuard,
    // The import route registers through the same create() as POST /v1/servers (servers/import-server.controller.ts).
    ServersController,
    ExplainService,
  ];
}

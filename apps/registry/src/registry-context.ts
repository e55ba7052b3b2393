import type { GuardedFetch, NetGuardPolicy } from '@switchboard/net-guard';
import type { RedisClient } from '@switchboard/redis-connection';
import type { Logger } from 'pino';
import type { RegistryConfig } from './config';
import type { SecretBox } from '@switchboard/secret-box';
import type { ConsoleSessions } from './http/console-session';
import type { PlatformIssuer } from './http/platform-issuer';
import type { Database } from './db/database';
import type { DiscoveryQueue } from './discovery/discovery-queue';
import type { Authenticator } from './http/authenticator';
import type { Publisher } from './publishing/publisher';
import type { ConnectorVault } from './credentials/connector-vault';
import type { Credentials } from './credentials/credentials';
import type { UserRevocations } from './scim/user-revocations';
import type { SsoClients } from './console-sso/sso-client';

/** The registry's collaborators, built once at boot and injected into the controllers. */
export interface RegistryContext {
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
  /** fetch through the SSRF guard (`policy`), for the URLs tenants name: one keep-alive agent pair for every controller. */
  fetch: GuardedFetch;
  logger: Logger;
  /** The console's sealed cookies (session and sign-in in progress). */
  sessions: ConsoleSessions;
  /** The platform OAuth issuer (CONSOLE_ISSUER); undefined when console OAuth sign-in is off. */
  platform?: PlatformIssuer;
  /** Sends deprovisioned directory users to the auth service (grants, tokens, vault entries). */
  revocations: UserRevocations;
  /** openid-client configurations of tenants' console IdPs (net-guarded). */
  sso: SsoClients;
}

export const REGISTRY_CONTEXT = Symbol('REGISTRY_CONTEXT');

import type { GuardedFetch, NetGuardPolicy } from '@switchboard/net-guard';
import type { RedisClient } from '@switchboard/redis-connection';
import type { Logger } from 'pino';
import type { RegistryConfig } from './config';
import type { SecretBox } from '@switchboard/secret-box';
import type { ConsoleSessions } from './console/console-session';
import type { PlatformIssuer } from './console/platform-issuer';
import type { Database } from './db/database';
import type { DiscoveryQueue } from './discovery/discovery-queue';
import type { Authenticator } from './http/authenticator';
import type { Publisher } from './publishing/publisher';
import type { ConnectorVault } from './servers/connector-vault';
import type { Credentials } from './servers/credentials';

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
}

export const REGISTRY_CONTEXT = Symbol('REGISTRY_CONTEXT');

/** The tenant's canonical MCP URL and the line to add it to Claude Code. */
export function connectInfo(config: RegistryConfig, tenantId: string): { mcpUrl: string; claudeCommand: string } {
  const mcpUrl = config.GATEWAY_DOMAIN ? `https://${tenantId}.${config.GATEWAY_DOMAIN}/mcp` : `${config.GATEWAY_PUBLIC_URL.replace(/\/+$/, '')}/t/${tenantId}/mcp`;
  return { mcpUrl, claudeCommand: `claude mcp add --transport http ${tenantId} ${mcpUrl}` };
}

import type { Pool } from 'pg';
import type { Logger } from 'pino';
import type { AuthConfig } from './config';
import type { SecretBox } from '@switchboard/secret-box';
import type { FederationStateStore } from './federation/federation-state';
import type { UpstreamOidc } from './federation/upstream-oidc';
import type { SigningKeys } from './keys/signing-keys';
import type { ProviderCache } from './oidc/provider-cache';
import type { TenantRegistry } from './tenants/tenant-registry';
import type { VaultStore } from './vault/vault-store';

/** DI token of the AuthServices bag. */
export const AUTH_SERVICES = Symbol('AUTH_SERVICES');

/** Everything the HTTP controllers need, built once in createAuthApp. */
export interface AuthServices {
  config: AuthConfig;
  pool: Pool;
  box: SecretBox;
  tenants: TenantRegistry;
  providers: ProviderCache;
  keys: SigningKeys;
  federation: FederationStateStore;
  upstream: UpstreamOidc;
  vault: VaultStore;
  logger: Logger;
}

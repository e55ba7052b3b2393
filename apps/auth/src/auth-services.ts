import type { Pool } from 'pg';
import type { Logger } from 'pino';
import type { AuthConfig, PlatformIssuerSettings } from './config';
import type { SecretBox } from '@switchboard/secret-box';
import type { FederationStateStore } from './federation/federation-state';
import type { UpstreamOidc } from './federation/upstream-oidc';
import type { AuthLimits } from './http/auth-limits';
import type { AccountLockout } from './platform/account-lockout';
import type { VerificationSlots } from './platform/verification-slots';
import type { SigningKeys } from './keys/signing-keys';
import type { ProviderCache } from './oidc/provider-cache';
import type { ConsoleAccounts } from './platform/console-accounts';
import type { AuthTenant } from './tenants/tenant-auth';
import type { TenantRegistry } from './tenants/tenant-registry';
import type { TenantSecrets } from './tenants/tenant-secrets';
import type { IdpChangePurge } from './users/idp-change-purge';
import type { UserDirectory } from './users/user-directory';
import type { VaultStore } from './vault/vault-store';
import type { IdJagGrantDeps } from './enterprise/id-jag-grant';

/** DI token of the AuthServices bag. */
export const AUTH_SERVICES = Symbol('AUTH_SERVICES');

/** Everything the HTTP controllers need, built once in createAuthApp. */
export interface AuthServices {
  config: AuthConfig;
  pool: Pool;
  box: SecretBox;
  tenants: TenantRegistry;
  /** Opens secrets sealed in tenant documents (IdP and connector client secrets). */
  secrets: TenantSecrets;
  providers: ProviderCache;
  keys: SigningKeys;
  federation: FederationStateStore;
  upstream: UpstreamOidc;
  vault: VaultStore;
  /** Purges what a tenant's former identity sources left stored (vault rows, sessions, grants, link states). */
  idpPurge: IdpChangePurge;
  logger: Logger;
  /** The tenant user directory (passwords and passkeys of tenants without an enterprise IdP), kept by the registry. */
  users: UserDirectory;
  /** The platform issuer (console sign-in); undefined when it is not configured. */
  platform?: PlatformServices;
  /** Enterprise IdP keys and the ID-JAG replay/audit store (the grant and the admin's check). */
  enterprise: IdJagGrantDeps;
}

/** What the platform issuer's sign-in page needs. */
export interface PlatformServices {
  /** The issuer as an AuthTenant (id `_platform`, mount `/platform`). */
  issuer: AuthTenant;
  settings: PlatformIssuerSettings;
  accounts: ConsoleAccounts;
  /** Sign-in attempts per client IP (shared limiter). */
  limits: AuthLimits;
  /** Password verifications in flight per IP and in total. */
  slots: VerificationSlots;
  /** Accounts locked after repeated failures. */
  lockout: AccountLockout;
}

import type { SurfaceProfile } from './surface-profile';

/** What a request tells us about its client, strongest signal first (ARCHITECTURE §3). */
export interface SurfaceSignals {
  /** Verified OAuth client id (CIMD URL or registered id), when the tenant is protected. */
  oauthClientId?: string;
  /** Modern `_meta` clientInfo.name, or legacy `initialize` clientInfo.name. */
  clientInfoName?: string;
  origin?: string;
  userAgent?: string;
}

/** A tenant's surface configuration: overrides per OAuth client, and custom or adjusted profiles. */
export interface TenantSurfaceRules {
  /** OAuth client id → surface id. */
  clientSurfaces?: Record<string, string>;
  /** Custom surfaces, or field overrides of the built-ins (`claude`, `openai`, `generic`). */
  surfaces?: Record<string, Partial<SurfaceProfile>>;
}

/** Picks the surface id: tenant override for the OAuth client, client identity, clientInfo, Origin, User-Agent, else `generic`. */
export function resolveSurfaceId(signals: SurfaceSignals, rules?: TenantSurfaceRules): string {
  void signals; void rules;
  throw new Error('not implemented');
}

/** Built-in profiles merged with a tenant's overrides and custom profiles (validated: unknown fields rejected). */
export function surfaceProfiles(rules?: TenantSurfaceRules): Record<string, SurfaceProfile> {
  void rules;
  throw new Error('not implemented');
}

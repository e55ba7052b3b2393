import type { SessionInfo, Tenant } from './api';
import type { Role } from './role';

// Its own module so pages can name it without importing app.tsx (which imports every page: a cycle).
/** Who is signed in: the tenant, the platform user (cookie session) or none (API key). */
export interface Identity {
  tenant: Tenant;
  user: SessionInfo['user'];
  via: 'session' | 'api_key' | 'token';
  /** What the console shows controls for (the registry enforces it either way). */
  role: Role;
}

import type { AuthServices } from '../auth-services';

/** The any-name login (no password) exists only on a service that runs with SWITCHBOARD_ENV=development. */
export function devLoginAllowed(s: AuthServices): boolean {
  return s.config.SWITCHBOARD_ENV === 'development';
}

export const DEV_LOGIN_OFF_PAGE =
  '<h1>access_denied</h1><p>The development login (any user name, no password) is off: this service does not run with SWITCHBOARD_ENV=development. Sign in to this workspace from your application with your password or passkey, then open this page again.</p>';

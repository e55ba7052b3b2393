import { isIP } from 'node:net';

/** The two modes every app runs in: `development` allows the public development defaults, `production` refuses them. */
export const SWITCHBOARD_ENVS = ['development', 'production'] as const;
export type SwitchboardEnv = (typeof SWITCHBOARD_ENVS)[number];

/** The mode an app runs in and why, for the refusal's first line. */
export interface DeploymentMode {
  env: SwitchboardEnv;
  /** `SWITCHBOARD_ENV=production`, or which bind address made production the default. */
  reason: string;
}

/**
 * Whether a bind address only accepts connections from this machine: `localhost`, 127.0.0.0/8,
 * `::1` and IPv4-mapped loopback. Anything else — `0.0.0.0`, `::`, a host name, an interface
 * address — can be reached from elsewhere and counts as exposed.
 */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) !== 6) return false;
  // The URL parser writes an IPv6 address in its one canonical form (`::1`, `::ffff:7f00:1`).
  const canonical = URL.parse(`http://[${h}]/`)?.hostname ?? '';
  return canonical === '[::1]' || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(canonical);
}

/**
 * The one rule for which mode an app runs in: SWITCHBOARD_ENV when it is set; unset, an app
 * bound to loopback is on a developer's machine or in a test (development), and one bound to
 * any other address is reachable by others and runs as production, so an image started
 * without SWITCHBOARD_ENV never serves with the public development keys.
 */
export function deploymentMode(switchboardEnv: SwitchboardEnv | undefined, bind: { variable: string; host: string }): DeploymentMode {
  if (switchboardEnv) return { env: switchboardEnv, reason: `SWITCHBOARD_ENV=${switchboardEnv}` };
  if (isLoopbackHost(bind.host))
    return { env: 'development', reason: `${bind.variable}=${bind.host} is loopback and SWITCHBOARD_ENV is not set` };
  return {
    env: 'production',
    reason: `production: ${bind.variable}=${bind.host} is not a loopback address and SWITCHBOARD_ENV is not set; for a development run set SWITCHBOARD_ENV=development`,
  };
}

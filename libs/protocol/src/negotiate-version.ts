import type { LegacyVersion } from './versions';

/**
 * Legacy-era `initialize` negotiation: echo a supported legacy version; anything else
 * (unknown, modern, missing) is answered with our newest legacy version.
 */
export function negotiateLegacyVersion(requested: unknown): LegacyVersion {
  void requested;
  throw new Error('not implemented');
}

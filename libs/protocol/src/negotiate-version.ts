import { isLegacyVersion, LATEST_LEGACY_VERSION, type LegacyVersion } from './versions';

/**
 * Legacy-era `initialize` negotiation: echo a supported legacy version; anything else
 * (unknown, modern, missing) is answered with our newest legacy version
 * (lifecycle, "Version Negotiation": the server SHOULD answer with its latest version).
 */
export function negotiateLegacyVersion(requested: unknown): LegacyVersion {
  return isLegacyVersion(requested) ? requested : LATEST_LEGACY_VERSION;
}

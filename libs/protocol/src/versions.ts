/** Protocol revisions of the legacy era (`initialize` handshake), oldest first. */
export const LEGACY_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
/** Protocol revisions of the modern, stateless era (`server/discover`, per-request `_meta`). */
export const MODERN_VERSIONS = ['2026-07-28'] as const;

export type LegacyVersion = (typeof LEGACY_VERSIONS)[number];
export type ModernVersion = (typeof MODERN_VERSIONS)[number];
export type ProtocolVersion = LegacyVersion | ModernVersion;
export type Era = 'legacy' | 'modern';

export const LATEST_LEGACY_VERSION: LegacyVersion = '2025-11-25';
export const LATEST_MODERN_VERSION: ModernVersion = '2026-07-28';
/** Transport rule (2025-06-18+): a request with no `MCP-Protocol-Version` header is treated as 2025-03-26. */
export const DEFAULT_HEADERLESS_VERSION: LegacyVersion = '2025-03-26';

/**
 * Every version this server speaks, newest first (named in the legacy 400 for an unknown
 * `MCP-Protocol-Version`). `server/discover` and `-32022` data list MODERN_VERSIONS only, as
 * SDK v2 does: legacy revisions are negotiated through `initialize`, never through `_meta`.
 */
export const SUPPORTED_VERSIONS: readonly ProtocolVersion[] = [...MODERN_VERSIONS, ...LEGACY_VERSIONS].sort().reverse();

export function isLegacyVersion(v: unknown): v is LegacyVersion {
  return typeof v === 'string' && (LEGACY_VERSIONS as readonly string[]).includes(v);
}

export function isModernVersion(v: unknown): v is ModernVersion {
  return typeof v === 'string' && (MODERN_VERSIONS as readonly string[]).includes(v);
}

export function isSupportedVersion(v: unknown): v is ProtocolVersion {
  return isLegacyVersion(v) || isModernVersion(v);
}

export function eraOf(v: ProtocolVersion): Era {
  return isModernVersion(v) ? 'modern' : 'legacy';
}

/** True when `v` is at least `min` (ISO dates compare lexically). */
export function versionAtLeast(v: ProtocolVersion, min: ProtocolVersion): boolean {
  return v >= min;
}

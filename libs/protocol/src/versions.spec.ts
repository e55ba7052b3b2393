import {
  eraOf,
  isLegacyVersion,
  isModernVersion,
  isSupportedVersion,
  LATEST_LEGACY_VERSION,
  LATEST_MODERN_VERSION,
  SUPPORTED_VERSIONS,
  versionAtLeast,
} from './versions';

describe('versions', () => {
  it('lists every supported version newest first', () => {
    expect(SUPPORTED_VERSIONS).toEqual(['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']);
  });

  it('names the newest version of each era', () => {
    expect(LATEST_LEGACY_VERSION).toBe('2025-11-25');
    expect(LATEST_MODERN_VERSION).toBe('2026-07-28');
  });

  it('tells the eras apart', () => {
    expect(isLegacyVersion('2025-03-26')).toBe(true);
    expect(isLegacyVersion('2026-07-28')).toBe(false);
    expect(isModernVersion('2026-07-28')).toBe(true);
    expect(isModernVersion('2025-11-25')).toBe(false);
    expect(isSupportedVersion('2024-11-05')).toBe(true);
    expect(isSupportedVersion('v999.0.0')).toBe(false);
    expect(isSupportedVersion(undefined)).toBe(false);
    expect(eraOf('2026-07-28')).toBe('modern');
    expect(eraOf('2025-06-18')).toBe('legacy');
  });

  it('compares versions by date', () => {
    expect(versionAtLeast('2025-06-18', '2025-03-26')).toBe(true);
    expect(versionAtLeast('2025-03-26', '2025-03-26')).toBe(true);
    expect(versionAtLeast('2024-11-05', '2025-03-26')).toBe(false);
  });
});

import { negotiateLegacyVersion } from './negotiate-version';
import { LEGACY_VERSIONS } from './versions';

describe('negotiateLegacyVersion', () => {
  it.each(LEGACY_VERSIONS)('echoes the supported legacy version %s', (version) => {
    expect(negotiateLegacyVersion(version)).toBe(version);
  });

  it('answers a modern version with the newest legacy version', () => {
    expect(negotiateLegacyVersion('2026-07-28')).toBe('2025-11-25');
  });

  it.each([undefined, null, 42, '', '2023-01-01', '2099-01-01', {}])('answers %p with 2025-11-25', (requested) => {
    expect(negotiateLegacyVersion(requested)).toBe('2025-11-25');
  });
});

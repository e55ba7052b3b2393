import { importFixtures, loadFixtures } from './load-fixtures';

describe('loadFixtures', () => {
  it('imports the fixtures package by name, with the builtin bundles', async () => {
    const fixtures = await loadFixtures();
    expect(fixtures.builtinBundle('demo')?.id).toBe('demo');
    expect(fixtures.builtinBundle('conformance')?.id).toBe('conformance');
    expect(fixtures.fixtureBundle('fixture:x', [{ name: 't', inputSchema: { type: 'object' } }]).tools).toHaveLength(1);
  });

  it('says the fixtures are left out of this build when the package is missing', async () => {
    await expect(importFixtures('@switchboard/no-such-fixtures')).rejects.toThrow(
      /@switchboard\/no-such-fixtures is not installed in this build \(production images leave the development fixtures out\)/,
    );
  });

  it('refuses a package without the fixtures API', async () => {
    await expect(importFixtures('@switchboard/protocol')).rejects.toThrow(
      '@switchboard/protocol does not export builtinBundle and fixtureBundle',
    );
  });
});

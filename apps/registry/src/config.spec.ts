import { randomBytes } from 'node:crypto';
import { loadRegistryConfig } from './config';

const real = () => ({
  SECRETS_KEY: randomBytes(32).toString('base64'),
  INTERNAL_TOKEN: randomBytes(32).toString('base64url'),
  REGISTRY_OPERATOR_KEY: randomBytes(32).toString('base64url'),
});

describe('loadRegistryConfig: production is the default off loopback', () => {
  it('refuses every development default in one error when bound to a non-loopback address without SWITCHBOARD_ENV', () => {
    expect(() => loadRegistryConfig({ REGISTRY_HOST: '0.0.0.0' })).toThrow(
      new RegExp(
        [
          '^Invalid registry configuration \\(production: REGISTRY_HOST=0\\.0\\.0\\.0 is not a loopback address and SWITCHBOARD_ENV is not set; for a development run set SWITCHBOARD_ENV=development\\):',
          '  SECRETS_KEY: is required in production; unset, it falls back to the public development key',
          '  INTERNAL_TOKEN: is required in production; unset, it falls back to the development token "dev-internal-token"',
          '  REGISTRY_OPERATOR_KEY: is required in production; unset, it falls back to the development operator key "dev-operator-key"$',
        ].join('[^\\n]*\\n'),
      ),
    );
  });

  it('refuses the development operator key set explicitly', () => {
    expect(() => loadRegistryConfig({ ...real(), REGISTRY_HOST: '::', REGISTRY_OPERATOR_KEY: 'dev-operator-key' })).toThrow(
      /\n {2}REGISTRY_OPERATOR_KEY: must be at least 32 characters/,
    );
  });

  it('starts with real secrets off loopback, as production', () => {
    expect(loadRegistryConfig({ ...real(), REGISTRY_HOST: '0.0.0.0' }).SWITCHBOARD_ENV).toBe('production');
  });

  it('keeps the development defaults on loopback without SWITCHBOARD_ENV, and anywhere with SWITCHBOARD_ENV=development', () => {
    expect(loadRegistryConfig({ LOG_LEVEL: 'silent' })).toMatchObject({
      SWITCHBOARD_ENV: 'development',
      REGISTRY_OPERATOR_KEY: 'dev-operator-key',
    });
    expect(loadRegistryConfig({ REGISTRY_HOST: '0.0.0.0', SWITCHBOARD_ENV: 'development' })).toMatchObject({
      SWITCHBOARD_ENV: 'development',
      REGISTRY_OPERATOR_KEY: 'dev-operator-key',
    });
  });

  it('refuses them on loopback too with SWITCHBOARD_ENV=production', () => {
    expect(() => loadRegistryConfig({ SWITCHBOARD_ENV: 'production' })).toThrow(
      /^Invalid registry configuration \(SWITCHBOARD_ENV=production\):\n {2}SECRETS_KEY: /,
    );
  });
});

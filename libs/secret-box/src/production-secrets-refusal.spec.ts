import { randomBytes } from 'node:crypto';
import { deploymentMode } from './deployment-mode';
import { productionSecretsRefusal } from './production-secrets-refusal';

describe('productionSecretsRefusal', () => {
  const weak = {
    SECRETS_KEY: { kind: 'keys' as const, keys: [Buffer.from('development-key-development-key!!')] },
    INTERNAL_TOKEN: { kind: 'token' as const, value: 'dev-token' },
  };

  it('checks nothing outside production', () => {
    expect(productionSecretsRefusal('gateway', 'development', weak)).toBeUndefined();
  });

  it('names the service and every offending variable in production', () => {
    const message = productionSecretsRefusal('registry', 'production', weak);
    expect(message).toMatch(
      /^Invalid registry configuration \(SWITCHBOARD_ENV=production\):\n {2}SECRETS_KEY: the key is a development or placeholder key[^\n]*\n {2}INTERNAL_TOKEN: must be at least 32 characters/,
    );
  });

  it('passes random secrets', () => {
    expect(
      productionSecretsRefusal('auth', 'production', {
        SECRETS_KEY: { kind: 'keys', keys: [randomBytes(32)] },
        INTERNAL_TOKEN: { kind: 'token', value: randomBytes(32).toString('base64') },
      }),
    ).toBeUndefined();
  });
});

describe('productionSecretsRefusal with a deployment mode', () => {
  it('gives the reason production applies and what each unset variable would fall back to, in one message', () => {
    const message = productionSecretsRefusal('registry', deploymentMode(undefined, { variable: 'REGISTRY_HOST', host: '0.0.0.0' }), {
      SECRETS_KEY: { kind: 'keys', keys: undefined, fallback: 'the public development key' },
      REGISTRY_OPERATOR_KEY: { kind: 'token', value: undefined, fallback: 'the development operator key "dev-operator-key"' },
    });
    expect(message).toBe(
      'Invalid registry configuration (production: REGISTRY_HOST=0.0.0.0 is not a loopback address and SWITCHBOARD_ENV is not set; for a development run set SWITCHBOARD_ENV=development):\n' +
        '  SECRETS_KEY: is required in production; unset, it falls back to the public development key (openssl rand -base64 32)\n' +
        '  REGISTRY_OPERATOR_KEY: is required in production; unset, it falls back to the development operator key "dev-operator-key"',
    );
  });

  it('checks nothing on loopback without SWITCHBOARD_ENV', () => {
    expect(
      productionSecretsRefusal('registry', deploymentMode(undefined, { variable: 'REGISTRY_HOST', host: '127.0.0.1' }), {
        SECRETS_KEY: { kind: 'keys', keys: undefined },
      }),
    ).toBeUndefined();
  });
});

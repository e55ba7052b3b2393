import { randomBytes } from 'node:crypto';
import { productionSecretsRefusal } from './production-secrets-refusal';

describe('productionSecretsRefusal', () => {
  const weak = { SECRETS_KEY: { kind: 'keys' as const, keys: [Buffer.from('development-key-development-key!!')] }, INTERNAL_TOKEN: { kind: 'token' as const, value: 'dev-token' } };

  it('checks nothing outside production', () => {
    expect(productionSecretsRefusal('gateway', 'development', weak)).toBeUndefined();
  });

  it('names the service and every offending variable in production', () => {
    const message = productionSecretsRefusal('registry', 'production', weak);
    expect(message).toMatch(/^Invalid registry configuration \(SWITCHBOARD_ENV=production\):\n {2}SECRETS_KEY: the key is a development or placeholder key[^\n]*\n {2}INTERNAL_TOKEN: must be at least 32 characters/);
  });

  it('passes random secrets', () => {
    expect(productionSecretsRefusal('auth', 'production', { SECRETS_KEY: { kind: 'keys', keys: [randomBytes(32)] }, INTERNAL_TOKEN: { kind: 'token', value: randomBytes(32).toString('base64') } })).toBeUndefined();
  });
});

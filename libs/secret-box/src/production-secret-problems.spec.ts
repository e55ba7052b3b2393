import { randomBytes } from 'node:crypto';
import { productionSecretProblems } from './production-secret-problems';

describe('productionSecretProblems', () => {
  const random = () => randomBytes(32);
  const token = () => randomBytes(32).toString('base64url');

  it('accepts random keys and long random tokens', () => {
    expect(
      productionSecretProblems({
        SECRETS_KEY: { kind: 'keys', keys: [random(), random()] },
        INTERNAL_TOKEN: { kind: 'token', value: token() },
      }),
    ).toEqual([]);
  });

  it("refuses the repository's development and placeholder keys, naming the variable", () => {
    const keys = [
      Buffer.from('switchboard-dev-secrets-key-0001'), // registry / compose / npm start
      Buffer.from('switchboard-dev-secrets-key-0000'), // auth's built-in default
      Buffer.from('Q0hBTkdFLU1FLUNIQU5HRS1NRS1DSEFOR0UtTUUtMzI=', 'base64'), // k8s base Secret: CHANGE-ME…
      Buffer.alloc(32, 7), // constant bytes
    ];
    for (const key of keys)
      expect(productionSecretProblems({ SECRETS_KEY: { kind: 'keys', keys: [key] } })).toEqual([
        expect.stringMatching(/^SECRETS_KEY: the key is a development or placeholder key/),
      ]);
    expect(productionSecretProblems({ SECRETS_KEY: { kind: 'keys', keys: [random(), keys[0]!] } })).toEqual([
      expect.stringMatching(/^SECRETS_KEY: key 2 is a development/),
    ]);
    expect(productionSecretProblems({ SECRETS_KEY: { kind: 'keys', keys: undefined } })).toEqual([
      expect.stringMatching(/^SECRETS_KEY: is required in production/),
    ]);
  });

  it('refuses missing, short and placeholder tokens, naming each variable', () => {
    expect(
      productionSecretProblems({
        INTERNAL_TOKEN: { kind: 'token', value: 'dev-internal-token-change-me' },
        REGISTRY_OPERATOR_KEY: { kind: 'token', value: 'CHANGE-ME-operator-key-000000-and-then-some-more' },
        AUTH_INTERNAL_TOKEN: { kind: 'token', value: undefined },
        OTHER_TOKEN: { kind: 'token', value: 'dev-internal-token-0123456789abcdef0123' },
      }),
    ).toEqual([
      expect.stringMatching(/^INTERNAL_TOKEN: must be at least 32 characters/),
      expect.stringMatching(/^REGISTRY_OPERATOR_KEY: looks like a placeholder/),
      expect.stringMatching(/^AUTH_INTERNAL_TOKEN: is required in production/),
      expect.stringMatching(/^OTHER_TOKEN: looks like a placeholder/),
    ]);
  });
});

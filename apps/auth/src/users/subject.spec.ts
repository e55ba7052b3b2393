import { accountIdOf, displayUser, idpIdOf } from './subject';

describe('subjects namespaced by identity source', () => {
  it('names the directory, and an enterprise IdP by its issuer (a trailing slash is the same issuer)', () => {
    expect(idpIdOf({ kind: 'local' })).toBe('dir');
    const a = idpIdOf({ kind: 'oidc', issuer: 'https://login.example.com', clientId: 'x', scopes: [] });
    expect(a).toMatch(/^oidc-[0-9a-f]{16}$/);
    expect(idpIdOf({ kind: 'oidc', issuer: 'https://login.example.com/', clientId: 'other-client', scopes: [] })).toBe(a);
    expect(idpIdOf({ kind: 'oidc', issuer: 'https://other-idp.example.com', clientId: 'x', scopes: [] })).not.toBe(a);
  });

  it('keeps identities of different sources apart, and shows only the user part', () => {
    expect(accountIdOf('acme', 'dir', 'alice')).toBe('acme|dir|alice');
    expect(accountIdOf('acme', 'dir', 'alice')).not.toBe(accountIdOf('acme', 'local', 'alice'));
    // An OIDC sub may itself contain bars (auth0|123): only the first two separate tenant and source.
    expect(displayUser('acme', accountIdOf('acme', 'oidc-0123456789abcdef', 'auth0|123'))).toBe('auth0|123');
    expect(displayUser('acme', 'acme|dir|alice')).toBe('alice');
  });
});

import { tenantAuthSchema } from '@switchboard/catalog';
import { currentIdentitySources, identitySourceOf, isCurrentIdentity } from './identity-sources';
import { idpIdOf } from './subject';

const directory = { id: 'acme', settings: tenantAuthSchema.parse({}) };
const enterprise = {
  id: 'acme',
  settings: tenantAuthSchema.parse({ idp: { kind: 'oidc', issuer: 'https://login.example.com', clientId: 'x' } }),
};
const enterpriseId = idpIdOf(enterprise.settings.idp);

describe("a tenant's identity sources", () => {
  it('are the directory (plus the any-name login only in development) or the enterprise IdP alone', () => {
    expect(currentIdentitySources(directory, true)).toEqual(['dir', 'local']);
    expect(currentIdentitySources(directory, false)).toEqual(['dir']);
    expect(currentIdentitySources(enterprise, true)).toEqual([enterpriseId]);
  });

  it('include every trusted enterprise IdP of ID-JAGs, under the same id an interactive IdP of that issuer gets', () => {
    const trusting = {
      id: 'acme',
      settings: tenantAuthSchema.parse({
        enterpriseIdps: [{ issuer: 'https://login.example.com/', jwksUri: 'https://login.example.com/jwks', allowedClients: ['c'] }],
      }),
    };
    expect(currentIdentitySources(trusting, false)).toEqual(['dir', enterpriseId]);
    expect(isCurrentIdentity(trusting, `acme|${enterpriseId}|alice`, false)).toBe(true);
  });

  it("read an account's source from its id, a sub with bars included", () => {
    expect(identitySourceOf('acme', `acme|${enterpriseId}|auth0|123`)).toBe(enterpriseId);
    expect(identitySourceOf('acme', 'acme|dir|alice')).toBe('dir');
    expect(identitySourceOf('acme', 'beta|dir|alice')).toBeUndefined();
    expect(identitySourceOf('acme', 'acme|alice')).toBeUndefined();
    expect(identitySourceOf('acme', '_tenant_admin')).toBeUndefined();
  });

  it("accept only accounts of the tenant's current sources", () => {
    expect(isCurrentIdentity(enterprise, `acme|${enterpriseId}|alice`, true)).toBe(true);
    expect(isCurrentIdentity(enterprise, 'acme|dir|alice', true)).toBe(false);
    expect(isCurrentIdentity(enterprise, 'acme|oidc-0123456789abcdef|alice', true)).toBe(false);
    expect(isCurrentIdentity(directory, 'acme|local|alice', true)).toBe(true);
    // Outside development the any-name login is gone, and so are its identities.
    expect(isCurrentIdentity(directory, 'acme|local|alice', false)).toBe(false);
    // Legacy un-namespaced subjects and other tenants' accounts are nobody here.
    expect(isCurrentIdentity(directory, 'acme|alice', true)).toBe(false);
    expect(isCurrentIdentity(directory, 'beta|dir|alice', true)).toBe(false);
    // The platform issuer (a first-party client) has console accounts, not identity sources.
    expect(
      isCurrentIdentity(
        { ...directory, id: '_platform', firstParty: { clientId: 'c', clientName: 'C', redirectUris: [] } },
        'acme|admin',
        false,
      ),
    ).toBe(true);
  });
});

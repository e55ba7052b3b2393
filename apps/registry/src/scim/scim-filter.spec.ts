import { ScimError } from '../http/scim-error';
import { MAX_FILTER_CLAUSES, parseScimFilter } from './scim-filter';

const USER_ATTRS = ['userName', 'externalId', 'id'] as const;

describe('parseScimFilter', () => {
  it('reads Okta and Entra ID equality filters, attribute names case-insensitively', () => {
    expect(parseScimFilter('userName eq "alice@example.com"', USER_ATTRS)).toEqual([{ attribute: 'userName', value: 'alice@example.com' }]);
    expect(parseScimFilter('externalid EQ "00u1\\"x"', USER_ATTRS)).toEqual([{ attribute: 'externalId', value: '00u1"x' }]);
    expect(parseScimFilter('userName eq "a" and externalId eq "b"', USER_ATTRS)).toHaveLength(2);
  });

  it('refuses other operators, unknown attributes and trailing junk with invalidFilter', () => {
    for (const f of [
      'userName co "a"',
      'name.familyName eq "x"',
      'userName eq "a" or userName eq "b"',
      'userName eq a',
      'members[value eq "x"]',
    ]) {
      expect(() => parseScimFilter(f, USER_ATTRS)).toThrow(ScimError);
      try {
        parseScimFilter(f, USER_ATTRS);
      } catch (err) {
        expect((err as ScimError).scimType).toBe('invalidFilter');
        expect((err as ScimError).status).toBe(400);
      }
    }
  });

  it('bounds the number of comparisons', () => {
    const ok = Array.from({ length: MAX_FILTER_CLAUSES }, () => 'id eq "x"').join(' and ');
    expect(parseScimFilter(ok, USER_ATTRS)).toHaveLength(MAX_FILTER_CLAUSES);
    expect(() => parseScimFilter(`${ok} and id eq "y"`, USER_ATTRS)).toThrow(/at most/);
  });
});

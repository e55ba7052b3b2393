import { catalogRedisKeys } from './published-catalog';

describe('catalogRedisKeys', () => {
  it('names the catalog key, the tenant set and the change channel under a namespace', () => {
    const keys = catalogRedisKeys('t1:');
    expect(keys.catalog('acme')).toBe('t1:sb:catalog:acme');
    expect(keys.tenants).toBe('t1:sb:tenants');
    expect(keys.channel).toBe('t1:catalog:changed');
  });

  it('uses the bare names without a namespace', () => {
    expect(catalogRedisKeys().catalog('acme')).toBe('sb:catalog:acme');
  });
});

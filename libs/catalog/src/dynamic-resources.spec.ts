import { CatalogError } from './catalog-error';
import type { DynamicResourceEntry } from './definitions';
import { DYNAMIC_RESOURCE_LIMITS, DynamicResourceRoutes, dynamicPrefixProblem } from './dynamic-resources';

const entry = (serverId: string, uriPrefix: string): DynamicResourceEntry => ({
  uriPrefix,
  route: { kind: 'upstream', serverId, url: `http://${serverId}.test/mcp`, upstreamName: '' },
});

describe('DynamicResourceRoutes', () => {
  it('routes a URI to the server whose prefix it starts with, the longest prefix first', () => {
    const routes = DynamicResourceRoutes.build([entry('a', 'demo://a/'), entry('a', 'demo://a/deep/'), entry('b', 'other://')]);
    expect(routes.find('demo://a/deep/x')?.uriPrefix).toBe('demo://a/deep/');
    expect(routes.find('demo://a/x')?.route).toMatchObject({ serverId: 'a' });
    expect(routes.find('other://thing')?.route).toMatchObject({ serverId: 'b' });
    expect(routes.find('demo://b/x')).toBeUndefined();
  });

  it("refuses a prefix inside or equal to another server's, so a URI has one owner", () => {
    expect(() => DynamicResourceRoutes.build([entry('a', 'demo://'), entry('b', 'demo://b/')])).toThrow(CatalogError);
    expect(() => DynamicResourceRoutes.build([entry('a', 'demo://x/'), entry('b', 'demo://x/')])).toThrow(/overlaps/);
  });

  it('refuses a bare scheme and an over-long prefix', () => {
    expect(dynamicPrefixProblem('demo:')).toMatch(/URI prefix/);
    expect(dynamicPrefixProblem('no scheme')).toMatch(/URI prefix/);
    const longest = `demo://${'x'.repeat(DYNAMIC_RESOURCE_LIMITS.maxPrefixLength - 'demo://'.length)}`;
    expect(dynamicPrefixProblem(longest)).toBeUndefined();
    expect(dynamicPrefixProblem(`${longest}x`)).toMatch(/at most/);
    expect(() => DynamicResourceRoutes.build([entry('a', 'demo:')])).toThrow(/URI prefix/);
  });
});

import { missingScopes, scopeSatisfies } from './scope-satisfies';

describe('scopeSatisfies', () => {
  it('accepts the same scope and broader parents', () => {
    expect(scopeSatisfies(['mcp:tools'], 'mcp:tools')).toBe(true);
    expect(scopeSatisfies(['mcp:tools'], 'mcp:tools:read')).toBe(true);
    expect(scopeSatisfies(['mcp'], 'mcp:tools:write')).toBe(true);
  });

  it('refuses narrower grants and look-alike prefixes', () => {
    expect(scopeSatisfies(['mcp:tools:read'], 'mcp:tools')).toBe(false);
    expect(scopeSatisfies(['mcp:tool'], 'mcp:tools')).toBe(false);
    expect(scopeSatisfies([], 'mcp:tools')).toBe(false);
  });

  it('lists what is missing', () => {
    expect(missingScopes(['mcp:tools:read'], ['mcp:tools:read', 'mcp:tools:write'])).toEqual(['mcp:tools:write']);
  });
});

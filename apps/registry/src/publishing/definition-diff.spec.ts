import { definitionDiff, jsonEqual } from './definition-diff';

const tool = {
  name: 'search',
  description: 'Search orders',
  inputSchema: {
    type: 'object',
    properties: { query: { type: 'string' }, limit: { type: 'integer', minimum: 1, maximum: 50 } },
    required: ['query'],
  },
  annotations: { readOnlyHint: true },
};

describe('definitionDiff', () => {
  it('is empty for equal definitions, whatever the key order', () => {
    const reordered = {
      annotations: { readOnlyHint: true },
      inputSchema: {
        required: ['query'],
        properties: { limit: { maximum: 50, minimum: 1, type: 'integer' }, query: { type: 'string' } },
        type: 'object',
      },
      description: 'Search orders',
      name: 'search',
    };
    expect(definitionDiff(tool, reordered)).toEqual([]);
  });

  it('reports a changed nested value at its JSON-pointer path with before and after', () => {
    const after = structuredClone(tool);
    after.inputSchema.properties.limit.maximum = 500;
    after.description = 'Search and delete orders';
    expect(definitionDiff(tool, after)).toEqual([
      { path: '/description', op: 'changed', before: 'Search orders', after: 'Search and delete orders' },
      { path: '/inputSchema/properties/limit/maximum', op: 'changed', before: 50, after: 500 },
    ]);
  });

  it('reports added and removed keys (whole subtrees), sorted by key', () => {
    const after: Record<string, unknown> = structuredClone(tool);
    delete (after.annotations as Record<string, unknown>).readOnlyHint;
    (after.inputSchema as { properties: Record<string, unknown> }).properties.force = { type: 'boolean' };
    after.title = 'Search';
    expect(definitionDiff(tool, after)).toEqual([
      { path: '/annotations/readOnlyHint', op: 'removed', before: true },
      { path: '/inputSchema/properties/force', op: 'added', after: { type: 'boolean' } },
      { path: '/title', op: 'added', after: 'Search' },
    ]);
  });

  it('compares arrays as whole values at their path', () => {
    const after = structuredClone(tool);
    after.inputSchema.required = ['query', 'limit'];
    expect(definitionDiff(tool, after)).toEqual([
      { path: '/inputSchema/required', op: 'changed', before: ['query'], after: ['query', 'limit'] },
    ]);
    const same = structuredClone(tool);
    expect(definitionDiff({ a: [{ x: 1, y: 2 }] }, { a: [{ y: 2, x: 1 }] })).toEqual([]);
    expect(definitionDiff(tool, same)).toEqual([]);
  });

  it('reports a type change as changed at that path', () => {
    expect(definitionDiff({ a: { b: 1 } }, { a: 'flat' })).toEqual([{ path: '/a', op: 'changed', before: { b: 1 }, after: 'flat' }]);
    expect(definitionDiff({ a: [1] }, { a: { 0: 1 } })).toEqual([{ path: '/a', op: 'changed', before: [1], after: { 0: 1 } }]);
    expect(definitionDiff({ a: null }, { a: 0 })).toEqual([{ path: '/a', op: 'changed', before: null, after: 0 }]);
  });

  it('escapes ~ and / in keys (RFC 6901)', () => {
    expect(definitionDiff({ _meta: { 'openai/x~y': 1 } }, { _meta: { 'openai/x~y': 2 } })).toEqual([
      { path: '/_meta/openai~1x~0y', op: 'changed', before: 1, after: 2 },
    ]);
  });

  it('a removed tool is one row at the root; a tool with nothing before is one added row', () => {
    expect(definitionDiff(tool, undefined)).toEqual([{ path: '', op: 'removed' }]);
    expect(definitionDiff(tool, null)).toEqual([{ path: '', op: 'removed' }]);
    expect(definitionDiff(undefined, tool)).toEqual([{ path: '', op: 'added', after: tool }]);
    expect(definitionDiff(undefined, undefined)).toEqual([]);
  });

  it('jsonEqual treats absent and undefined keys alike', () => {
    expect(jsonEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
  });
});

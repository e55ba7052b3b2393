import type { CatalogSnapshot } from './definitions';
import { hashSnapshot } from './hash-snapshot';

const base: Omit<CatalogSnapshot, 'version'> = {
  tenantId: 't1',
  server: { name: 'demo', version: '1.0.0' },
  tools: [{ definition: { name: 'echo', inputSchema: { type: 'object' } }, route: { kind: 'local', handler: 'demo:echo' } }],
  resources: [],
  resourceTemplates: [],
  prompts: [],
};

describe('hashSnapshot', () => {
  it('returns a sha256 hex digest', () => {
    expect(hashSnapshot(base)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('does not depend on key order', () => {
    const reordered = {
      prompts: [],
      resourceTemplates: [],
      resources: [],
      tools: base.tools,
      server: { version: '1.0.0', name: 'demo' },
      tenantId: 't1',
    };
    expect(hashSnapshot(reordered)).toBe(hashSnapshot(base));
  });

  it('changes when content changes', () => {
    expect(hashSnapshot({ ...base, tenantId: 't2' })).not.toBe(hashSnapshot(base));
  });

  it('covers the unlisted flag of a tool entry', () => {
    const unlisted = { ...base, tools: base.tools.map((t) => ({ ...t, unlisted: true })) };
    expect(hashSnapshot(unlisted)).not.toBe(hashSnapshot(base));
  });

  it('ignores a version field passed at runtime', () => {
    const withVersion = { ...base, version: 'abc' } as CatalogSnapshot;
    expect(hashSnapshot(withVersion)).toBe(hashSnapshot(base));
  });
});

describe('hashSnapshot over shared entries', () => {
  it('gives the same hash for equal content whether its entries are frozen (memoised) or not', () => {
    const frozen = structuredClone(base);
    const deepFreeze = (v: unknown): void => {
      if (v === null || typeof v !== 'object') return;
      Object.freeze(v);
      Object.values(v).forEach(deepFreeze);
    };
    frozen.tools.forEach(deepFreeze);
    expect(Object.isFrozen(frozen.tools[0]?.route)).toBe(true);
    expect(hashSnapshot(frozen)).toBe(hashSnapshot(base));
    expect(hashSnapshot(frozen)).toBe(hashSnapshot(structuredClone(base)));
  });

  it('tells apart an entry moved from one list to another', () => {
    const entry = { definition: { name: 'x', uri: 'x://', uriTemplate: 'x://' }, route: { kind: 'local', handler: 'b:x' } } as never;
    expect(hashSnapshot({ ...base, tools: [], resources: [entry] })).not.toBe(hashSnapshot({ ...base, tools: [], prompts: [entry] }));
  });

  it('sees a change inside a mutable entry on the next hash', () => {
    const mutable = structuredClone(base);
    const before = hashSnapshot(mutable);
    (mutable.tools[0] as { definition: { description?: string } }).definition.description = 'changed';
    expect(hashSnapshot(mutable)).not.toBe(before);
  });
});

import { buildCatalogSnapshot, SNAPSHOT_SERVER_VERSION, type SnapshotPart } from './build-snapshot';
import type { ToolEntry } from './definitions';
import { hashSnapshot } from './hash-snapshot';

const tool = (name: string, handler = `b:${name}`): ToolEntry => ({
  definition: { name, inputSchema: { type: 'object' } },
  route: { kind: 'local', handler },
});
const tenant = { id: 't1', name: 'Tenant one' };

describe('buildCatalogSnapshot', () => {
  it('names the server after the tenant, with the one server version, and hashes the content as version', () => {
    const snap = buildCatalogSnapshot({ ...tenant, description: 'About', instructions: 'Be brief' }, [{ tools: [tool('a')] }]);
    expect(snap.server).toEqual({ name: 'switchboard-t1', version: SNAPSHOT_SERVER_VERSION, title: 'Tenant one', description: 'About' });
    expect(snap.instructions).toBe('Be brief');
    const { version, ...content } = snap;
    expect(version).toBe(hashSnapshot(content));
  });

  it('leaves out empty or missing description and instructions, so they never change the hash', () => {
    const bare = buildCatalogSnapshot(tenant, []);
    const empty = buildCatalogSnapshot({ ...tenant, description: '', instructions: null }, []);
    expect(bare).not.toHaveProperty('instructions');
    expect(bare.server).not.toHaveProperty('description');
    expect(empty).toEqual(bare);
  });

  it('concatenates the parts in order, each kind in its own list', () => {
    const parts: SnapshotPart[] = [
      { tools: [tool('a')], resources: [{ definition: { uri: 'r://1', name: 'one' }, route: { kind: 'local', handler: 'b:r1' } }] },
      { tools: [tool('b')], prompts: [{ definition: { name: 'p' }, route: { kind: 'local', handler: 'b:p' } }] },
      { resourceTemplates: [{ definition: { uriTemplate: 'r://{id}', name: 'tpl' }, route: { kind: 'local', handler: 'b:t' } }] },
    ];
    const snap = buildCatalogSnapshot(tenant, parts);
    expect(snap.tools.map((t) => t.definition.name)).toEqual(['a', 'b']);
    expect(snap.resources.map((r) => r.definition.uri)).toEqual(['r://1']);
    expect(snap.resourceTemplates.map((r) => r.definition.uriTemplate)).toEqual(['r://{id}']);
    expect(snap.prompts.map((p) => p.definition.name)).toEqual(['p']);
  });

  it('keeps duplicates without onDuplicate (the compiler refuses them)', () => {
    const snap = buildCatalogSnapshot(tenant, [{ tools: [tool('a', 'x:a')] }, { tools: [tool('a', 'y:a')] }]);
    expect(snap.tools).toHaveLength(2);
  });

  it('with onDuplicate keeps the first of each name or URI and reports the others', () => {
    const reported: string[] = [];
    const resource = (handler: string) => ({ definition: { uri: 'r://same', name: handler }, route: { kind: 'local' as const, handler } });
    const snap = buildCatalogSnapshot(
      tenant,
      [
        { tools: [tool('a', 'x:a'), tool('b')], resources: [resource('x')] },
        { tools: [tool('a', 'y:a')], resources: [resource('y')] },
      ],
      { onDuplicate: (kind, key) => reported.push(`${kind}:${key}`) },
    );
    expect(snap.tools.map((t) => t.route)).toEqual([
      { kind: 'local', handler: 'x:a' },
      { kind: 'local', handler: 'b:b' },
    ]);
    expect(snap.resources.map((r) => r.route)).toEqual([{ kind: 'local', handler: 'x' }]);
    expect(reported).toEqual(['tool:a', 'resource:r://same']);
  });

  it('gives the same version for the same content', () => {
    expect(buildCatalogSnapshot(tenant, [{ tools: [tool('a')] }]).version).toBe(
      buildCatalogSnapshot(tenant, [{ tools: [tool('a')] }]).version,
    );
    expect(buildCatalogSnapshot(tenant, [{ tools: [tool('a')] }]).version).not.toBe(
      buildCatalogSnapshot(tenant, [{ tools: [tool('b')] }]).version,
    );
  });
});

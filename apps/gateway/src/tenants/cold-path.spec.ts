import { snapshotFromBundle } from '@switchboard/catalog';
import { demoBundle } from '@switchboard/fixtures';
import type { TenantCatalog } from '../catalog-source/catalog-source';
import type { McpTarget } from '@switchboard/mcp-http';
import { ColdLoads, type ColdLoadsOptions } from '@switchboard/tenant-config';
import { TenantDirectory } from './tenant-directory';

function tenant(id: string): TenantCatalog {
  return { id, name: id, origins: [], hosts: [], surfaceRules: {}, snapshot: snapshotFromBundle(id, demoBundle) };
}

/** The cold path over a real directory; `published` is what the fetch finds, `clock` the time it sees. */
function coldPath(published: Set<string>, over: Partial<ColdLoadsOptions<TenantCatalog, McpTarget>> = {}) {
  const clock = { now: 0 };
  const directory = new TenantDirectory({ publicUrl: 'http://127.0.0.1:3000' });
  const fetched: string[] = [];
  const cold = new ColdLoads<TenantCatalog, McpTarget>({
    read: async (id) => {
      fetched.push(id);
      return published.has(id) ? tenant(id) : 'unknown';
    },
    apply: (_id, t) => directory.apply(t, 1_000),
    negativeMax: 3,
    negativeTtlMs: 1_000,
    unavailableTtlMs: 100,
    fetchesPerSec: 1_000,
    now: () => clock.now,
    ...over,
  });
  directory.fetchOnMiss((id) => cold.load(id));
  return { clock, directory, fetched, cold };
}

// The working set's cold path (libs/tenant-config ColdLoads) over a real tenant directory.
describe('gateway cold path', () => {
  test('an unknown id is looked up again only after its TTL', async () => {
    const { clock, directory, fetched } = coldPath(new Set());
    expect(await directory.resolve('ghost', undefined)).toBeUndefined();
    expect(directory.resolve('ghost', undefined)).toBeUndefined(); // synchronous: remembered
    clock.now = 999;
    expect(directory.resolve('ghost', undefined)).toBeUndefined();
    expect(fetched).toEqual(['ghost']);
    clock.now = 1_001;
    expect(await directory.resolve('ghost', undefined)).toBeUndefined();
    expect(fetched).toEqual(['ghost', 'ghost']);
  });

  test('the negative cache keeps at most negativeMax ids, oldest forgotten first', async () => {
    const { cold, directory, fetched } = coldPath(new Set());
    for (const id of ['a', 'b', 'c', 'd']) await directory.resolve(id, undefined);
    expect(cold.negativeSize).toBe(3);
    await directory.resolve('a', undefined); // forgotten: looked up again
    await directory.resolve('d', undefined); // remembered
    expect(fetched).toEqual(['a', 'b', 'c', 'd', 'a']);
  });

  test('past the cold rate an id answers at once without a look-up, and is not remembered', async () => {
    const { clock, cold, directory, fetched } = coldPath(new Set(['real']), { fetchesPerSec: 1 });
    await directory.resolve('x1', undefined);
    await directory.resolve('x2', undefined);
    expect(directory.resolve('real', undefined)).toBeUndefined(); // burst of 2 spent
    expect(cold.stats.shed).toBe(1);
    clock.now = 1_000;
    expect((await directory.resolve('real', undefined))?.tenantId).toBe('real');
    expect(fetched).toEqual(['x1', 'x2', 'real']);
  });

  test('a tenant that keeps changing while fetched is applied after the last attempt', async () => {
    const ref: { cold?: ColdLoads<TenantCatalog, McpTarget> } = {};
    const path = coldPath(new Set(['busy']), {
      read: async (id) => {
        ref.cold?.invalidate(id); // a catalog:changed during every read
        return tenant(id);
      },
    });
    const cold = (ref.cold = path.cold);
    expect((await path.directory.resolve('busy', undefined))?.tenantId).toBe('busy');
    expect(cold.stats.fetches).toBe(3);
    expect(cold.stats.restarted).toBe(2);
  });

  test('ids the registry never issues are refused without a look-up', () => {
    const { directory, fetched } = coldPath(new Set());
    for (const id of ['', 'UP', 'a_b', '-a', 'a-', 'x'.repeat(64), '../etc']) expect(directory.resolve(id, undefined)).toBeUndefined();
    expect(fetched).toEqual([]);
  });
});

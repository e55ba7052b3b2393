import { buildCatalogSnapshot, CompiledCatalog, type ToolEntry } from '@switchboard/catalog';
import { surfaceProfiles } from '@switchboard/protocol';
import { MAX_LOG_LEVEL_SERVERS, statefulRoutes } from './stateful-routes';

const tool = (name: string, serverId: string, stateful: boolean): ToolEntry => ({
  definition: { name, description: name, inputSchema: { type: 'object' } },
  route: { kind: 'upstream', serverId, url: `http://${serverId}.test/mcp`, upstreamName: name, ...(stateful ? { stateful: true } : {}) },
});

function catalogOf(tools: ToolEntry[]): CompiledCatalog {
  return CompiledCatalog.build(buildCatalogSnapshot({ id: 't1', name: 'T1' }, [{ tools }]), { surfaces: surfaceProfiles() });
}

describe('statefulRoutes', () => {
  it('names each stateful upstream server once, and no stateless or local one', () => {
    const routes = statefulRoutes(catalogOf([tool('a1', 'a', true), tool('a2', 'a', true), tool('b1', 'b', false), tool('c1', 'c', true)]));
    expect(routes.map((r) => r.serverId)).toEqual(['a', 'c']);
  });

  it(`names at most ${MAX_LOG_LEVEL_SERVERS} servers, however many the tenant registered`, () => {
    const tools = Array.from({ length: MAX_LOG_LEVEL_SERVERS + 5 }, (_, i) => tool(`t${i}`, `s${i}`, true));
    expect(statefulRoutes(catalogOf(tools))).toHaveLength(MAX_LOG_LEVEL_SERVERS);
  });
});

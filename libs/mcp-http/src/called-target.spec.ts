import { CompiledCatalog, type CatalogSnapshot, type Route } from '@switchboard/catalog';
import { surfaceProfiles } from '@switchboard/protocol';
import { NOTHING_CALLED, calledTarget } from './called-target';

const up = (name: string): Route => ({ kind: 'upstream', serverId: 'crm', url: 'http://crm.example/mcp', upstreamName: name });
const snapshot: CatalogSnapshot = {
  tenantId: 't1',
  version: 'v1',
  server: { name: 't1', version: '1' },
  tools: [
    { definition: { name: 'find', inputSchema: { type: 'object' } }, route: up('find') },
    { definition: { name: 'echo', inputSchema: { type: 'object' } }, route: { kind: 'local', handler: 'demo:echo' } },
  ],
  resources: [{ definition: { uri: 'crm://accounts', name: 'accounts' }, route: up('crm://accounts') }],
  resourceTemplates: [{ definition: { uriTemplate: 'crm://accounts/{id}', name: 'account' }, route: up('crm://accounts/{id}') }],
  prompts: [{ definition: { name: 'summary' }, route: up('summary') }],
};
const catalog = CompiledCatalog.build(snapshot, { surfaces: surfaceProfiles() });

describe('calledTarget', () => {
  it('names the server and the tool, prompt or resource the catalog knows', () => {
    expect(calledTarget(catalog, 'tools/call', { name: 'find' })).toEqual({ serverId: 'crm', name: 'find' });
    expect(calledTarget(catalog, 'tools/call', { name: 'echo' })).toEqual({ serverId: 'local', name: 'echo' });
    expect(calledTarget(catalog, 'prompts/get', { name: 'summary' })).toEqual({ serverId: 'crm', name: 'summary' });
    expect(calledTarget(catalog, 'resources/read', { uri: 'crm://accounts' })).toEqual({ serverId: 'crm', name: 'crm://accounts' });
    // A templated read is keyed by its template, not by the URI the client chose.
    expect(calledTarget(catalog, 'resources/read', { uri: 'crm://accounts/42' })).toEqual({ serverId: 'crm', name: 'crm://accounts/{id}' });
  });

  it('gives nothing for names the catalog does not know, odd params and other methods (a client string never becomes a key)', () => {
    expect(calledTarget(catalog, 'tools/call', { name: 'nope' })).toBe(NOTHING_CALLED);
    expect(calledTarget(catalog, 'tools/call', { name: 42 })).toBe(NOTHING_CALLED);
    expect(calledTarget(catalog, 'tools/call', undefined)).toBe(NOTHING_CALLED);
    expect(calledTarget(catalog, 'prompts/get', { name: 'find' })).toBe(NOTHING_CALLED);
    expect(calledTarget(catalog, 'resources/read', { uri: 'other://x' })).toBe(NOTHING_CALLED);
    expect(calledTarget(catalog, 'tools/list', { name: 'find' })).toBe(NOTHING_CALLED);
    expect(NOTHING_CALLED).toEqual({ serverId: '-', name: undefined });
  });
});

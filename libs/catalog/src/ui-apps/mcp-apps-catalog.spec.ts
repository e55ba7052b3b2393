import { BUILTIN_SURFACES, MCP_APP_MIME_TYPE, type ProtocolVersion } from '@switchboard/protocol';
import { buildCatalogSnapshot } from '../build-snapshot';
import { CompiledCatalog, type ListMethod } from '../compiled-catalog';
import type { ResourceEntry, Route, ToolEntry } from '../definitions';
import { namespaceAppUris, namespacedUiUri } from './namespace-app-uris';

// MCP Apps in the catalog: upstream `ui://` URIs namespaced per server, and the +apps surface
// variants that alone list UI resources and keep `_meta.ui` (docs/mcp-apps.md).

const CARD = 'ui://widget/card.html';
const CSP = { connectDomains: ['https://api.example.com'], resourceDomains: ['https://cdn.example.com'] };

function upstream(serverId: string, upstreamName: string): Route {
  return { kind: 'upstream', serverId, url: `http://127.0.0.1:1/${serverId}`, upstreamName };
}

function serverPart(serverId: string): { tools: ToolEntry[]; resources: ResourceEntry[] } {
  return {
    tools: [
      {
        definition: {
          name: `${serverId}_show`,
          inputSchema: { type: 'object' },
          _meta: { ui: { resourceUri: CARD, visibility: ['model', 'app'] }, 'ui/resourceUri': CARD, 'openai/outputTemplate': CARD },
        },
        route: upstream(serverId, 'show'),
      },
    ],
    resources: [
      {
        definition: { uri: CARD, name: 'card', mimeType: MCP_APP_MIME_TYPE, _meta: { ui: { csp: CSP, prefersBorder: true } } },
        route: upstream(serverId, CARD),
      },
      { definition: { uri: `docs://${serverId}/readme`, name: 'readme' }, route: upstream(serverId, `docs://${serverId}/readme`) },
    ],
  };
}

const tenant = { id: 'acme', name: 'Acme' };

function listed(catalog: CompiledCatalog, method: ListMethod, surface: string, version: ProtocolVersion = '2025-11-25') {
  const field = method === 'tools/list' ? 'tools' : 'resources';
  return (JSON.parse(catalog.list(method, surface, version).toString('utf8')) as Record<string, Record<string, unknown>[]>)[field]!;
}

describe('namespaceAppUris', () => {
  it('gives two servers publishing the same ui:// URI distinct URIs, routed to their own URI', () => {
    const snapshot = buildCatalogSnapshot(tenant, [serverPart('a'), { resources: serverPart('b').resources }]);
    const ui = snapshot.resources.filter((r) => r.definition.mimeType === MCP_APP_MIME_TYPE);
    expect(ui.map((r) => r.definition.uri)).toEqual(['ui://a/widget/card.html', 'ui://b/widget/card.html']);
    expect(ui.map((r) => (r.route as { upstreamName: string }).upstreamName)).toEqual([CARD, CARD]);
    expect(ui[0]!.definition._meta).toEqual({ ui: { csp: CSP, prefersBorder: true } });
    // Compiles: no duplicate URI.
    expect(() => CompiledCatalog.build(snapshot, { surfaces: BUILTIN_SURFACES })).not.toThrow();
  });

  it("rewrites a tool's ui references to its own server's namespace", () => {
    const [tool] = buildCatalogSnapshot(tenant, [serverPart('b')]).tools;
    expect(tool!.definition._meta).toEqual({
      ui: { resourceUri: 'ui://b/widget/card.html', visibility: ['model', 'app'] },
      'ui/resourceUri': 'ui://b/widget/card.html',
      'openai/outputTemplate': 'ui://b/widget/card.html',
    });
  });

  it('percent-encodes the server id so distinct ids stay distinct authorities', () => {
    expect(namespacedUiUri('a/b', CARD)).toBe('ui://a%2Fb/widget/card.html');
    expect(namespacedUiUri('a b', CARD)).not.toBe(namespacedUiUri('a-b', CARD));
  });

  it('leaves local entries and parts without UI URIs as the same objects', () => {
    const local: Route = { kind: 'local', handler: 'h' };
    const part = {
      tools: [{ definition: { name: 't', inputSchema: {}, _meta: { ui: { resourceUri: CARD } } }, route: local }],
      resources: [{ definition: { uri: CARD, name: 'card' }, route: local }],
    };
    expect(namespaceAppUris(part)).toBe(part);
    const plain = { resources: [serverPart('a').resources[1]!] };
    expect(namespaceAppUris(plain)).toBe(plain);
  });
});

describe('MCP Apps surfaces', () => {
  const catalog = CompiledCatalog.build(buildCatalogSnapshot(tenant, [serverPart('a'), serverPart('b')]), {
    surfaces: BUILTIN_SURFACES,
  });

  it.each(['generic', 'claude'])('the %s surface lists no ui:// resource and no ui meta', (surface) => {
    expect(listed(catalog, 'resources/list', surface).map((r) => r.uri)).toEqual(['docs://a/readme', 'docs://b/readme']);
    for (const tool of listed(catalog, 'tools/list', surface)) expect(tool._meta).toBeUndefined();
    expect(catalog.showsApps(surface)).toBe(false);
  });

  it.each(['generic+apps', 'claude+apps'])('the %s variant lists the UI resources with their csp and keeps _meta.ui', (surface) => {
    const resources = listed(catalog, 'resources/list', surface);
    expect(resources.map((r) => r.uri)).toEqual([
      'ui://a/widget/card.html',
      'docs://a/readme',
      'ui://b/widget/card.html',
      'docs://b/readme',
    ]);
    expect(resources[0]).toMatchObject({ mimeType: MCP_APP_MIME_TYPE, _meta: { ui: { csp: CSP, prefersBorder: true } } });
    const tools = listed(catalog, 'tools/list', surface);
    expect(tools.map((t) => t._meta)).toEqual([
      { ui: { resourceUri: 'ui://a/widget/card.html', visibility: ['model', 'app'] }, 'ui/resourceUri': 'ui://a/widget/card.html' },
      { ui: { resourceUri: 'ui://b/widget/card.html', visibility: ['model', 'app'] }, 'ui/resourceUri': 'ui://b/widget/card.html' },
    ]);
    expect(catalog.showsApps(surface)).toBe(true);
  });

  it('serves ChatGPT the same lists whether or not it declares the extension (one compiled page)', () => {
    expect(catalog.list('tools/list', 'openai+apps', '2026-07-28')).toBe(catalog.list('tools/list', 'openai+apps', '2026-07-28'));
    expect(catalog.list('resources/list', 'openai+apps', '2025-06-18')).toBe(catalog.list('resources/list', 'openai', '2025-06-18'));
    expect(listed(catalog, 'resources/list', 'openai')).toHaveLength(4);
  });

  it('lists no _meta before 2025-06-18 even on an apps variant', () => {
    expect(listed(catalog, 'tools/list', 'claude+apps', '2025-03-26').map((t) => t._meta)).toEqual([undefined, undefined]);
  });
});

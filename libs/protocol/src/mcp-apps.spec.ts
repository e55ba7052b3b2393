import { MCP_APP_MIME_TYPE, MCP_APPS_EXTENSION, appsSurfaceId, declaresMcpApps, isUiUri, withAppsVariants, withMcpApps } from './mcp-apps';
import { surfaceProfiles } from './resolve-surface';
import { BUILTIN_SURFACES } from './surface-profile';

describe('declaresMcpApps', () => {
  it.each([
    [{ extensions: { [MCP_APPS_EXTENSION]: { mimeTypes: [MCP_APP_MIME_TYPE] } } }, true],
    [{ extensions: { [MCP_APPS_EXTENSION]: {} } }, true],
    [{ extensions: { [MCP_APPS_EXTENSION]: { mimeTypes: ['text/html+skybridge'] } } }, false],
    [{ extensions: { [MCP_APPS_EXTENSION]: true } }, false],
    [{ extensions: { [MCP_APPS_EXTENSION]: [] } }, false],
    [{ extensions: { 'io.modelcontextprotocol/tasks': {} } }, false],
    [{ extensions: null }, false],
    [{ sampling: {} }, false],
    [undefined, false],
  ])('%j → %s', (capabilities, expected) => {
    expect(declaresMcpApps(capabilities as Record<string, unknown> | undefined)).toBe(expected);
  });
});

describe('isUiUri', () => {
  it.each([
    ['ui://widget/card.html', true],
    ['UI://widget/card.html', true],
    ['ui://', false],
    ['https://ui.example/x', false],
    ['docs://ui://x', false],
  ])('%s → %s', (uri, expected) => expect(isUiUri(uri)).toBe(expected));
});

describe('withMcpApps', () => {
  it('adds the ui meta keys and mcpApps to a surface that does not publish apps, once per profile object', () => {
    const variant = withMcpApps(BUILTIN_SURFACES.claude);
    expect(variant).toEqual({
      ...BUILTIN_SURFACES.claude,
      id: 'claude+apps',
      label: 'Claude (claude.ai, Desktop, Code) + MCP Apps',
      mcpApps: true,
      keepMetaKeys: ['ui', 'ui/'],
    });
    expect(Object.isFrozen(variant)).toBe(true);
    expect(withMcpApps(BUILTIN_SURFACES.claude)).toBe(variant);
    expect(withMcpApps(BUILTIN_SURFACES.generic).keepMetaKeys).toEqual([...BUILTIN_SURFACES.generic.keepMetaKeys, 'ui', 'ui/']);
  });

  it('returns a surface that already publishes apps as it is', () => {
    expect(withMcpApps(BUILTIN_SURFACES.openai)).toBe(BUILTIN_SURFACES.openai);
  });

  it('gives every surface of a tenant its +apps variant', () => {
    const profiles = surfaceProfiles({ surfaces: { kiosk: { maxTools: 3 } } });
    const all = withAppsVariants(profiles);
    expect(Object.keys(all).sort()).toEqual(
      ['claude', 'claude+apps', 'generic', 'generic+apps', 'kiosk', 'kiosk+apps', 'openai', 'openai+apps'].sort(),
    );
    expect(all[appsSurfaceId('kiosk')]).toMatchObject({ maxTools: 3, mcpApps: true });
    expect(all['openai+apps']).toBe(profiles.openai);
  });
});

describe('surfaceProfiles with mcpApps', () => {
  it('keeps the ui meta keys on a surface a tenant opens to apps', () => {
    const profiles = surfaceProfiles({ surfaces: { claude: { mcpApps: true } } });
    expect(profiles.claude).toMatchObject({ mcpApps: true, keepMetaKeys: ['ui', 'ui/'] });
  });

  it('refuses a non-boolean mcpApps naming the surface and field', () => {
    expect(() => surfaceProfiles({ surfaces: { claude: { mcpApps: 'yes' as unknown as boolean } } })).toThrow(
      'surface "claude": mcpApps must be a boolean',
    );
  });
});

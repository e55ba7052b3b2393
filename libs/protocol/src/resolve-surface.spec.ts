import { resolveSurfaceId, surfaceProfiles, type TenantSurfaceRules } from './resolve-surface';
import { BUILTIN_SURFACES, type SurfaceProfile } from './surface-profile';

describe('resolveSurfaceId', () => {
  it('falls back to generic without signals', () => {
    expect(resolveSurfaceId({})).toBe('generic');
    expect(resolveSurfaceId({ clientInfoName: 'mcp-inspector', userAgent: 'node', origin: 'https://example.com' })).toBe('generic');
  });

  describe('tenant override for the OAuth client', () => {
    const rules: TenantSurfaceRules = {
      clientSurfaces: { 'client-1': 'acme', 'client-2': 'ghost', 'https://claude.ai/oauth/mcp': 'openai' },
      surfaces: { acme: {} },
    };

    it('wins over every other signal', () => {
      expect(resolveSurfaceId({ oauthClientId: 'client-1', clientInfoName: 'claude-ai', userAgent: 'Claude-User' }, rules)).toBe('acme');
      expect(resolveSurfaceId({ oauthClientId: 'https://claude.ai/oauth/mcp' }, rules)).toBe('openai');
    });

    it('is skipped when it names a surface the tenant does not have', () => {
      expect(resolveSurfaceId({ oauthClientId: 'client-2', clientInfoName: 'claude-code' }, rules)).toBe('claude');
    });

    it('does not apply to another client id or inherited keys', () => {
      expect(resolveSurfaceId({ oauthClientId: 'client-3' }, rules)).toBe('generic');
      expect(resolveSurfaceId({ oauthClientId: 'toString' }, rules)).toBe('generic');
    });
  });

  describe('OAuth client identity (CIMD URL)', () => {
    it.each([
      ['https://claude.ai/oauth/mcp-oauth-client-metadata', 'claude'],
      ['https://claude.com/client.json', 'claude'],
      ['https://api.claude.com/client.json', 'claude'],
      ['https://chatgpt.com/oauth/client.json', 'openai'],
      ['https://platform.openai.com/cimd', 'openai'],
      ['https://openai.com/cimd', 'openai'],
    ])('maps %s to %s', (clientId, surface) => {
      expect(resolveSurfaceId({ oauthClientId: clientId, userAgent: 'something-else' })).toBe(surface);
    });

    it.each([
      'https://claude.ai.evil.com/c.json',
      'https://notclaude.ai/c.json',
      'http://claude.ai/c.json',
      'https://evil.com/claude.ai',
      'https://claude.ai@evil.com/c.json',
      'registered-id',
      'https://[bad',
    ])('does not trust %s', (clientId) => {
      expect(resolveSurfaceId({ oauthClientId: clientId })).toBe('generic');
    });

    it('beats clientInfo', () => {
      expect(resolveSurfaceId({ oauthClientId: 'https://chatgpt.com/c.json', clientInfoName: 'claude-ai' })).toBe('openai');
    });
  });

  describe('clientInfo name', () => {
    it.each([
      ['claude-ai', 'claude'],
      ['claude-code', 'claude'],
      ['Anthropic/ClaudeAI', 'claude'],
      ['openai-mcp', 'openai'],
      ['ChatGPT', 'openai'],
    ])('maps %s to %s', (name, surface) => {
      expect(resolveSurfaceId({ clientInfoName: name })).toBe(surface);
    });

    it('beats Origin and User-Agent', () => {
      expect(resolveSurfaceId({ clientInfoName: 'claude-ai', origin: 'https://chatgpt.com', userAgent: 'openai-mcp/1.0' })).toBe('claude');
    });
  });

  describe('Origin', () => {
    it.each([
      ['https://claude.ai', 'claude'],
      ['https://claude.com', 'claude'],
      ['https://www.claude.ai', 'claude'],
      ['https://CLAUDE.AI', 'claude'],
      ['https://chatgpt.com', 'openai'],
      ['https://chat.openai.com', 'openai'],
      ['https://foo.openai.com', 'openai'],
      ['https://abc.web-sandbox.oaiusercontent.com', 'openai'],
      ['https://claude.ai:443', 'claude'],
    ])('maps %s to %s', (origin, surface) => {
      expect(resolveSurfaceId({ origin })).toBe(surface);
    });

    it.each([
      'http://claude.ai',
      'https://claude.ai.evil.com',
      'https://evilclaude.ai',
      'https://claude.ai/path',
      'https://user@claude.ai',
      'null',
      'https://',
      'https://claude.ai:abc',
    ])('ignores %s', (origin) => {
      expect(resolveSurfaceId({ origin })).toBe('generic');
    });

    it('beats User-Agent', () => {
      expect(resolveSurfaceId({ origin: 'https://claude.ai', userAgent: 'ChatGPT-User' })).toBe('claude');
    });
  });

  describe('User-Agent', () => {
    it.each([
      ['Claude-User/1.0', 'claude'],
      ['claude-code/2.1.0 (cli)', 'claude'],
      ['Anthropic-MCP-Client', 'claude'],
      ['openai-mcp/1.0.0', 'openai'],
      ['Mozilla/5.0 ChatGPT-User/1.0', 'openai'],
    ])('maps %s to %s', (userAgent, surface) => {
      expect(resolveSurfaceId({ userAgent })).toBe(surface);
    });

    it('leaves other agents generic', () => {
      expect(resolveSurfaceId({ userAgent: 'curl/8.0' })).toBe('generic');
    });
  });
});

describe('surfaceProfiles', () => {
  it('returns the built-ins without rules, as copies', () => {
    const profiles = surfaceProfiles();
    expect(profiles).toEqual(BUILTIN_SURFACES);
    expect(profiles.claude).not.toBe(BUILTIN_SURFACES.claude);
    expect(Object.isFrozen(profiles.claude)).toBe(true);
    expect(Object.isFrozen(profiles.claude?.keepMetaKeys)).toBe(true);
  });

  it('overrides fields of a built-in and keeps the rest', () => {
    const profiles = surfaceProfiles({ surfaces: { claude: { maxTools: 40, keepMetaKeys: ['ui', 'openai/'] } } });
    expect(profiles.claude).toEqual({ ...BUILTIN_SURFACES.claude, maxTools: 40, keepMetaKeys: ['ui', 'openai/'] });
    expect(BUILTIN_SURFACES.claude.maxTools).toBe(0);
  });

  it('adds a custom surface on top of generic with the id as default label', () => {
    const profiles = surfaceProfiles({ surfaces: { 'acme-bot': { maxNameLength: 48 } } });
    const expected: SurfaceProfile = { ...BUILTIN_SURFACES.generic, id: 'acme-bot', label: 'acme-bot', maxNameLength: 48 };
    expect(profiles['acme-bot']).toEqual(expected);
    expect(Object.keys(profiles)).toEqual(['generic', 'claude', 'openai', 'acme-bot']);
  });

  it('accepts an id field equal to the key', () => {
    expect(surfaceProfiles({ surfaces: { acme: { id: 'acme', label: 'Acme' } } }).acme?.label).toBe('Acme');
  });

  it('copies override arrays so later config edits do not leak in', () => {
    const keys = ['ui'];
    const profiles = surfaceProfiles({ surfaces: { acme: { keepMetaKeys: keys } } });
    keys.push('evil');
    expect(profiles.acme?.keepMetaKeys).toEqual(['ui']);
  });

  it.each([
    [{ 'Bad Id': {} }, /surface "Bad Id": id must match/],
    [{ ['x'.repeat(33)]: {} }, /id must match/],
    [{ acme: { colour: 'red' } }, /surface "acme": unknown field "colour"/],
    [{ acme: { id: 'other' } }, /surface "acme": id must equal the surface key/],
    [{ acme: { label: '' } }, /surface "acme": label must be a non-empty string/],
    [{ acme: { keepMetaKeys: 'ui' } }, /surface "acme": keepMetaKeys must be an array/],
    [{ acme: { keepMetaKeys: ['ok', ''] } }, /surface "acme": keepMetaKeys entries/],
    [{ acme: { keepMetaKeys: ['a b'] } }, /keepMetaKeys entries/],
    [{ acme: { publishSecuritySchemes: 'yes' } }, /surface "acme": publishSecuritySchemes must be a boolean/],
    [{ acme: { mirrorTitleToAnnotations: 1 } }, /mirrorTitleToAnnotations must be a boolean/],
    [{ acme: { defaultHintAnnotations: null } }, /defaultHintAnnotations must be a boolean/],
    [{ acme: { maxNameLength: 0 } }, /surface "acme": maxNameLength must be an integer from 1 to 128/],
    [{ acme: { maxNameLength: 200 } }, /maxNameLength must be an integer/],
    [{ acme: { maxDescriptionLength: -1 } }, /maxDescriptionLength must be an integer/],
    [{ acme: { maxTools: 2.5 } }, /maxTools must be an integer/],
    [{ claude: null }, /surface "claude": must be an object/],
  ])('rejects bad config %#', (surfaces, message) => {
    expect(() => surfaceProfiles({ surfaces: surfaces as unknown as TenantSurfaceRules['surfaces'] })).toThrow(message);
  });

  it('rejects a clientSurfaces entry that names an unknown surface', () => {
    expect(() => surfaceProfiles({ clientSurfaces: { 'client-1': 'ghost' } })).toThrow(
      /clientSurfaces\["client-1"\]: surface "ghost" is not defined/,
    );
    expect(() => surfaceProfiles({ clientSurfaces: { 'client-1': 'acme' }, surfaces: { acme: {} } })).not.toThrow();
  });

  it('rejects non-object rule sections', () => {
    expect(() => surfaceProfiles({ surfaces: [] as unknown as TenantSurfaceRules['surfaces'] })).toThrow(/surfaces must be an object/);
    expect(() => surfaceProfiles({ clientSurfaces: 'x' as unknown as TenantSurfaceRules['clientSurfaces'] })).toThrow(
      /clientSurfaces must be an object/,
    );
  });
});

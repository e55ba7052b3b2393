import { checkChatGptTools, checkNoOpenAiMeta, checkNoSecuritySchemes, checkToolHints, checkToolNames, checkToolTitles } from './check-tools';
import { asMetadataUrls, resourceMetadataUrl } from './check-oauth';

const good = {
  name: 'search',
  title: 'Search',
  annotations: { title: 'Search', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
};

describe('tool checks', () => {
  it('pass for a tool that satisfies every surface rule', () => {
    for (const c of [checkNoSecuritySchemes([good]), checkNoOpenAiMeta([good]), checkToolTitles([good]), checkToolHints([good]), checkToolNames([good]), checkChatGptTools([good], [good])]) {
      expect(c.status).toBe('pass');
    }
  });

  it('name the offending tools and keys', () => {
    expect(checkNoSecuritySchemes([{ ...good, _meta: { securitySchemes: [] } }]).reason).toBe('securitySchemes leak to Claude on 1 tool(s): "search"');
    expect(checkNoOpenAiMeta([{ ...good, _meta: { 'openai/outputTemplate': 'ui://x', ui: {} } }]).reason).toContain('search (openai/outputTemplate, ui)');
    expect(checkToolTitles([{ name: 'x', annotations: {} }]).reason).toMatch(/^no annotations\.title on 1 tool\(s\): "x"; no title on 1 tool\(s\): "x"/);
    expect(checkToolHints([{ ...good, annotations: { readOnlyHint: true } }]).reason).toContain('search (destructiveHint, idempotentHint, openWorldHint)');
    expect(checkToolNames([{ name: 'two words' }, { name: 'n'.repeat(65) }]).status).toBe('fail');
    expect(checkChatGptTools([good], []).reason).toContain('missing for ChatGPT: "search"');
  });

  it('shortens long lists', () => {
    const many = Array.from({ length: 8 }, (_, i) => ({ name: `t${i}`, securitySchemes: [] }));
    expect(checkNoSecuritySchemes(many).reason).toMatch(/"t4" and 3 more$/);
  });
});

describe('OAuth helpers', () => {
  it('reads resource_metadata from a Bearer challenge, quoted or not', () => {
    expect(resourceMetadataUrl('Bearer realm="x", resource_metadata="https://a.example/.well-known/oauth-protected-resource/mcp"')).toBe('https://a.example/.well-known/oauth-protected-resource/mcp');
    expect(resourceMetadataUrl('Bearer resource_metadata=https://a.example/prm, scope="x"')).toBe('https://a.example/prm');
    expect(resourceMetadataUrl('Basic realm="x"')).toBeUndefined();
    expect(resourceMetadataUrl(null)).toBeUndefined();
  });

  it('lists the RFC 8414 / OIDC locations in the order clients try them', () => {
    expect(asMetadataUrls('https://as.example/t/acme')).toEqual([
      'https://as.example/.well-known/oauth-authorization-server/t/acme',
      'https://as.example/.well-known/openid-configuration/t/acme',
      'https://as.example/t/acme/.well-known/openid-configuration',
    ]);
    expect(asMetadataUrls('https://as.example/')).toEqual(['https://as.example/.well-known/oauth-authorization-server', 'https://as.example/.well-known/openid-configuration']);
  });
});

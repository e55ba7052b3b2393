import {
  checkChatGptTools,
  checkClaudeTools,
  checkNoOpenAiMeta,
  checkNoSecuritySchemes,
  checkToolHints,
  checkToolNames,
  checkToolTitles,
} from './check-tools';
import { asMetadataUrls, resourceMetadataUrl } from './check-oauth';
import { servedTitles, toolProblems } from '../publishing/tool-rules';

const good = {
  name: 'search',
  title: 'Search',
  annotations: { title: 'Search', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
};

describe('tool checks', () => {
  it('pass for a tool that satisfies every surface rule', () => {
    for (const c of [
      checkNoSecuritySchemes([good]),
      checkNoOpenAiMeta([good]),
      checkToolTitles([good]),
      checkToolHints([good]),
      checkToolNames([good]),
      checkChatGptTools([good], [good]),
    ]) {
      expect(c.status).toBe('pass');
    }
  });

  it('name the offending tools and keys', () => {
    expect(checkNoSecuritySchemes([{ ...good, _meta: { securitySchemes: [] } }]).reason).toBe(
      'securitySchemes leak to Claude on 1 tool(s): "search"',
    );
    expect(checkNoOpenAiMeta([{ ...good, _meta: { 'openai/outputTemplate': 'ui://x', ui: {} } }]).reason).toContain(
      'search (openai/outputTemplate, ui)',
    );
    expect(checkToolTitles([{ name: 'x', annotations: {} }]).reason).toMatch(
      /^no annotations\.title on 1 tool\(s\): "x"; no title on 1 tool\(s\): "x"/,
    );
    expect(checkToolHints([{ ...good, annotations: { readOnlyHint: true } }]).reason).toContain('search (destructiveHint, openWorldHint)');
    expect(checkToolNames([{ name: 'two words' }, { name: 'n'.repeat(65) }]).status).toBe('fail');
    expect(checkChatGptTools([good], []).reason).toContain('missing for ChatGPT: "search"');
  });

  it('link a tool missing from a list to the Explain panel on the surface that lacks it', () => {
    expect(checkChatGptTools([good], []).explain).toBe('/console/tools?explain=search&surface=openai');
    expect(checkChatGptTools([], [good]).explain).toBe('/console/tools?explain=search&surface=claude');
    expect(checkClaudeTools([]).explain).toBe('/console/tools?explain=&surface=claude');
    expect(checkChatGptTools([good], [good]).explain).toBeUndefined();
  });

  it("judge hints and titles with the publish gate's rules: a tool the gate lets through passes, whatever it leaves optional", () => {
    const annotations = { title: 'Search', readOnlyHint: true, destructiveHint: false, openWorldHint: false };
    // idempotentHint is not required to publish, so Readiness does not fail a published tool for it.
    const definition = { name: 'search', title: 'Search', annotations };
    const served = { name: 'search', ...servedTitles(definition) };
    expect(toolProblems({ definition, findings: 0, published: false })).toEqual([]);
    expect(checkToolHints([served]).status).toBe('pass');
    expect(checkToolTitles([served]).status).toBe('pass');
    // And what the gate refuses, Readiness fails, naming the field that fixes it.
    const hintless = { name: 'drop', title: 'Drop', annotations: { title: 'Drop', readOnlyHint: false } };
    expect(toolProblems({ definition: hintless, findings: 0, published: false }).map((p) => p.field)).toEqual([
      'destructiveHint',
      'openWorldHint',
    ]);
    expect(checkToolHints([hintless])).toMatchObject({ status: 'fail', tools: [{ name: 'drop', field: 'destructiveHint' }] });
  });

  it('name the field that fixes each tool, and bound the list', () => {
    expect(
      checkToolTitles([
        { name: 'a', annotations: { title: 'A' } },
        { name: 'b', title: 'B' },
      ]).tools,
    ).toEqual([
      { name: 'a', field: 'title' },
      { name: 'b', field: 'annotations-title' },
    ]);
    const many = Array.from({ length: 60 }, (_, i) => ({ name: `t${i}` }));
    expect(checkToolHints(many).tools).toHaveLength(50);
    expect(checkToolHints([good]).tools).toBeUndefined();
  });

  it('shortens long lists', () => {
    const many = Array.from({ length: 8 }, (_, i) => ({ name: `t${i}`, securitySchemes: [] }));
    expect(checkNoSecuritySchemes(many).reason).toMatch(/"t4" and 3 more$/);
  });
});

describe('OAuth helpers', () => {
  it('reads resource_metadata from a Bearer challenge, quoted or not', () => {
    expect(resourceMetadataUrl('Bearer realm="x", resource_metadata="https://a.example/.well-known/oauth-protected-resource/mcp"')).toBe(
      'https://a.example/.well-known/oauth-protected-resource/mcp',
    );
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
    expect(asMetadataUrls('https://as.example/')).toEqual([
      'https://as.example/.well-known/oauth-authorization-server',
      'https://as.example/.well-known/openid-configuration',
    ]);
  });
});

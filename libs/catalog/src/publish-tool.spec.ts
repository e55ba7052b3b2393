import { BUILTIN_SURFACES, type SurfaceProfile } from '@switchboard/protocol';
import type { ToolDefinition } from './definitions';
import { publishTool } from './publish-tool';

const { generic, claude, openai } = BUILTIN_SURFACES;

const full: ToolDefinition = {
  name: 'drive_get_file',
  title: 'Read Drive file',
  description: 'Download a file.',
  inputSchema: { type: 'object', properties: { id: { type: 'string' } } },
  outputSchema: { type: 'object' },
  annotations: { readOnlyHint: true },
  icons: [{ src: 'https://x.example/i.png', mimeType: 'image/png' }],
  _meta: { 'openai/outputTemplate': 'ui://w.html', ui: { resourceUri: 'ui://w.html' }, securitySchemes: [{ type: 'oauth2' }] },
  securitySchemes: [{ type: 'oauth2', scopes: ['files:read'] }],
  requiredScopes: ['files:read'],
};

describe('publishTool', () => {
  it('never mutates the definition', () => {
    const before = structuredClone(full);
    for (const s of [generic, claude, openai]) publishTool(full, s, '2026-07-28');
    expect(full).toEqual(before);
  });

  it('never publishes requiredScopes', () => {
    for (const s of [generic, claude, openai]) expect(publishTool(full, s, '2026-07-28')).not.toHaveProperty('requiredScopes');
  });

  it('generic keeps spec-reserved _meta only (no vendor keys, no securitySchemes) and adds nothing', () => {
    expect(publishTool(full, generic, '2025-11-25')).toEqual({
      name: 'drive_get_file',
      title: 'Read Drive file',
      description: 'Download a file.',
      inputSchema: full.inputSchema,
      outputSchema: { type: 'object' },
      annotations: { readOnlyHint: true },
      icons: full.icons,
    });
    const withSpecKey = { ...full, _meta: { ...full._meta, 'io.modelcontextprotocol/related-task': { taskId: 't' } } };
    expect(publishTool(withSpecKey, generic, '2025-11-25')?._meta).toEqual({ 'io.modelcontextprotocol/related-task': { taskId: 't' } });
  });

  it('claude strips _meta and securitySchemes, mirrors the title and fills every hint', () => {
    const t = publishTool(full, claude, '2025-06-18');
    expect(t).not.toHaveProperty('_meta');
    expect(t).not.toHaveProperty('securitySchemes');
    // A read-only tool defaults to non-destructive.
    expect(t?.annotations).toEqual({
      readOnlyHint: true,
      title: 'Read Drive file',
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    });
  });

  it('fills spec defaults for a tool without annotations', () => {
    const t = publishTool({ name: 'x', inputSchema: { type: 'object' } }, claude, '2025-06-18');
    expect(t?.annotations).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true });
    expect(publishTool({ name: 'x', inputSchema: { type: 'object' } }, generic, '2025-06-18')).not.toHaveProperty('annotations');
  });

  it('keeps an explicit annotations.title over the mirrored one', () => {
    const t = publishTool({ ...full, annotations: { title: 'Short' } }, claude, '2025-06-18');
    expect((t?.annotations as { title: string }).title).toBe('Short');
  });

  it('openai publishes securitySchemes top-level and in _meta', () => {
    const t = publishTool({ ...full, _meta: { 'openai/outputTemplate': 'ui://w.html' } }, openai, '2025-06-18');
    expect(t?.securitySchemes).toEqual(full.securitySchemes);
    expect(t?._meta).toEqual({ 'openai/outputTemplate': 'ui://w.html', securitySchemes: full.securitySchemes });
    // An explicit _meta mirror is kept as written.
    expect((publishTool(full, openai, '2025-06-18')?._meta as Record<string, unknown>).securitySchemes).toEqual([{ type: 'oauth2' }]);
  });

  it('leaves out fields a version does not know', () => {
    const v1 = publishTool(full, generic, '2024-11-05');
    expect(Object.keys(v1 ?? {})).toEqual(['name', 'description', 'inputSchema']);
    const v2 = publishTool(full, generic, '2025-03-26');
    expect(Object.keys(v2 ?? {})).toEqual(['name', 'description', 'inputSchema', 'annotations']);
    const v3 = publishTool(full, openai, '2025-06-18');
    expect(Object.keys(v3 ?? {})).toEqual([
      'name',
      'title',
      'description',
      'inputSchema',
      'outputSchema',
      'annotations',
      'securitySchemes',
      '_meta',
    ]);
    expect(Object.keys(publishTool(full, openai, '2025-03-26') ?? {})).toEqual([
      'name',
      'description',
      'inputSchema',
      'annotations',
      'securitySchemes',
    ]);
    const v4 = publishTool(full, generic, '2025-11-25');
    expect(v4).toHaveProperty('icons');
    expect(publishTool(full, generic, '2026-07-28')).toEqual(v4);
  });

  it('mirrors the title into annotations even where top-level title does not exist yet', () => {
    const t = publishTool(full, claude, '2025-03-26');
    expect(t).not.toHaveProperty('title');
    expect((t?.annotations as { title: string }).title).toBe('Read Drive file');
  });

  it('does not publish names outside the charset or over the surface limit', () => {
    expect(publishTool({ name: 'has space', inputSchema: { type: 'object' } }, generic, '2025-06-18')).toBeNull();
    expect(publishTool({ name: 'ünicode', inputSchema: { type: 'object' } }, generic, '2025-06-18')).toBeNull();
    expect(publishTool({ name: '', inputSchema: { type: 'object' } }, generic, '2025-06-18')).toBeNull();
    const long = 'a'.repeat(65);
    expect(publishTool({ name: long, inputSchema: { type: 'object' } }, claude, '2025-06-18')).toBeNull();
    expect(publishTool({ name: long, inputSchema: { type: 'object' } }, generic, '2025-06-18')?.name).toBe(long);
    expect(publishTool({ name: 'a.b-c_D9', inputSchema: { type: 'object' } }, generic, '2025-06-18')?.name).toBe('a.b-c_D9');
  });

  it('cuts long descriptions with an ellipsis', () => {
    const short: SurfaceProfile = { ...generic, id: 'short', maxDescriptionLength: 10 };
    expect(publishTool({ ...full, description: 'abcdefghijKLM' }, short, '2025-06-18')?.description).toBe('abcdefghi…');
    expect(publishTool({ ...full, description: 'abcdefghij' }, short, '2025-06-18')?.description).toBe('abcdefghij');
    expect(publishTool({ ...full, description: '😀😀😀😀😀😀😀😀😀😀😀' }, short, '2025-06-18')?.description).toBe('😀😀😀😀😀😀😀😀😀…');
  });
});

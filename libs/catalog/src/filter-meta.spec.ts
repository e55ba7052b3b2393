import { BUILTIN_SURFACES } from '@switchboard/protocol';
import { filterMeta } from './filter-meta';

const meta = {
  'openai/outputTemplate': 'ui://widget/x.html',
  'openai/toolInvocation/invoking': 'Working…',
  ui: { resourceUri: 'ui://widget/x.html' },
  uiExtra: 1,
  securitySchemes: [{ type: 'noauth' }],
  'acme.com/trace': true,
};

describe('filterMeta', () => {
  it('keeps every key with * except securitySchemes unless asked', () => {
    expect(Object.keys(filterMeta(meta, ['*'], false) ?? {})).toEqual([
      'openai/outputTemplate',
      'openai/toolInvocation/invoking',
      'ui',
      'uiExtra',
      'acme.com/trace',
    ]);
    expect(filterMeta(meta, ['*'], true)?.securitySchemes).toEqual([{ type: 'noauth' }]);
  });

  it('keeps exact keys and prefixes ending in a slash', () => {
    expect(filterMeta(meta, ['ui', 'openai/'], false)).toEqual({
      'openai/outputTemplate': 'ui://widget/x.html',
      'openai/toolInvocation/invoking': 'Working…',
      ui: { resourceUri: 'ui://widget/x.html' },
    });
  });

  it('the generic surface keeps spec-reserved keys only, never vendor keys', () => {
    const withSpecKey = { ...meta, 'io.modelcontextprotocol/related-task': { taskId: 't1' } };
    expect(filterMeta(withSpecKey, BUILTIN_SURFACES.generic.keepMetaKeys, false)).toEqual({
      'io.modelcontextprotocol/related-task': { taskId: 't1' },
    });
    expect(filterMeta(meta, BUILTIN_SURFACES.generic.keepMetaKeys, false)).toBeUndefined();
  });

  it('strips _meta for an empty rule list, and when nothing survives', () => {
    expect(filterMeta(meta, [], true)).toBeUndefined();
    expect(filterMeta(meta, ['other/'], false)).toBeUndefined();
    expect(filterMeta(undefined, ['*'], true)).toBeUndefined();
  });

  it('does not modify its input', () => {
    const copy = structuredClone(meta);
    filterMeta(meta, ['ui'], false);
    expect(meta).toEqual(copy);
  });
});

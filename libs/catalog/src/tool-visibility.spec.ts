import { BUILTIN_SURFACES, type SurfaceProfile } from '@switchboard/protocol';
import type { ToolEntry } from './definitions';
import { publishList } from './list-page';
import { discoveryRule, maxToolsRule, nameCharsetRule, nameLengthRule, retiredRule } from './tool-visibility';

const entry = (name: string, unlisted = false): ToolEntry => ({
  definition: { name, inputSchema: { type: 'object' } },
  route: { kind: 'local', handler: name },
  ...(unlisted ? { unlisted: true } : {}),
});

describe('tool visibility rules', () => {
  const claude: SurfaceProfile = { ...BUILTIN_SURFACES.claude, maxTools: 2 };

  it('judges each rule on its own input', () => {
    expect([nameCharsetRule('create_invoice'), nameCharsetRule('create invoice')]).toEqual(['pass', 'hide']);
    expect([nameLengthRule('x'.repeat(64), claude), nameLengthRule('x'.repeat(65), claude)]).toEqual(['pass', 'hide']);
    expect([retiredRule(entry('a')), retiredRule(entry('a', true))]).toEqual(['pass', 'hide']);
    expect([maxToolsRule(1, claude), maxToolsRule(2, claude), maxToolsRule(5_000, BUILTIN_SURFACES.generic)]).toEqual([
      'pass',
      'hide',
      'pass',
    ]);
    expect([discoveryRule(false, new Set(), 'a'), discoveryRule(true, new Set(['a']), 'a'), discoveryRule(true, new Set(), 'a')]).toEqual([
      'pass',
      'pass',
      'hide',
    ]);
  });

  it('are what the list compiler filters with', () => {
    const tools = [entry('bad name'), entry('old', true), entry('x'.repeat(65)), entry('first'), entry('second'), entry('third')];
    const snapshot = {
      tenantId: 't',
      version: 'v',
      server: { name: 't', version: '1' },
      tools,
      resources: [],
      resourceTemplates: [],
      prompts: [],
    };
    expect(publishList(snapshot, 'tools/list', claude, '2025-11-25', undefined).keys).toEqual(['first', 'second']);
  });
});

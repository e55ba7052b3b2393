import { McpError } from '@switchboard/protocol';
import { requireClientCapabilities } from './require-client-capabilities';

function refusal(
  required: string[] | undefined,
  caps: Record<string, unknown> | undefined,
  era: 'modern' | 'legacy' = 'modern',
): McpError | undefined {
  try {
    requireClientCapabilities('t', required, caps, era);
    return undefined;
  } catch (err) {
    return err as McpError;
  }
}

describe('requireClientCapabilities', () => {
  it('lets an ungated tool through for any client, even one with no capabilities known', () => {
    expect(refusal(undefined, undefined)).toBeUndefined();
    expect(refusal([], undefined)).toBeUndefined();
  });

  it('names every missing capability, with the era’s status', () => {
    const modern = refusal(['sampling', 'roots'], { roots: {} });
    expect(modern).toMatchObject({
      code: -32021,
      httpStatus: 400,
      message: 'Tool t needs the client capability sampling, which this client did not declare',
      data: { requiredCapabilities: ['sampling', 'roots'], missing: ['sampling'] },
    });
    const legacy = refusal(['sampling', 'roots'], undefined, 'legacy');
    expect(legacy).toMatchObject({
      code: -32021,
      httpStatus: 200,
      message: 'Tool t needs the client capabilities sampling, roots, which this client did not declare in initialize',
    });
  });

  it('reads URL-mode elicitation from the elicitation object, not from elicitation alone', () => {
    expect(refusal(['elicitation', 'elicitation.url'], { elicitation: {} })?.data).toMatchObject({ missing: ['elicitation.url'] });
    expect(refusal(['elicitation', 'elicitation.url'], { elicitation: { url: {} } })).toBeUndefined();
  });

  it('knows tasks in both shapes, and refuses it anyway as not relayed', () => {
    for (const caps of [{ tasks: { requests: {} } }, { extensions: { 'io.modelcontextprotocol/tasks': {} } }]) {
      const err = refusal(['sampling', 'tasks'], { sampling: {}, ...caps });
      expect(err).toMatchObject({ code: -32021, data: { notRelayed: ['tasks'] } });
      expect(err?.message).toContain('which this gateway does not relay');
    }
    expect(refusal(['tasks'], { sampling: {} })?.data).toMatchObject({ missing: ['tasks'] });
  });
});

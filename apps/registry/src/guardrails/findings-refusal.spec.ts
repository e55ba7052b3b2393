import { findingsRefusal } from './findings-refusal';
import type { PoisonFinding } from './scan-definition';

const high: PoisonFinding = {
  id: 'unicode.zero-width@/description',
  rule: 'unicode.zero-width',
  severity: 'high',
  pointer: '/description',
  message: 'contains zero-width characters (invisible text)',
  excerpt: 'a\\u{200B}b',
};
const medium: PoisonFinding = {
  id: 'hidden.html-comment@/title',
  rule: 'hidden.html-comment',
  severity: 'medium',
  pointer: '/title',
  message: 'contains an HTML comment',
  excerpt: '<!--',
};
const base = { kind: 'tool', name: 'add', at: 'body.items.2' };

describe('findingsRefusal', () => {
  it('lets an item without findings through, whatever the setting', () => {
    expect(findingsRefusal({ ...base, findings: [], acknowledged: false, blockPoisoned: true })).toBeUndefined();
  });

  it('asks for the acknowledgement, naming the field and the rules', () => {
    const err = findingsRefusal({ ...base, findings: [high, medium], acknowledged: false, blockPoisoned: false });
    expect(err).toMatchObject({
      status: 409,
      code: 'FINDINGS_UNACKNOWLEDGED',
      field: 'body.items.2.acknowledgeFindings',
      details: { findings: [high, medium] },
    });
    expect(err?.message).toBe(
      'body.items.2.acknowledgeFindings: tool "add" has 2 poisoned-tool finding(s) (unicode.zero-width, hidden.html-comment); review them and set acknowledgeFindings: true to publish it',
    );
    expect(findingsRefusal({ ...base, findings: [high, medium], acknowledged: true, blockPoisoned: false })).toBeUndefined();
  });

  it('with blockPoisoned refuses a high finding even acknowledged, naming the rule; medium ones only need the acknowledgement', () => {
    const err = findingsRefusal({ ...base, findings: [medium, high], acknowledged: true, blockPoisoned: true });
    expect(err).toMatchObject({ status: 409, code: 'POISONED_TOOL_BLOCKED', field: 'body.items.2.name', details: { findings: [high] } });
    expect(err?.message).toMatch(
      /^body\.items\.2\.name: tool "add" cannot be published: rule unicode\.zero-width \(high\) at \/description — /,
    );
    expect(findingsRefusal({ ...base, findings: [medium], acknowledged: true, blockPoisoned: true })).toBeUndefined();
  });
});

import { effectiveAnnotations, missingHints, missingToolHints } from './tool-hints';

describe('tool hints', () => {
  it('lists the required hints a definition does not declare as booleans, in a fixed order', () => {
    expect(missingToolHints({ name: 't' })).toEqual(['readOnlyHint', 'destructiveHint', 'openWorldHint']);
    expect(missingToolHints({ annotations: { readOnlyHint: true } })).toEqual(['destructiveHint', 'openWorldHint']);
    expect(missingToolHints({ annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false } })).toEqual([]);
    // Not a boolean is not declared (a string "false" is as good as nothing).
    expect(missingHints({ readOnlyHint: 'false', destructiveHint: null, openWorldHint: 1 })).toEqual([
      'readOnlyHint',
      'destructiveHint',
      'openWorldHint',
    ]);
    expect(missingToolHints({ annotations: ['readOnlyHint'] })).toHaveLength(3);
    expect(missingToolHints(null)).toHaveLength(3);
  });

  it('merges overrides over the upstream annotations, the override winning', () => {
    const def = { annotations: { title: 'T', readOnlyHint: true, destructiveHint: true } };
    const eff = effectiveAnnotations(def, { destructiveHint: false, openWorldHint: true });
    expect(eff).toEqual({ title: 'T', readOnlyHint: true, destructiveHint: false, openWorldHint: true });
    expect(missingHints(eff)).toEqual([]);
    expect(missingHints(effectiveAnnotations(def))).toEqual(['openWorldHint']);
  });
});

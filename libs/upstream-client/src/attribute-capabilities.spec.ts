import { attributeCapabilities } from './attribute-capabilities';
import { discoveryCapabilities, PROBED_CAPABILITIES, type ProbedCapability } from './discovery-capabilities';

describe('capability probe', () => {
  it('leaves exactly one capability out of the full declaration', () => {
    expect(Object.keys(discoveryCapabilities('sampling')).sort()).toEqual(['elicitation', 'extensions', 'roots', 'tasks']);
    expect(discoveryCapabilities('elicitation.url').elicitation).toEqual({ form: {} });
    expect(Object.keys(discoveryCapabilities('tasks')).sort()).toEqual(['elicitation', 'roots', 'sampling']);
    // A fresh object each time: leaving one out never changes another probe's declaration.
    expect(discoveryCapabilities().elicitation).toEqual({ form: {}, url: {} });
  });

  it('attributes each gated tool to every capability whose absence hides it', () => {
    const full = ['echo', 'roots_tool', 'url_tool', 'async_tool', 'anyof_tool'];
    const bare = ['echo'];
    const present: Record<ProbedCapability, string[]> = {
      sampling: ['echo', 'roots_tool', 'url_tool', 'anyof_tool'],
      elicitation: ['echo', 'roots_tool', 'anyof_tool'],
      'elicitation.url': ['echo', 'roots_tool', 'async_tool', 'anyof_tool'],
      roots: ['echo', 'url_tool', 'async_tool', 'anyof_tool'],
      tasks: ['echo', 'roots_tool', 'url_tool', 'anyof_tool'],
    };
    const without = new Map(PROBED_CAPABILITIES.map((c) => [c, present[c]] as const));
    expect(Object.fromEntries(attributeCapabilities(full, bare, without))).toEqual({
      roots_tool: ['roots'],
      url_tool: ['elicitation', 'elicitation.url'],
      async_tool: ['elicitation', 'sampling', 'tasks'],
      // Shown whenever any one capability is declared: no single one explains it, so it is left ungated.
    });
  });

  it('attributes nothing when every tool is listed without capabilities', () => {
    expect(attributeCapabilities(['a', 'b'], ['b', 'a'], new Map()).size).toBe(0);
  });
});

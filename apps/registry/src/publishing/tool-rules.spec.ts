import { checkToolHints, checkToolTitles } from '../readiness/check-tools';
import { TOOL_RULES, missingRequiredHints, servedTitles, titleGaps, toolProblems } from './tool-rules';

const hinted = {
  readOnlyHint: true,
  destructiveHint: false,
  openWorldHint: false,
};

describe('tool rules', () => {
  it('hints-required blocks each required hint the tool lacks, and overrides fill them', () => {
    expect(TOOL_RULES['hints-required'].level).toBe('block');
    const def = { name: 'a', title: 'A', annotations: { readOnlyHint: true } };
    const problems = toolProblems({
      definition: def,
      findings: 0,
      published: false,
    });
    expect(problems).toEqual([
      {
        rule: 'hints-required',
        level: 'block',
        field: 'destructiveHint',
        message: 'State whether it is destructive',
      },
      {
        rule: 'hints-required',
        level: 'block',
        field: 'openWorldHint',
        message: 'State whether it is open world',
      },
    ]);
    expect(
      missingRequiredHints(def, {
        annotations: { destructiveHint: false, openWorldHint: 'no' },
      }),
    ).toEqual(['openWorldHint']);
    expect(
      toolProblems({
        definition: def,
        overrides: {
          annotations: { destructiveHint: false, openWorldHint: true },
        },
        findings: 0,
        published: false,
      }),
    ).toEqual([]);
  });

  it('title warns when the served tool lacks title or annotations.title, and the surface mirror counts', () => {
    expect(TOOL_RULES.title.level).toBe('warn');
    const bare = { name: 'a', annotations: { ...hinted } };
    expect(toolProblems({ definition: bare, findings: 0, published: true })).toEqual([
      {
        rule: 'title',
        level: 'warn',
        field: 'title',
        message: 'Give it a title (Claude shows it; Readiness checks it)',
      },
    ]);
    // An override title is mirrored into annotations.title by the claude surface: nothing to fix.
    expect(
      toolProblems({
        definition: bare,
        overrides: { title: 'A' },
        findings: 0,
        published: true,
      }),
    ).toEqual([]);
    // annotations.title alone leaves `title` empty, which Readiness fails.
    expect(titleGaps(servedTitles({ name: 'a', annotations: { title: 'A' } }))).toEqual({ title: true, annotationTitle: false });
    // An explicitly empty annotations.title is not replaced by the mirror.
    expect(titleGaps(servedTitles({ name: 'a', title: 'A', annotations: { title: '' } }))).toEqual({ title: false, annotationTitle: true });
  });

  it('findings block only a tool that is not published yet', () => {
    expect(TOOL_RULES.findings.level).toBe('block');
    const def = { name: 'a', title: 'A', annotations: { ...hinted } };
    expect(toolProblems({ definition: def, findings: 2, published: false })).toEqual([
      {
        rule: 'findings',
        level: 'block',
        field: 'findings',
        message: 'Review 2 poisoned-tool warnings and acknowledge them',
      },
    ]);
    expect(toolProblems({ definition: def, findings: 2, published: true })).toEqual([]);
  });

  it('Readiness reaches the same title verdict as the rule for the tool as served', () => {
    const cases = [
      { definition: { name: 'a', annotations: hinted } },
      { definition: { name: 'a', title: 'A', annotations: hinted } },
      { definition: { name: 'a', annotations: { ...hinted, title: 'A' } } },
      {
        definition: { name: 'a', annotations: hinted },
        overrides: { title: 'A' },
      },
      {
        definition: { name: 'a', title: 'A', annotations: hinted },
        overrides: { annotations: { title: '' } },
      },
    ];
    for (const c of cases) {
      const warned = toolProblems({ ...c, findings: 0, published: true }).some((p) => p.rule === 'title');
      const served = { name: 'a', ...servedTitles(c.definition, c.overrides) };
      expect(checkToolTitles([served]).status === 'fail').toBe(warned);
    }
  });

  it('a tool the publish gate passes has the required hints Readiness checks', () => {
    const def = {
      name: 'a',
      title: 'A',
      annotations: { ...hinted, idempotentHint: true },
    };
    expect(missingRequiredHints(def)).toEqual([]);
    expect(checkToolHints([{ name: 'a', ...servedTitles(def) }]).status).toBe('pass');
    const lacking = {
      name: 'a',
      title: 'A',
      annotations: { idempotentHint: true },
    };
    expect(missingRequiredHints(lacking).length).toBeGreaterThan(0);
    expect(checkToolHints([{ name: 'a', ...servedTitles(lacking) }]).status).toBe('fail');
  });
});

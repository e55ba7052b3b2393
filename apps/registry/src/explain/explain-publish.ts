import { retiredRule, type ToolEntry } from '@switchboard/catalog';
import { patternIssues } from '../publishing/pattern-issues';
import { toolProblems } from '../publishing/tool-rules';
import { FIX, type ExplainStep, type TenantFacts, type ToolFacts } from './explain-types';

/** The publish stage's steps and the live snapshot's entry of the tool (undefined: not in the live catalog). */
export function publishSteps(t: TenantFacts, f: ToolFacts): { steps: ExplainStep[]; entry: ToolEntry | undefined } {
  const steps: ExplainStep[] = [discoveredStep(f)];
  const candidate = f.discovered.find((d) => !d.removed);
  steps.push(publishChecksStep(f, candidate));
  steps.push(publishedStep(f, candidate));
  steps.push(exposedNameStep(f));
  steps.push(changeReviewStep(f));
  const entry = t.snapshot?.tools.find((e) => e.definition.name === f.name);
  steps.push(liveStep(t, f, entry));
  steps.push(retiredStep(entry));
  return { steps, entry };
}

/** Rule `discovered`: some server of the tenant found the tool (and still has it). */
function discoveredStep(f: ToolFacts): ExplainStep {
  const servers = f.discovered.map((d) => ({ server: d.serverId, name: d.key, removed: d.removed }));
  const base = { rule: 'discovered' as const, stage: 'publish' as const, input: { servers } };
  if (f.discovered.some((d) => !d.removed)) return { ...base, verdict: 'pass', message: 'Discovery found the tool on a server' };
  if (f.discovered.length > 0)
    return { ...base, verdict: 'hide', message: 'The server no longer lists the tool (removed upstream)', fix: FIX.servers };
  if (f.publication) return { ...base, verdict: 'pass', message: 'Published from a server' };
  return { ...base, verdict: 'hide', message: `No server of this tenant lists a tool named "${f.name}"`, fix: FIX.servers };
}

/** Rule `publish-checks`: the publish gate's per-tool rules (tool-rules.ts) and unsupported schema patterns. */
function publishChecksStep(f: ToolFacts, candidate: ToolFacts['discovered'][number] | undefined): ExplainStep {
  const base = { rule: 'publish-checks' as const, stage: 'publish' as const };
  const pub = f.publication;
  const def = pub ? pub.approvedDefinition : candidate?.definition;
  if (!def) return { ...base, verdict: 'skip', input: {}, message: 'Nothing discovered to check' };
  const problems = toolProblems({
    definition: def,
    overrides: pub?.overrides,
    findings: candidate?.findings ?? 0,
    published: pub !== undefined,
  });
  const patterns = patternIssues(def).map((p) => `${p.pointer}: ${p.reason}`);
  const blocking = problems.filter((p) => p.level === 'block');
  const input = { problems: problems.map((p) => ({ rule: p.rule, level: p.level, field: p.field })), patterns };
  const server = pub?.serverId ?? candidate?.serverId ?? '';
  const key = pub?.key ?? candidate?.key ?? f.name;
  if (blocking.length > 0 || patterns.length > 0) {
    const what = [...blocking.map((p) => p.message), ...patterns.map((p) => `unsupported pattern ${p}`)].join('; ');
    return {
      ...base,
      verdict: pub ? 'warn' : 'hide',
      input,
      message: `Publishing refuses it: ${what}`,
      fix: FIX.tool(server, key, blocking[0]?.field),
    };
  }
  if (problems.length > 0)
    return {
      ...base,
      verdict: 'warn',
      input,
      message: problems.map((p) => p.message).join('; '),
      fix: FIX.tool(server, key, problems[0]?.field),
    };
  return { ...base, verdict: 'pass', input, message: 'Passes the publish checks (hints, title, findings, patterns)' };
}

/** Rule `published`: the tenant chose to publish it (registry.publications). */
function publishedStep(f: ToolFacts, candidate: ToolFacts['discovered'][number] | undefined): ExplainStep {
  const pub = f.publication;
  const base = { rule: 'published' as const, stage: 'publish' as const };
  if (pub) return { ...base, verdict: 'pass', input: { server: pub.serverId, name: pub.key }, message: `Published from ${pub.serverId}` };
  return {
    ...base,
    verdict: 'hide',
    input: { server: candidate?.serverId ?? null },
    message: 'Not published: a discovered tool reaches clients only once it is published',
    ...(candidate ? { fix: FIX.tool(candidate.serverId, candidate.key) } : {}),
  };
}

/** Rule `exposed-name`: the name clients see differs from the asked one (a collision prefix or a rename). */
function exposedNameStep(f: ToolFacts): ExplainStep {
  const pub = f.publication;
  const base = { rule: 'exposed-name' as const, stage: 'publish' as const };
  if (!pub) return { ...base, verdict: 'skip', input: {}, message: 'Not published' };
  const input = { upstreamName: pub.key, exposedName: pub.exposedName };
  if (pub.exposedName !== f.name)
    return {
      ...base,
      verdict: 'hide',
      input,
      message: `Clients see it as "${pub.exposedName}" (another server publishes "${f.name}", or it was renamed)`,
      fix: FIX.tool(pub.serverId, pub.key, 'exposedName'),
    };
  const renamed = pub.key !== pub.exposedName ? ` (upstream "${pub.key}")` : '';
  return { ...base, verdict: 'pass', input, message: `Exposed as "${pub.exposedName}"${renamed}` };
}

/** Rule `change-review`: the upstream changed the definition; the approved one is served until the change is reviewed. */
function changeReviewStep(f: ToolFacts): ExplainStep {
  const pub = f.publication;
  const base = { rule: 'change-review' as const, stage: 'publish' as const };
  const found = pub ? f.discovered.find((d) => d.serverId === pub.serverId && d.key === pub.key && !d.removed) : undefined;
  if (!pub || !found) return { ...base, verdict: 'skip', input: {}, message: 'No live upstream definition to compare' };
  const input = { approvedHash: pub.approvedHash, discoveredHash: found.contentHash };
  if (pub.approvedHash === found.contentHash)
    return { ...base, verdict: 'pass', input, message: 'The served definition is the upstream one' };
  return {
    ...base,
    verdict: 'warn',
    input,
    message: 'An upstream change waits for review: clients get the approved (older) definition until it is approved',
    fix: FIX.review,
  };
}

/** Rule `live`: the tool is in the tenant's current published snapshot (what every gateway serves). */
function liveStep(t: TenantFacts, f: ToolFacts, entry: ToolEntry | undefined): ExplainStep {
  const base = { rule: 'live' as const, stage: 'publish' as const, input: { version: t.snapshot?.version ?? null } };
  if (entry) return { ...base, verdict: 'pass', message: 'In the live catalog' };
  if (!t.snapshot) return { ...base, verdict: 'hide', message: 'The tenant has not published a catalog yet', fix: FIX.publish };
  return {
    ...base,
    verdict: 'hide',
    message: `"${f.name}" is not in the live catalog; a call answers unknown tool`,
    fix: f.publication ? FIX.tool(f.publication.serverId, f.publication.key) : FIX.publish,
  };
}

/** Rule `retired`: a renamed or removed tool in its grace period: callable by its old name, never listed. */
function retiredStep(entry: ToolEntry | undefined): ExplainStep {
  const base = { rule: 'retired' as const, stage: 'publish' as const };
  if (!entry) return { ...base, verdict: 'skip', input: {}, message: 'Not in the live catalog' };
  const input = { unlisted: entry.unlisted === true };
  if (retiredRule(entry) === 'pass') return { ...base, verdict: 'pass', input, message: 'A current tool, not a retired name' };
  return {
    ...base,
    verdict: 'hide',
    input,
    message: 'A retired name in its grace period: callable by clients that cached it, left out of tools/list',
    fix: FIX.publish,
  };
}

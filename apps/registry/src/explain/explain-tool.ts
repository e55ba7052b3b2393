import { callSteps } from './explain-call';
import { listContext, listedStep, listSteps, type ListContext } from './explain-list';
import { publishSteps } from './explain-publish';
import type { ExplainStep, TenantFacts, ToolExplanation, ToolFacts } from './explain-types';

const BLOCKS_LIST = new Set(['hide', 'refuse']);

/**
 * The ordered rules for one tool on one surface, version and caller: the publish stage
 * (registry facts), the list stage (the live snapshot compiled as a gateway compiles it) and the
 * call stage. `ctx` is the compiled list of the request (one per request, shared by its tools).
 */
export function explainTool(t: TenantFacts, f: ToolFacts, ctx: ListContext | undefined = listContext(t)): ToolExplanation {
  const { steps, entry } = publishSteps(t, f);
  const rules: ExplainStep[] = [...steps];
  let listed = false;
  let callable: ToolExplanation['callable'] = 'no';
  if (entry && ctx) {
    const list = listSteps(t, ctx, entry);
    // Predicted from the rules alone; the `listed` step then reads the compiled list itself.
    const predicted = ![...rules, ...list].some((s) => BLOCKS_LIST.has(s.verdict));
    rules.push(...list, listedStep(ctx, entry.definition.name, predicted));
    listed = ctx.listedNames.has(entry.definition.name);
    const call = callSteps(t, entry);
    rules.push(...call);
    callable = call.some((s) => s.verdict === 'refuse') ? 'no' : call.some((s) => s.verdict === 'conditional') ? 'depends' : 'yes';
  }
  const pub = f.publication;
  const found = f.discovered[0];
  return {
    tool: f.name,
    ...(pub ? { server: pub.serverId, upstreamName: pub.key } : found ? { server: found.serverId, upstreamName: found.key } : {}),
    surface: ctx?.surfaceKey ?? t.surfaceId,
    version: t.version,
    listed,
    callable,
    rules,
  };
}

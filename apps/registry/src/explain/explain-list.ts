import {
  CompiledCatalog,
  ToolDiscovery,
  discoveryRule,
  maxToolsRule,
  nameCharsetRule,
  nameLengthRule,
  publishTool,
  retiredRule,
  surfaceDiscovery,
  type ListVerdict,
  type ToolEntry,
} from '@switchboard/catalog';
import type { SurfaceProfile } from '@switchboard/protocol';
import { FIX, type ExplainStep, type TenantFacts } from './explain-types';

/**
 * The live snapshot compiled as a gateway compiles it (CompiledCatalog + ToolDiscovery), once per
 * request, and the names its first `tools/list` carries on the asked surface and version.
 */
export interface ListContext {
  surfaceKey: string;
  surface: SurfaceProfile;
  discovery: ToolDiscovery | undefined;
  listedNames: ReadonlySet<string>;
}

export function listContext(t: TenantFacts): ListContext | undefined {
  if (!t.snapshot) return undefined;
  const catalog = CompiledCatalog.build(t.snapshot, { surfaces: t.surfaces, pageSize: 100_000 });
  const discovery = ToolDiscovery.build(catalog, t.discovery, t.surfaces);
  const surfaceKey = Object.hasOwn(t.surfaces, t.surfaceId) ? t.surfaceId : 'generic';
  const page = discovery?.listPage(surfaceKey, t.version) ?? catalog.listPage('tools/list', surfaceKey, t.version);
  const bytes = page.tail ? Buffer.concat([page.body, page.tail]) : page.body;
  const tools = (JSON.parse(bytes.toString('utf8')) as { tools: { name: string }[] }).tools;
  return { surfaceKey, surface: t.surfaces[surfaceKey] as SurfaceProfile, discovery, listedNames: new Set(tools.map((x) => x.name)) };
}

const hidden = (v: ListVerdict) => (v === 'pass' ? 'pass' : 'hide');

/** The list stage's steps for a live entry: the surface rules, discovery mode and the compiled list itself. */
export function listSteps(t: TenantFacts, ctx: ListContext, entry: ToolEntry): ExplainStep[] {
  const name = entry.definition.name;
  const { surface } = ctx;
  const steps: ExplainStep[] = [surfaceStep(t, ctx)];
  const charset = nameCharsetRule(name);
  steps.push({
    rule: 'name-charset',
    stage: 'list',
    verdict: hidden(charset),
    input: { name },
    message: charset === 'pass' ? 'The name uses only A-Z a-z 0-9 _ . -' : 'The name has characters outside A-Z a-z 0-9 _ . -',
    ...(charset === 'pass' ? {} : { fix: FIX.publish }),
  });
  const length = nameLengthRule(name, surface);
  steps.push({
    rule: 'name-length',
    stage: 'list',
    verdict: hidden(length),
    input: { length: name.length, maxNameLength: surface.maxNameLength },
    message:
      length === 'pass'
        ? `${name.length} characters fit the surface's ${surface.maxNameLength}`
        : `${name.length} characters are more than ${surface.id} accepts (${surface.maxNameLength}); give it a shorter exposed name`,
    ...(length === 'pass' ? {} : { fix: FIX.surfaces }),
  });
  steps.push(maxToolsStep(t, ctx, entry));
  steps.push(discoveryStep(t, ctx, name));
  return steps;
}

/** The observed outcome: whether the compiled first page carries the tool (and whether the rules predicted it). */
export function listedStep(ctx: ListContext, name: string, predicted: boolean): ExplainStep {
  const listed = ctx.listedNames.has(name);
  const agree = listed === predicted ? '' : ' (the rules above disagree: please report this)';
  return {
    rule: 'listed',
    stage: 'list',
    verdict: listed ? 'pass' : 'hide',
    input: { listedCount: ctx.listedNames.size },
    message: `${listed ? 'In' : 'Not in'} the first tools/list this surface receives${agree}`,
  };
}

function surfaceStep(t: TenantFacts, ctx: ListContext): ExplainStep {
  const known = ctx.surfaceKey === t.surfaceId;
  const { id, maxNameLength, maxTools } = ctx.surface;
  return {
    rule: 'surface',
    stage: 'list',
    verdict: known ? 'pass' : 'warn',
    input: { asked: t.surfaceId, used: id, maxNameLength, maxTools },
    message: known ? `Surface ${id}` : `No surface "${t.surfaceId}": its clients get the generic surface`,
    ...(known ? {} : { fix: FIX.surfaces }),
  };
}

/** Rule `max-tools`: the entries before it that the surface lists (the same rules the compiler counts with). */
function maxToolsStep(t: TenantFacts, ctx: ListContext, entry: ToolEntry): ExplainStep {
  let before = 0;
  for (const e of (t.snapshot as NonNullable<TenantFacts['snapshot']>).tools) {
    if (e === entry) break;
    if (retiredRule(e) === 'pass' && publishTool(e.definition, ctx.surface, t.version) !== null) before++;
  }
  const verdict = maxToolsRule(before, ctx.surface);
  return {
    rule: 'max-tools',
    stage: 'list',
    verdict: hidden(verdict),
    input: { listedBefore: before, maxTools: ctx.surface.maxTools },
    message:
      verdict === 'pass'
        ? ctx.surface.maxTools === 0
          ? 'The surface lists any number of tools'
          : `${before} tools come before it; the surface lists ${ctx.surface.maxTools}`
        : `The surface lists its first ${ctx.surface.maxTools} tools and ${before} come before this one`,
    ...(verdict === 'pass' ? {} : { fix: FIX.surfaces }),
  };
}

/** Rule `discovery`: in discovery mode only the meta-tools and pinned tools are listed; the rest stay searchable and callable. */
function discoveryStep(t: TenantFacts, ctx: ListContext, name: string): ExplainStep {
  const setting = surfaceDiscovery(t.discovery, ctx.surfaceKey);
  const active = ctx.discovery?.active(ctx.surfaceKey, t.version) ?? false;
  const verdict = discoveryRule(active, new Set(setting.pinned), name);
  const input = { mode: setting.mode, threshold: setting.threshold, active, pinned: setting.pinned.includes(name) };
  if (!active) return { rule: 'discovery', stage: 'list', verdict: 'pass', input, message: 'The surface serves its full list' };
  return {
    rule: 'discovery',
    stage: 'list',
    verdict: hidden(verdict),
    input,
    message:
      verdict === 'pass'
        ? 'Discovery mode is on and the tool is pinned'
        : `Discovery mode is on: the model finds it with ${ctx.discovery?.names.search ?? 'search_tools'} and can call it by name; pin it to list it`,
    ...(verdict === 'pass' ? {} : { fix: FIX.discovery }),
  };
}

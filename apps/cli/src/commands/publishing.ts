import type { AnnotationOverrides, PublishBody } from '@switchboard/admin-api';
import { usageError } from '../exit-codes';
import { table } from '../output';
import { str, type Command, type CommandContext } from './command';

const KINDS = ['tool', 'prompt', 'resource', 'resource_template'] as const;
type Kind = (typeof KINDS)[number];

function kind(ctx: CommandContext): Kind {
  const k = str(ctx.flags, 'kind') ?? 'tool';
  if (!(KINDS as readonly string[]).includes(k)) throw usageError(`--kind: "${k}" is not one of ${KINDS.join(', ')}`, 'kind');
  return k as Kind;
}

/** `--annotations '{"readOnlyHint":true,…}'`: hint overrides for every item published by this command. */
function annotations(ctx: CommandContext): AnnotationOverrides | undefined {
  const raw = str(ctx.flags, 'annotations');
  if (raw === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw usageError('--annotations: not JSON (e.g. {"readOnlyHint":true,"destructiveHint":false,"openWorldHint":false})', 'annotations');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw usageError('--annotations: must be a JSON object', 'annotations');
  return parsed as AnnotationOverrides;
}

const publish: Command = {
  name: 'publish',
  summary: "Publish discovered items of a server on the tenant's MCP endpoint",
  args: '<server> <name>...',
  positionals: { min: 2, max: 1000 },
  options: {
    kind: { type: 'string', value: '<kind>', description: 'tool | prompt | resource | resource_template (default tool)' },
    annotations: {
      type: 'string',
      value: '<json>',
      description: 'annotation overrides for every item, e.g. the three hints publishing requires',
    },
  },
  async run(ctx) {
    const [serverId, ...names] = ctx.args;
    const overrides = annotations(ctx);
    const k = kind(ctx);
    const items = names.map((name) => ({ kind: k, name, ...(overrides ? { overrides: { annotations: overrides } } : {}) }));
    const body = { serverId, items } as PublishBody;
    const result = await ctx.client().call('publish', { body });
    ctx.print(
      result,
      (r) =>
        `published version ${r.version} (${r.tools} tools)\n${table(
          ['NAME', 'EXPOSED AS'],
          r.items.map((i) => [(i as { name?: string }).name, i.exposedName]),
        )}`,
    );
  },
};

const preview: Command = {
  name: 'preview',
  summary: 'What a client surface receives from the live publication',
  positionals: { min: 0, max: 0 },
  options: {
    surface: { type: 'string', value: '<id>', description: 'generic | claude | openai | a tenant surface (default: all)' },
    'protocol-version': { type: 'string', value: '<v>', description: 'MCP protocol version to render for (default 2025-11-25)' },
  },
  async run(ctx) {
    const result = await ctx
      .client()
      .call('getPreview', { query: { surface: str(ctx.flags, 'surface'), version: str(ctx.flags, 'protocol-version') } });
    ctx.print(result, (p) =>
      Object.entries(p.surfaces)
        .map(
          ([id, s]) =>
            `${id} (${s.profile.label}):\n${table(
              ['TOOL', 'TITLE'],
              s.tools.map((t) => [String(t.name), (t.title as string | undefined) ?? null]),
            )}`,
        )
        .join('\n\n'),
    );
  },
};

const changes: Command = {
  name: 'changes',
  summary: 'Upstream changes of published items held for review',
  positionals: { min: 0, max: 0 },
  async run(ctx) {
    const { changes: rows } = await ctx.client().call('listChanges');
    ctx.print(rows, (r) =>
      table(
        ['SERVER', 'KIND', 'NAME', 'EXPOSED AS', 'CHANGE', 'FIELDS'],
        r.map((c) => [c.serverId, c.kind, c.name, c.exposedName, c.change, (c.diff ?? []).map((d) => d.path || '/').join(',')]),
      ),
    );
  },
};

const approve: Command = {
  name: 'approve',
  summary: 'Approve a held upstream change (publishes it)',
  args: '<server> <name>',
  positionals: { min: 2, max: 2 },
  options: { kind: { type: 'string', value: '<kind>', description: 'tool | prompt | resource | resource_template (default tool)' } },
  async run(ctx) {
    const [serverId, name] = ctx.args;
    const result = await ctx.client().call('approveChange', { body: { serverId, name, kind: kind(ctx) } });
    ctx.print(result ?? { approved: true }, () => `approved ${serverId}/${name}`);
  },
};

export const PUBLISHING_COMMANDS: Command[] = [publish, preview, changes, approve];

import { writeFile } from 'node:fs/promises';
import { stringify } from 'yaml';
import { usageError, EXIT } from '../exit-codes';
import { applyExitCode, applyPlan, renderApplyReport } from '../tenant-file/apply-plan';
import { exportTenantFile } from '../tenant-file/export-tenant-file';
import { readLiveState } from '../tenant-file/live-state';
import { loadTenantFile } from '../tenant-file/load-tenant-file';
import { planTenant, planView, renderPlan } from '../tenant-file/plan';
import { tenantFileJsonSchema } from '../tenant-file/tenant-file-schema';
import { DISCOVERY_WAIT_MS } from '../tenant-file/wait-for-discovery';
import { str, type Command, type CommandContext, type OptionSpec } from './command';

/** Where editors find the schema (yaml-language-server reads this first-line comment). */
export const SCHEMA_URL = 'https://raw.githubusercontent.com/switchboard/switchboard/main/apps/cli/schema/tenant-file.schema.json';

const FILE_OPTION: Record<string, OptionSpec> = {
  file: { type: 'string', short: 'f', value: '<path>', description: 'the tenant file (YAML) — required' },
};
const ROTATE_OPTION: Record<string, OptionSpec> = {
  'rotate-secrets': {
    type: 'boolean',
    description: 're-send every referenced secret (secrets are write-only, so an unchanged plan cannot see a rotated value)',
  },
};

function fileFlag(ctx: CommandContext): string {
  const file = str(ctx.flags, 'file');
  if (!file) throw usageError('--file: the tenant file is required (-f tenant.yaml)', 'file');
  return file;
}

async function planFor(ctx: CommandContext) {
  const file = await loadTenantFile(fileFlag(ctx));
  const live = await readLiveState(ctx.client());
  return planTenant(file, live, { rotateSecrets: ctx.flags['rotate-secrets'] === true });
}

const plan: Command = {
  name: 'plan',
  summary: 'Show what apply would change in the live tenant (nothing is changed)',
  positionals: { min: 0, max: 0 },
  details: ['Exit 0 whatever the plan, or with --detailed-exitcode: 0 no changes, 8 changes.'],
  options: { ...FILE_OPTION, ...ROTATE_OPTION, 'detailed-exitcode': { type: 'boolean', description: 'exit 8 when the plan has changes' } },
  async run(ctx) {
    const view = planView(await planFor(ctx));
    ctx.print(view, renderPlan);
    return ctx.flags['detailed-exitcode'] && view.changes.length > 0 ? EXIT.changes : EXIT.ok;
  },
};

const apply: Command = {
  name: 'apply',
  summary: 'Make the live tenant match the file (a second apply is a no-op)',
  positionals: { min: 0, max: 0 },
  details: [
    'Secrets are read from the environment variables the file names; all of them are checked before anything changes.',
    'Stops at the first refused step and lists what was applied, what failed and what did not run (exit 7).',
  ],
  options: {
    ...FILE_OPTION,
    ...ROTATE_OPTION,
    'discovery-timeout-ms': {
      type: 'string',
      value: '<ms>',
      description: `how long to wait for each discovery (default ${DISCOVERY_WAIT_MS})`,
    },
  },
  async run(ctx) {
    const p = await planFor(ctx);
    if (!ctx.json) ctx.io.stderr(renderPlan(planView(p)));
    const wait = Number(str(ctx.flags, 'discovery-timeout-ms') ?? DISCOVERY_WAIT_MS);
    if (!Number.isInteger(wait) || wait <= 0)
      throw usageError('--discovery-timeout-ms: must be a positive integer', 'discovery-timeout-ms');
    const { report, cause } = await applyPlan(p, { client: ctx.client(), env: ctx.io.env, discovering: new Set(), discoveryWaitMs: wait });
    ctx.print(report, renderApplyReport);
    return applyExitCode(report, cause);
  },
};

const exportCommand: Command = {
  name: 'export',
  summary: "Write today's tenant as a tenant file (secrets as environment references, never values)",
  positionals: { min: 0, max: 0 },
  options: { file: { type: 'string', short: 'f', value: '<path>', description: 'write here instead of stdout' } },
  async run(ctx) {
    const file = exportTenantFile(await readLiveState(ctx.client()));
    const text = ctx.json
      ? `${JSON.stringify(file, null, 2)}\n`
      : `# yaml-language-server: $schema=${SCHEMA_URL}\n${stringify(file, { lineWidth: 0 })}`;
    const out = str(ctx.flags, 'file');
    if (out) await writeFile(out, text);
    else ctx.io.stdout(text.trimEnd());
  },
};

const schema: Command = {
  name: 'schema',
  summary: 'Print the JSON Schema of the tenant file (for editors)',
  positionals: { min: 0, max: 0 },
  async run(ctx) {
    ctx.io.stdout(JSON.stringify(tenantFileJsonSchema(), null, 2));
  },
};

export const TENANT_FILE_COMMANDS: Command[] = [plan, apply, exportCommand, schema];

import type { FieldChange } from './compare';
import type { LiveState } from './live-state';
import { planServers } from './plan-servers';
import { planSettings } from './plan-settings';
import type { PlanStep } from './plan-step';
import type { TenantFile } from './tenant-file-schema';

export interface PlanOptions {
  /** Re-send every referenced secret (secrets are write-only, so a plan cannot see that one changed). */
  rotateSecrets?: boolean;
}

/** A plan's steps plus its summary. */
export interface Plan {
  tenant: string;
  steps: PlanStep[];
}

/** The JSON form of a plan (`plan --output json`): no closures, no secret values. */
export interface PlanView {
  tenant: string;
  changes: Array<{ action: PlanStep['action']; target: string; fields: FieldChange[]; discovery?: boolean }>;
  summary: { create: number; update: number; delete: number };
  discoveries: string[];
}

/** What applying `file` to the live tenant would do, in apply order. */
export function planTenant(file: TenantFile, live: LiveState, options: PlanOptions = {}): Plan {
  const rotate = options.rotateSecrets ?? false;
  return { tenant: live.tenant.id, steps: [...planSettings(file, live, rotate), ...planServers(file, live, rotate)] };
}

export function planView(plan: Plan): PlanView {
  const count = (a: PlanStep['action']) => plan.steps.filter((s) => s.action === a).length;
  return {
    tenant: plan.tenant,
    changes: plan.steps.map((s) => ({
      action: s.action,
      target: s.target,
      fields: s.changes,
      ...(s.discovers ? { discovery: true } : {}),
    })),
    summary: { create: count('create'), update: count('update'), delete: count('delete') },
    discoveries: plan.steps.flatMap((s) => (s.discovers ? [s.discovers] : [])),
  };
}

const SIGN = { create: '+', update: '~', delete: '-' } as const;
const show = (v: unknown) => (v === undefined ? '(unset)' : JSON.stringify(v));

function fieldLine(c: FieldChange): string {
  const name = c.field || '(value)';
  if (c.before === undefined) return `      + ${name}: ${show(c.after)}`;
  if (c.after === undefined) return `      - ${name}: ${show(c.before)}`;
  return `      ~ ${name}: ${show(c.before)} → ${show(c.after)}`;
}

/** The plan for a terminal: one block per step with its fields, then a summary line. */
export function renderPlan(view: PlanView): string {
  if (view.changes.length === 0) return `No changes: tenant ${view.tenant} matches the file.`;
  const blocks = view.changes.map((c) =>
    [`  ${SIGN[c.action]} ${c.target}${c.discovery ? ' (discovery will run)' : ''}`, ...c.fields.map(fieldLine)].join('\n'),
  );
  const { create, update, delete: del } = view.summary;
  const discoveries = view.discoveries.length > 0 ? `; discoveries: ${view.discoveries.join(', ')}` : '';
  return `Plan for tenant ${view.tenant}:\n${blocks.join('\n')}\nPlan: ${create} to create, ${update} to change, ${del} to remove${discoveries}.`;
}

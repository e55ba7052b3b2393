import { CliError, EXIT } from '../exit-codes';
import type { Plan } from './plan';
import type { ApplyContext } from './plan-step';
import { resolveSecret } from './secrets';

/** The outcome of an apply: the steps done, the one that failed (with the API's error) and those not run. */
export interface ApplyReport {
  tenant: string;
  applied: string[];
  failed?: { target: string; error: { message: string; code: string; field?: string } };
  notRun: string[];
}

/**
 * Checks every secret the plan will send before anything changes (a missing variable stops the
 * apply with nothing applied), then runs the steps in order and stops at the first failure.
 * The admin API has no multi-call transaction, so a failure part-way is reported step by step.
 */
export async function applyPlan(plan: Plan, ctx: ApplyContext): Promise<{ report: ApplyReport; cause?: CliError }> {
  for (const step of plan.steps) for (const s of step.secrets) resolveSecret(ctx.env, { fromEnv: s.env }, s.field);
  const report: ApplyReport = { tenant: plan.tenant, applied: [], notRun: [] };
  for (const [i, step] of plan.steps.entries()) {
    try {
      await step.execute(ctx);
      report.applied.push(step.target);
    } catch (err) {
      if (!(err instanceof CliError)) throw err;
      report.failed = {
        target: step.target,
        error: { message: err.message, code: err.details.code, ...(err.details.field ? { field: err.details.field } : {}) },
      };
      report.notRun = plan.steps.slice(i + 1).map((s) => s.target);
      return { report, cause: err };
    }
  }
  return { report };
}

/** The exit code of an apply: 0 done; the failure's own code when nothing was applied; 7 when it stopped part-way. */
export function applyExitCode(report: ApplyReport, cause: CliError | undefined): number {
  if (!report.failed) return EXIT.ok;
  if (report.applied.length === 0 && cause) return cause.exitCode;
  return EXIT.partial;
}

export function renderApplyReport(report: ApplyReport): string {
  const lines = [...report.applied.map((t) => `  ✓ ${t}`)];
  if (report.failed) {
    lines.push(`  ✗ ${report.failed.target}: ${report.failed.error.message}`);
    lines.push(...report.notRun.map((t) => `  · ${t} (not run)`));
    lines.push(
      `Apply stopped: ${report.applied.length} applied, 1 failed, ${report.notRun.length} not run. Fix the error and apply again (applied steps are not repeated).`,
    );
  } else {
    lines.push(
      report.applied.length === 0
        ? `No changes: tenant ${report.tenant} already matches the file.`
        : `Apply complete: ${report.applied.length} change${report.applied.length === 1 ? '' : 's'} applied.`,
    );
  }
  return lines.join('\n');
}

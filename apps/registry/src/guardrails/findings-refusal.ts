import type { Queryable } from '../db/database';
import { ApiError } from '../http/api-error';
import type { PoisonFinding } from './scan-definition';

/** The calling tenant's poisoned-tool setting: refuse publishing items with high-severity findings. */
export async function blocksPoisoned(q: Queryable, tenantId: string): Promise<boolean> {
  const rows = await q.query<{ block_poisoned: boolean }>('SELECT block_poisoned FROM registry.tenants WHERE id = $1', [tenantId]);
  return rows[0]?.block_poisoned === true;
}

export interface FindingsCheck {
  kind: string;
  name: string;
  findings: readonly PoisonFinding[];
  /** The request's `acknowledgeFindings` for this item. */
  acknowledged: boolean;
  blockPoisoned: boolean;
  /** The request path of the item (`body.items.2`, or `body` for an approval). */
  at: string;
}

/**
 * Why a definition with poisoned-tool findings may not go live, or undefined when it may:
 * 409 POISONED_TOOL_BLOCKED naming the first high-severity rule when the tenant blocks them
 * (no acknowledgement lifts it), else 409 FINDINGS_UNACKNOWLEDGED naming `acknowledgeFindings`.
 */
export function findingsRefusal(c: FindingsCheck): ApiError | undefined {
  if (c.findings.length === 0) return undefined;
  const high = c.findings.filter((f) => f.severity === 'high');
  if (c.blockPoisoned && high.length > 0) {
    const f = high[0];
    const field = `${c.at}.name`;
    return new ApiError(
      409,
      'POISONED_TOOL_BLOCKED',
      `${field}: ${c.kind} "${c.name}" cannot be published: rule ${f.rule} (high) at ${f.pointer} — ${f.message}; the tenant's guardrails setting blockPoisoned refuses high-severity findings`,
      field,
      { findings: high },
    );
  }
  if (c.acknowledged) return undefined;
  const field = `${c.at}.acknowledgeFindings`;
  const rules = [...new Set(c.findings.map((f) => f.rule))].join(', ');
  return new ApiError(
    409,
    'FINDINGS_UNACKNOWLEDGED',
    `${field}: ${c.kind} "${c.name}" has ${c.findings.length} poisoned-tool finding(s) (${rules}); review them and set acknowledgeFindings: true to publish it`,
    field,
    { findings: c.findings },
  );
}

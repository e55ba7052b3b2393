import type { Queryable } from '../db/database';

/** Appends one audit record (every change goes through here, in the same transaction). */
export async function audit(
  q: Queryable,
  tenantId: string,
  actor: string,
  action: string,
  target: string | null,
  details: Record<string, unknown> = {},
): Promise<void> {
  await q.query('INSERT INTO registry.audit_log (tenant_id, actor, action, target, details) VALUES ($1, $2, $3, $4, $5)', [
    tenantId,
    actor,
    action,
    target,
    JSON.stringify(details),
  ]);
}

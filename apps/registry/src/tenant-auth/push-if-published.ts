import type { Database } from '../db/database';
import { loadTenant } from '../model/tenant-row';
import type { Publisher } from '../publishing/publisher';

/** Re-pushes a published tenant's document (settings changed, catalog not); null before the first publish. */
export async function pushIfPublished(db: Database, publisher: Publisher, tenantId: string): Promise<'ok' | 'unavailable' | null> {
  const tenant = await loadTenant(db, tenantId);
  return tenant.current_version ? publisher.push(tenantId) : null;
}

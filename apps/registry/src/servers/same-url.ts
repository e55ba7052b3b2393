import type { Queryable } from '../db/database';

/** The warning both registering and the URL check give when the tenant already has a server at that URL. */
export interface UrlAlreadyRegistered {
  code: 'URL_ALREADY_REGISTERED';
  field: string;
  message: string;
}

/** The tenant's servers at this URL (a trailing slash ignored), except `exceptId` (the server being edited). */
export async function serversAtUrl(
  q: Queryable,
  tenantId: string,
  url: string,
  exceptId?: string,
): Promise<Array<{ id: string; name: string }>> {
  return q.query<{ id: string; name: string }>(
    "SELECT id, name FROM registry.servers WHERE tenant_id = $1 AND rtrim(url, '/') = rtrim($2, '/') AND id IS DISTINCT FROM $3 ORDER BY id",
    [tenantId, url, exceptId ?? null],
  );
}

/**
 * One URL_ALREADY_REGISTERED warning per other server at the URL. `prefix`: the prefix the new
 * server's colliding tools get (undefined when not known yet, as in the URL check).
 */
export function urlWarnings(others: ReadonlyArray<{ id: string; name: string }>, prefix: string | undefined): UrlAlreadyRegistered[] {
  const renamed = prefix ? `${prefix}_<name>` : '<server prefix>_<name>';
  return others.map((other) => ({
    code: 'URL_ALREADY_REGISTERED',
    field: 'body.url',
    message: `body.url: this URL is already registered as server "${other.id}" (${other.name}); where tool names collide, this server's tools are published as ${renamed}`,
  }));
}

import { TENANT_ID, USERNAME } from '../tenants/identifiers';

/** What the registry said about a console sign-in. */
export type VerifyLoginResult =
  { outcome: 'ok'; tenant: string; username: string; name: string } | { outcome: 'denied' } | { outcome: 'unavailable'; reason: string };

export interface RegistryLoginTarget {
  /** REGISTRY_INTERNAL_URL without a trailing slash. */
  registryUrl: string;
  internalToken: string;
  timeoutMs?: number;
}

const MAX_NAME = 200;

/**
 * Asks the registry whether a console administrator's password is right:
 * `POST ${registry}/internal/console/verify-login` with the internal bearer token and
 * `{tenant, username, password}`. 200 `{ok: true, tenant, username, name}` ⇒ ok; 401 (or any
 * answer that is not a well-formed yes) ⇒ denied; 5xx, other statuses, timeouts and network
 * errors ⇒ unavailable. A yes for another tenant than asked is treated as unavailable: the
 * account id must be the one the user typed the password for.
 */
export async function verifyConsoleLogin(
  target: RegistryLoginTarget,
  login: { tenant: string; username: string; password: string },
): Promise<VerifyLoginResult> {
  let res: Response;
  try {
    res = await fetch(`${target.registryUrl}/internal/console/verify-login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${target.internalToken}` },
      body: JSON.stringify({ tenant: login.tenant, username: login.username, password: login.password }),
      redirect: 'error',
      signal: AbortSignal.timeout(target.timeoutMs ?? 5000),
    });
  } catch (err) {
    return { outcome: 'unavailable', reason: err instanceof Error ? err.message : String(err) };
  }
  if (res.status === 401) {
    await res.body?.cancel();
    return { outcome: 'denied' };
  }
  if (res.status !== 200) {
    await res.body?.cancel();
    return { outcome: 'unavailable', reason: `registry answered ${res.status}` };
  }
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    return { outcome: 'unavailable', reason: 'registry answered 200 without JSON' };
  }
  if (!body || typeof body !== 'object') return { outcome: 'unavailable', reason: 'registry answered 200 without an object' };
  const b = body as Record<string, unknown>;
  if (b.ok !== true) return { outcome: 'denied' };
  if (typeof b.tenant !== 'string' || b.tenant !== login.tenant || !TENANT_ID.test(b.tenant))
    return { outcome: 'unavailable', reason: 'registry confirmed another tenant than asked' };
  if (typeof b.username !== 'string' || !USERNAME.test(b.username))
    return { outcome: 'unavailable', reason: 'registry returned an invalid username' };
  const name = typeof b.name === 'string' && b.name.trim() ? b.name.trim().slice(0, MAX_NAME) : b.username;
  return { outcome: 'ok', tenant: b.tenant, username: b.username, name };
}

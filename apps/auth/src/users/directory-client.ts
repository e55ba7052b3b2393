/** What the registry answered to one internal directory call. */
export type DirectoryAnswer<T> =
  { outcome: 'ok'; body: T } | { outcome: 'refused'; status: number } | { outcome: 'unavailable'; reason: string };

export interface DirectoryTarget {
  /** REGISTRY_INTERNAL_URL without a trailing slash. */
  registryUrl: string;
  internalToken: string;
  timeoutMs?: number;
}

/** Answers larger than this are refused (the registry's answers are small JSON objects). */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * Calls the registry's tenant-directory endpoints (`POST /internal/users/<path>`, Bearer
 * INTERNAL_TOKEN, JSON): 2xx ⇒ ok with the JSON body; 400/401/404/409/410 ⇒ refused; anything
 * else, a timeout or a network error ⇒ unavailable (the caller answers 503, never "wrong password").
 */
export async function callDirectory<T>(target: DirectoryTarget, path: string, body: Record<string, unknown>): Promise<DirectoryAnswer<T>> {
  let res: Response;
  try {
    res = await fetch(`${target.registryUrl}/internal/users/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${target.internalToken}` },
      body: JSON.stringify(body),
      redirect: 'error',
      signal: AbortSignal.timeout(target.timeoutMs ?? 5000),
    });
  } catch (err) {
    return { outcome: 'unavailable', reason: err instanceof Error ? err.message : String(err) };
  }
  if ([400, 401, 404, 409, 410].includes(res.status)) {
    await res.body?.cancel();
    return { outcome: 'refused', status: res.status };
  }
  if (res.status < 200 || res.status > 299) {
    await res.body?.cancel();
    return { outcome: 'unavailable', reason: `registry answered ${res.status}` };
  }
  try {
    const text = await res.text();
    if (text.length > MAX_ANSWER_BYTES) return { outcome: 'unavailable', reason: 'registry answer too large' };
    return { outcome: 'ok', body: JSON.parse(text) as T };
  } catch {
    return { outcome: 'unavailable', reason: 'registry answered without JSON' };
  }
}

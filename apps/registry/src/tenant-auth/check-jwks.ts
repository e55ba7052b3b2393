import { NetGuardError, type GuardedFetch } from '@switchboard/net-guard';
import { ApiError } from '../http/api-error';

/** Bounds of the JWKS check (a form is waiting; a tenant's IdP may be slow or huge). */
const CHECK_TIMEOUT_MS = 5_000;
const MAX_JWKS_BYTES = 64 * 1024;

/**
 * Fetches an enterprise IdP's JWKS through the SSRF-guarded fetch before it is saved and checks
 * that it is a key set with at least one public signing key (no private members). Throws 400
 * naming `field` with what went wrong; URL_REFUSED when the guard refuses the address.
 */
export async function checkJwks(fetch: GuardedFetch, url: string, field: string): Promise<void> {
  let res: Response;
  try {
    res = await fetch(url, { headers: { accept: 'application/json' }, redirect: 'manual', signal: AbortSignal.timeout(CHECK_TIMEOUT_MS) });
  } catch (err) {
    if (err instanceof NetGuardError) throw new ApiError(400, 'URL_REFUSED', `${field}: ${err.message}`, field, undefined, { cause: err });
    throw invalid(field, `could not fetch ${url}: ${(err as Error).name === 'TimeoutError' ? 'no answer in time' : 'connection failed'}`);
  }
  if (res.status !== 200) throw invalid(field, `${url} answered ${res.status}`);
  const text = await res.text();
  if (text.length > MAX_JWKS_BYTES) throw invalid(field, `${url} is larger than ${MAX_JWKS_BYTES} bytes`);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw invalid(field, `${url} is not JSON`);
  }
  const keys = (doc as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || keys.length === 0) throw invalid(field, `${url} is not a JWKS (no keys)`);
  const usable = keys.filter(
    (k): k is Record<string, unknown> =>
      typeof k === 'object' && k !== null && typeof k.kty === 'string' && k.use !== 'enc' && k.d === undefined,
  );
  if (usable.length === 0) throw invalid(field, `${url} has no public signing key`);
}

function invalid(field: string, message: string): ApiError {
  return new ApiError(400, 'VALIDATION', `${field}: ${message}`, field, { issues: [{ field, message }] });
}

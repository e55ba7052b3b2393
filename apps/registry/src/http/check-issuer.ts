import { NetGuardError, type GuardedFetch } from '@switchboard/net-guard';
import { ApiError } from './api-error';

/** Bounds of the discovery check (a form is waiting; a tenant's IdP may be slow or huge). */
const CHECK_TIMEOUT_MS = 5_000;
const MAX_METADATA_BYTES = 256 * 1024;

/**
 * Fetches the issuer's discovery document through the SSRF-guarded fetch before anything is
 * saved — `/.well-known/openid-configuration` (OIDC) or, for connectors,
 * `/.well-known/oauth-authorization-server` as well — and checks that it names the same
 * issuer and the endpoints a sign-in needs; returns the document. Throws 400 naming `field` with what went wrong.
 */
export async function checkIssuer(
  fetch: GuardedFetch,
  issuer: string,
  field: string,
  kinds: Array<'openid-configuration' | 'oauth-authorization-server'>,
): Promise<Record<string, unknown>> {
  const base = issuer.replace(/\/+$/, '');
  let last = 'no discovery document found';
  for (const kind of kinds) {
    const url = `${base}/.well-known/${kind}`;
    let res: Response;
    try {
      res = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(CHECK_TIMEOUT_MS) });
    } catch (err) {
      if (err instanceof NetGuardError)
        throw new ApiError(400, 'URL_REFUSED', `${field}: ${err.message}`, field, undefined, { cause: err });
      last = `could not fetch ${url}: ${(err as Error).name === 'TimeoutError' ? 'no answer in time' : firstLine((err as Error).message)}`;
      continue;
    }
    if (!res.ok) {
      last = `${url} answered ${res.status}`;
      continue;
    }
    const text = await res.text();
    if (text.length > MAX_METADATA_BYTES) throw invalid(field, `${url} is larger than ${MAX_METADATA_BYTES} bytes`);
    let doc: Record<string, unknown>;
    try {
      doc = JSON.parse(text) as Record<string, unknown>;
    } catch {
      last = `${url} is not JSON`;
      continue;
    }
    if (typeof doc.issuer !== 'string' || doc.issuer.replace(/\/+$/, '') !== base)
      throw invalid(field, `${url} names issuer ${JSON.stringify(doc.issuer)}, not ${JSON.stringify(issuer)}`);
    for (const key of ['authorization_endpoint', 'token_endpoint']) {
      if (typeof doc[key] !== 'string') throw invalid(field, `${url} has no ${key}`);
    }
    return doc;
  }
  throw invalid(field, `the issuer's discovery check failed: ${last}`);
}

function invalid(field: string, message: string): ApiError {
  return new ApiError(400, 'VALIDATION', `${field}: ${message}`, field, { issues: [{ field, message }] });
}

function firstLine(s: string): string {
  const line = s.split('\n')[0] ?? s;
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

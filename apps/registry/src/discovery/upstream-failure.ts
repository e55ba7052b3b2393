import { NetGuardError, ResponseTooLargeError } from '@switchboard/net-guard';

/** Why talking to an upstream failed, as far as the error (and its causes) tells. */
export type UpstreamFailure =
  | { kind: 'refused'; error: NetGuardError }
  | { kind: 'too-large'; error: Error }
  | { kind: 'auth' }
  | { kind: 'timeout' }
  | { kind: 'network'; error: unknown }
  | { kind: 'other' };

/**
 * Classifies an upstream error by walking its `cause` chain (SDK clients wrap fetch errors):
 * an SSRF refusal, a rejected credential (401/403), silence (timeout / abort), a network failure,
 * or anything else — which, for discovery, is an answer that was not the expected protocol.
 * One classification for discovery's era fallback and the live URL check.
 */
export function upstreamFailure(err: unknown): UpstreamFailure {
  const chain: unknown[] = [];
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++, e = (e as { cause?: unknown }).cause) chain.push(e);
  const guard = chain.find((e): e is NetGuardError => e instanceof NetGuardError);
  if (guard) return { kind: 'refused', error: guard };
  // The outermost error names the limit (DiscoveryPageTooLargeError wraps the fetch-level one).
  if (chain.some((e) => e instanceof ResponseTooLargeError)) return { kind: 'too-large', error: chain[0] as Error };
  const code = (e: unknown) => String((e as { code?: unknown }).code ?? '');
  const message = (e: unknown) => (e as Error).message ?? '';
  const status = (e: unknown) => (e as { status?: unknown }).status ?? (e as { code?: unknown }).code;
  if (chain.some((e) => status(e) === 401 || status(e) === 403 || /\b(401|403)\b|unauthori[sz]ed|forbidden/i.test(message(e)))) return { kind: 'auth' };
  if (chain.some((e) => code(e) === 'REQUEST_TIMEOUT' || /timed? ?out|TimeoutError|aborted/i.test(`${(e as Error).name ?? ''} ${message(e)}`))) return { kind: 'timeout' };
  const network = chain.find((e) => /ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ECONNRESET|EAI_AGAIN|fetch failed/i.test(`${code(e)} ${message(e)}`));
  if (network) return { kind: 'network', error: chain[chain.length - 1] };
  return { kind: 'other' };
}

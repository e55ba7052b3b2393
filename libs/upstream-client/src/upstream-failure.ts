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

/**
 * The pinned 2026-07-28 connect failed in a way that means "this server does not speak it"
 * (no `server/discover`, no overlap, an HTTP 4xx other than 401/403, a legacy-shaped answer),
 * so the legacy handshake is worth trying. Silence on HTTP is an outage, not a legacy server
 * (those answer an unknown method with an error).
 */
export function isModernRefusal(err: unknown): boolean {
  return upstreamFailure(err).kind === 'other';
}

/** Streamable HTTP refused in the way a 2024-11-05 HTTP+SSE server refuses it (404/405/400 on POST). */
export function isLegacyRefusal(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  if (typeof code === 'number' && code >= 400 && code < 500 && code !== 401 && code !== 403) return true;
  return /HTTP 4(0[045])|Unexpected content type|Error POSTing to endpoint \(HTTP 4/i.test((err as Error)?.message ?? '');
}

/**
 * The errors this library throws about an upstream's answer. Failures it only passes on (HTTP
 * status, JSON-RPC error, network, the SSRF guard, a byte limit) keep their own types.
 */

/** A response body that broke off before the answer (reset, crash, an event stream that ended early). */
export class UpstreamResponseBrokenError extends Error {
  override readonly name = 'UpstreamResponseBrokenError';
}

/** An answer that is not the MCP JSON-RPC it should be (wrong shape, wrong id, not JSON). */
export class UpstreamProtocolError extends Error {
  override readonly name = 'UpstreamProtocolError';
}

/** The upstream answered with a redirect: the call goes through the SDK path, which follows it (guarded). */
export class UpstreamRedirectedError extends Error {
  override readonly name = 'UpstreamRedirectedError';
}

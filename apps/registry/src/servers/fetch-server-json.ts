import { limitResponseBytes, NetGuardError, ResponseTooLargeError, type GuardedFetch } from '@switchboard/net-guard';
import { ApiError } from '../http/api-error';

/** Largest registry answer read: a server.json is a few KiB; the official schema has no bound of its own. */
export const MAX_SERVER_JSON_BYTES = 256 * 1024;

export interface FetchServerJsonOptions {
  /** MCP_REGISTRY_URL (no trailing slash needed). */
  registryUrl: string;
  name: string;
  version: string;
  fetch: GuardedFetch;
  timeoutMs: number;
}

/**
 * Reads one `server.json` from an MCP Registry (`GET /v0.1/servers/{name}/versions/{version}`)
 * through the SSRF-guarded fetch, bounded in time and bytes. Answers the registry's
 * `ServerResponse` unwrapped to its `server` (a bare document is accepted too). A missing server
 * is a 404 naming `body.name`; an unreachable or misbehaving registry a 502.
 */
export async function fetchServerJson(o: FetchServerJsonOptions): Promise<unknown> {
  const base = o.registryUrl.replace(/\/+$/, '');
  const url = `${base}/v0.1/servers/${encodeURIComponent(o.name)}/versions/${encodeURIComponent(o.version)}`;
  const bounded = limitResponseBytes(o.fetch, () => ({ maxBytes: MAX_SERVER_JSON_BYTES }));
  let text: string;
  let status: number;
  try {
    const res = await bounded(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(o.timeoutMs) });
    status = res.status;
    text = await res.text();
  } catch (err) {
    throw new ApiError(
      502,
      'UNAVAILABLE',
      `the MCP registry at ${base} could not be read: ${reason(err, o.timeoutMs)}`,
      undefined,
      { registry: base },
      { cause: err },
    );
  }
  if (status === 404)
    throw new ApiError(
      404,
      'NOT_FOUND',
      `body.name: "${o.name}" version "${o.version}" is not in the MCP registry at ${base}`,
      o.version === 'latest' ? 'body.name' : 'body.version',
    );
  if (status < 200 || status > 299)
    throw new ApiError(502, 'UNAVAILABLE', `the MCP registry at ${base} answered HTTP ${status}`, undefined, { registry: base, status });
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new ApiError(
      502,
      'UNAVAILABLE',
      `the MCP registry at ${base} answered something that is not JSON`,
      undefined,
      { registry: base },
      { cause: err },
    );
  }
  const wrapped = typeof doc === 'object' && doc !== null && 'server' in doc ? (doc as { server: unknown }).server : doc;
  return wrapped;
}

function reason(err: unknown, timeoutMs: number): string {
  if (err instanceof Error && (err.cause instanceof ResponseTooLargeError || err.cause instanceof NetGuardError))
    return reason(err.cause, timeoutMs);
  if (err instanceof ResponseTooLargeError) return `answer larger than ${MAX_SERVER_JSON_BYTES} bytes`;
  if (err instanceof NetGuardError) return `refused by the SSRF guard (${err.message})`;
  // The guarded fetch surfaces the AbortSignal.timeout as an abort.
  const name = (err as { name?: string }).name;
  if (name === 'TimeoutError' || name === 'AbortError') return `timed out after ${timeoutMs} ms`;
  return err instanceof Error ? err.message : String(err);
}

import { forbiddenUpstreamHeader } from './forbidden-upstream-header';

/** A copy of tenant-supplied upstream headers without the forbidden ones (send-time second line of defence). */
export function stripForbiddenHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers) return out;
  for (const [name, value] of Object.entries(headers)) if (forbiddenUpstreamHeader(name) === undefined) out[name] = value;
  return out;
}

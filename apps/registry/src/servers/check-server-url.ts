import { NetGuardError, type GuardedFetch } from '@switchboard/net-guard';
import { discoverServer } from '../discovery/discover-server';

/** What a live check of a server URL found (nothing is stored). */
export type UrlCheckResult =
  | {
      ok: true;
      protocol: { era: 'modern' | 'legacy'; version: string | null; transport: 'streamable-http' | 'sse' };
      serverInfo: { name?: string; version?: string } | null;
      counts: { tools: number; prompts: number; resources: number; resourceTemplates: number };
      /** The first tool names, for a quick "is this the right server?" glance. */
      tools: string[];
      elapsedMs: number;
    }
  | {
      ok: false;
      /** `auth_required`: an MCP server answered 401/403 (register it with its credential); the rest: nothing usable answered. */
      reason: 'auth_required' | 'timeout' | 'unreachable' | 'not_mcp' | 'refused';
      message: string;
      elapsedMs: number;
    };

export interface UrlCheckOptions {
  url: string;
  transport: 'auto' | 'streamable-http' | 'sse';
  headers: Record<string, string>;
  fetch: GuardedFetch;
  timeoutMs: number;
}

/**
 * The live half of "register with live URL validation": one discovery pass against the URL
 * (every era and transport discovery itself would try, through the SSRF-guarded fetch),
 * classified into an answer a form can show under the URL field. Never throws.
 */
export async function checkServerUrl(o: UrlCheckOptions): Promise<UrlCheckResult> {
  const started = Date.now();
  try {
    const found = await discoverServer({ url: o.url, transport: o.transport, headers: o.headers, fetch: o.fetch, timeoutMs: o.timeoutMs });
    const count = (kind: string) => found.items.filter((i) => i.kind === kind).length;
    const info = found.serverInfo as { name?: unknown; version?: unknown } | undefined;
    return {
      ok: true,
      protocol: { era: found.era, version: found.protocolVersion ?? null, transport: found.transport },
      serverInfo: info ? { ...(typeof info.name === 'string' ? { name: info.name } : {}), ...(typeof info.version === 'string' ? { version: info.version } : {}) } : null,
      counts: { tools: count('tool'), prompts: count('prompt'), resources: count('resource'), resourceTemplates: count('resource_template') },
      tools: found.items.filter((i) => i.kind === 'tool').slice(0, 10).map((i) => i.key),
      elapsedMs: Date.now() - started,
    };
  } catch (err) {
    return { ok: false, ...classify(err), elapsedMs: Date.now() - started };
  }
}

function classify(err: unknown): { reason: Exclude<UrlCheckResult, { ok: true }>['reason']; message: string } {
  const chain: unknown[] = [];
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++, e = (e as { cause?: unknown }).cause) chain.push(e);
  const text = chain.map((e) => `${String((e as { code?: unknown }).code ?? '')} ${(e as Error).message ?? ''}`).join(' | ');
  const guard = chain.find((e): e is NetGuardError => e instanceof NetGuardError);
  if (guard) return { reason: 'refused', message: guard.message };
  if (chain.some((e) => [401, 403].includes(Number((e as { status?: unknown; code?: unknown }).status ?? (e as { code?: unknown }).code))) || /\b(401|403)\b|unauthori[sz]ed|forbidden/i.test(text)) {
    return { reason: 'auth_required', message: 'The server answered 401/403: it needs a credential. Choose its authentication below.' };
  }
  if (/REQUEST_TIMEOUT|timed? ?out|TimeoutError|aborted/i.test(text)) return { reason: 'timeout', message: 'No answer in time: is the server up, and is this its MCP endpoint?' };
  if (/ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ECONNRESET|EAI_AGAIN|fetch failed/i.test(text)) {
    return { reason: 'unreachable', message: `Could not connect: ${firstLine((chain[chain.length - 1] as Error)?.message ?? 'network error')}` };
  }
  return { reason: 'not_mcp', message: `Something answered, but not as an MCP server: ${firstLine((err as Error)?.message ?? String(err))}` };
}

function firstLine(s: string): string {
  const line = s.split('\n')[0] ?? s;
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

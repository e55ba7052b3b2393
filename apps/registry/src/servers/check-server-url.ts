import type { GuardedFetch } from '@switchboard/net-guard';
import { discoverServer } from '../discovery/discover-server';
import { classifyUpstreamFailure, discoveryKind } from '@switchboard/upstream-client';

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
      reason: 'auth_required' | 'timeout' | 'unreachable' | 'not_mcp' | 'refused' | 'too_large';
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
      serverInfo: info
        ? {
            ...(typeof info.name === 'string' ? { name: info.name } : {}),
            ...(typeof info.version === 'string' ? { version: info.version } : {}),
          }
        : null,
      counts: {
        tools: count('tool'),
        prompts: count('prompt'),
        resources: count('resource'),
        resourceTemplates: count('resource_template'),
      },
      tools: found.items
        .filter((i) => i.kind === 'tool')
        .slice(0, 10)
        .map((i) => i.key),
      elapsedMs: Date.now() - started,
    };
  } catch (err) {
    return { ok: false, ...classify(err), elapsedMs: Date.now() - started };
  }
}

function classify(err: unknown): { reason: Exclude<UrlCheckResult, { ok: true }>['reason']; message: string } {
  const failure = classifyUpstreamFailure(err);
  if (failure.kind === 'refused-url') return { reason: 'refused', message: failure.error.message };
  const cause = failure.kind === 'network' ? (failure.error as Error | undefined) : undefined;
  switch (discoveryKind(failure.kind)) {
    case 'too-large':
      // The outermost error names the limit (DiscoveryPageTooLargeError wraps the fetch-level one).
      return { reason: 'too_large', message: (err as Error).message };
    case 'auth':
      return { reason: 'auth_required', message: 'The server answered 401/403: it needs a credential. Choose its authentication below.' };
    case 'timeout':
      return { reason: 'timeout', message: 'No answer in time: is the server up, and is this its MCP endpoint?' };
    case 'network':
      return { reason: 'unreachable', message: `Could not connect: ${firstLine(cause?.message ?? 'network error')}` };
    default:
      return {
        reason: 'not_mcp',
        message: `Something answered, but not as an MCP server: ${firstLine((err as Error)?.message ?? String(err))}`,
      };
  }
}

function firstLine(s: string): string {
  const line = s.split('\n')[0] ?? s;
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

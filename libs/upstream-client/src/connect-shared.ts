import { stripForbiddenHeaders, type GuardedFetch } from '@switchboard/net-guard';
import { RELAYED_REQUESTS, type ConnectUpstreamOptions, type RelayedMethod, type UpstreamListMethod } from './upstream-connection';

export function transportInit(o: ConnectUpstreamOptions): { requestInit: RequestInit; fetch?: GuardedFetch; redirectPolicy?: 'follow' } {
  return {
    requestInit: { headers: stripForbiddenHeaders(o.headers) },
    ...(o.fetch ? { fetch: o.fetch } : {}),
    ...(o.followRedirects ? { redirectPolicy: 'follow' as const } : {}),
  };
}

export function declared(o: ConnectUpstreamOptions): Record<string, object> {
  return {
    ...Object.fromEntries(Object.keys(o.answer ?? {}).map((m) => [RELAYED_REQUESTS[m as RelayedMethod].capability, {}])),
    ...o.capabilities,
  };
}

/** The handshake, bounded by the options' timeout and signal; a failed one leaves nothing open. */
export async function connectOrClose<T>(
  client: { connect(t: T, opts: { timeout: number; signal?: AbortSignal }): Promise<void>; close(): Promise<void> },
  transport: T,
  o: ConnectUpstreamOptions,
): Promise<void> {
  try {
    await client.connect(transport, { timeout: o.timeoutMs, ...(o.signal ? { signal: o.signal } : {}) });
  } catch (err) {
    await client.close().catch(() => undefined);
    throw err;
  }
}

const ITEMS: Record<UpstreamListMethod, string> = {
  'tools/list': 'tools',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
  'prompts/list': 'prompts',
};

/** One page of a list as the upstream sent it: its items (none when malformed) and its next cursor. */
export function page(
  res: Record<string, unknown>,
  method: UpstreamListMethod,
): { items: Array<Record<string, unknown>>; nextCursor?: string } {
  const items = res[ITEMS[method]];
  const next = res.nextCursor;
  return {
    items: Array.isArray(items) ? (items as Array<Record<string, unknown>>) : [],
    ...(typeof next === 'string' ? { nextCursor: next } : {}),
  };
}

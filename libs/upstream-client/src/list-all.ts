import type { UpstreamCallOptions, UpstreamConnection, UpstreamListMethod } from './upstream-connection';

/** Pages followed per list before listing stops (an upstream controls its cursors). */
export const MAX_LIST_PAGES = 200;

export interface ListedUpstream {
  tools: Array<Record<string, unknown>>;
  resources: Array<Record<string, unknown>>;
  resourceTemplates: Array<Record<string, unknown>>;
  prompts: Array<Record<string, unknown>>;
  /** Lists that stopped at the page cap with a cursor still to follow. */
  truncated: UpstreamListMethod[];
}

export interface ListAllOptions extends UpstreamCallOptions {
  /** Default {@link MAX_LIST_PAGES}. */
  maxPages?: number;
}

/**
 * Lists everything the server's capabilities announce, page by page. One loop guard (a cursor
 * seen before ends that list: the server is going round in circles) and one page cap for
 * every list and era. A server without `resources/templates/list` answers it with an error,
 * which means "none" (any other failure — a timeout, a broken stream — still fails the run).
 */
export async function listAll(conn: Pick<UpstreamConnection, 'capabilities' | 'listPage'>, opts: ListAllOptions): Promise<ListedUpstream> {
  const { maxPages = MAX_LIST_PAGES, ...call } = opts;
  const out: ListedUpstream = { tools: [], resources: [], resourceTemplates: [], prompts: [], truncated: [] };
  const walk = async (method: UpstreamListMethod, into: Array<Record<string, unknown>>) => {
    if (!(await listPages(conn, method, call, maxPages, into))) out.truncated.push(method);
  };
  const caps = conn.capabilities;
  if (caps.tools) await walk('tools/list', out.tools);
  if (caps.resources) {
    await walk('resources/list', out.resources);
    await walk('resources/templates/list', out.resourceTemplates).catch((err: unknown) => {
      if (!isJsonRpcAnswer(err) || call.signal?.aborted) throw err;
    });
  }
  if (caps.prompts) await walk('prompts/list', out.prompts);
  return out;
}

/** Appends every page's items to `into`; false when the cap stopped it with a cursor left. */
async function listPages(
  conn: Pick<UpstreamConnection, 'listPage'>,
  method: UpstreamListMethod,
  opts: UpstreamCallOptions,
  maxPages: number,
  into: Array<Record<string, unknown>>,
): Promise<boolean> {
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const res = await conn.listPage(method, cursor, opts);
    into.push(...res.items);
    const next = res.nextCursor;
    if (!next || seen.has(next)) return true;
    seen.add(next);
    cursor = next;
  }
  return false;
}

/** A JSON-RPC error the server answered (either SDK line carries its numeric code). */
function isJsonRpcAnswer(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return (
    typeof code === 'number' && code <= -32000 && code >= -32768 && !/connection closed|timed? ?out/i.test((err as Error)?.message ?? '')
  );
}

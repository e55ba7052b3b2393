import {
  api,
  asApiError,
  isRecord,
  type ApiError,
  type Item,
  type Publication,
  type Server,
  type ToolProblem as ApiToolProblem,
} from './api';
import type { TenantAuthView } from './tenant-auth-view';

/** One server's discovered tools (or why they could not be loaded: the other servers still show). */
export interface ServerTools {
  server: Server;
  tools: Item[];
  error?: ApiError;
}

/** What the Tools table and the home checklist read: every server's tools and the tenant's publications. */
export interface ToolsData {
  servers: ServerTools[];
  publications: Publication[];
  /** Per-tool scopes live in the tenant's auth settings (undefined: they could not be loaded; the tools still show). */
  auth?: TenantAuthView;
}

export async function loadTools(withAuth = true): Promise<ToolsData> {
  const [{ servers }, { publications }, auth] = await Promise.all([
    api<{ servers: Server[] }>('GET', '/v1/servers'),
    api<{ publications: Publication[] }>('GET', '/v1/publications'),
    withAuth ? api<TenantAuthView>('GET', '/v1/tenant/auth').catch(() => undefined) : Promise.resolve(undefined),
  ]);
  const withItems = await Promise.all(
    servers.map(async (server): Promise<ServerTools> => {
      try {
        const { items } = await api<{ items: Item[] }>('GET', `/v1/servers/${encodeURIComponent(server.id)}/items`);
        // A malformed definition must not take the page down: treat it as an empty one.
        const tools = items.filter((i) => i.kind === 'tool').map((i) => (isRecord(i.definition) ? i : { ...i, definition: {} }));
        return { server, tools };
      } catch (err) {
        return { server, tools: [], error: asApiError(err) };
      }
    }),
  );
  return { servers: withItems, publications, ...(auth ? { auth } : {}) };
}

export function publicationOf(publications: readonly Publication[], serverId: string, toolName: string): Publication | undefined {
  return publications.find((p) => p.kind === 'tool' && p.serverId === serverId && p.upstreamName === toolName);
}

/**
 * One rule a tool breaks, with the editor field that fixes it (the DOM id suffix after the tool's id
 * base). `block`: publishing is refused without it; `warn`: Readiness flags it once published.
 */
export type ToolProblem = ApiToolProblem;

/**
 * The registry's verdict on a tool with its saved overrides (`problems` of GET /v1/servers/:id/items):
 * the one rule set its publish gate and Readiness apply, so the console does not judge on its own.
 */
export function toolProblems(tool: Item): ToolProblem[] {
  return tool.problems ?? [];
}

/** The status of a tool in words the table shows and filters on. */
export type ToolStatus = 'published' | 'ready' | 'needs-attention' | 'changed' | 'removed';

export function toolStatus(tool: Item, publication: Publication | undefined): ToolStatus {
  if (tool.removedAt) return 'removed';
  if (tool.pendingReview) return 'changed';
  if (toolProblems(tool).some((p) => p.level === 'block')) return 'needs-attention';
  return publication ? 'published' : 'ready';
}

/** Blocked from publishing, changed upstream, or published but failing Readiness (no title): what the "needs attention" filter shows. */
export function needsAttention(tool: Item, publication: Publication | undefined): boolean {
  const status = toolStatus(tool, publication);
  return status === 'needs-attention' || status === 'changed' || (status === 'published' && toolProblems(tool).length > 0);
}

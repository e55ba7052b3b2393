import { describeAnswer, initializeLegacy, modernHeaders, modernParams } from './mcp-requests';
import type { Probe } from './probe';

/** A tool as listed (raw JSON). */
export type ListedTool = Record<string, unknown>;

const MAX_PAGES = 50;

/**
 * Every tool of `tools/list` as one client sees it (its User-Agent, Origin and clientInfo pick
 * the surface), following `nextCursor`. Uses the 2026-07-28 era when the server speaks it
 * (as Claude does today), else a fresh 2025-11-25 session for this client.
 */
export async function listTools(
  probe: Probe,
  client: { headers: Readonly<Record<string, string>>; clientInfo: Readonly<{ name: string; version: string }> },
  auth: Record<string, string>,
  modern: boolean,
): Promise<{ tools: ListedTool[] } | { problem: string }> {
  const clientInfo = { ...client.clientInfo };
  let headers: Record<string, string>;
  if (modern) {
    headers = { ...client.headers, ...auth, ...modernHeaders('tools/list') };
  } else {
    const { session, answer } = await initializeLegacy(probe, { ...client.headers, ...auth }, clientInfo);
    if (!session) return { problem: `initialize failed: ${describeAnswer(answer)}` };
    headers = { ...session.headers, 'mcp-protocol-version': session.protocolVersion };
  }
  const tools: ListedTool[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const base = cursor ? { cursor } : {};
    const answer = await probe.rpc('tools/list', modern ? modernParams(clientInfo, base) : cursor ? base : undefined, headers);
    const list = answer.message?.result?.tools;
    if (answer.status !== 200 || !Array.isArray(list)) return { problem: `tools/list got ${describeAnswer(answer)}` };
    for (const t of list) if (typeof t === 'object' && t !== null) tools.push(t as ListedTool);
    const next = answer.message?.result?.nextCursor;
    if (typeof next !== 'string' || seen.has(next)) return { tools };
    seen.add(next);
    cursor = next;
  }
  return { tools };
}

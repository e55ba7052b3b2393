import { LEGACY_VERSION, MODERN_VERSION } from './client-profiles';
import type { Probe, RpcAnswer } from './probe';

/** `params._meta` of a 2026-07-28 request, as Claude and ChatGPT fill it. */
export function modernParams(clientInfo: { name: string; version: string }, params: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ...params,
    _meta: {
      'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': clientInfo,
    },
  };
}

/** Headers of a 2026-07-28 POST (`versionHeader` differs only to replay the Claude quirk). */
export function modernHeaders(method: string, versionHeader: string = MODERN_VERSION): Record<string, string> {
  return { 'mcp-protocol-version': versionHeader, 'mcp-method': method };
}

/** A legacy session: the headers every follow-up request carries. */
export interface LegacySession {
  headers: Record<string, string>;
  protocolVersion: string;
}

/** initialize at 2025-11-25 + notifications/initialized; the session's follow-up headers, or the failed answer. */
export async function initializeLegacy(
  probe: Probe,
  identity: Record<string, string>,
  clientInfo: { name: string; version: string },
): Promise<{ session?: LegacySession; answer: RpcAnswer }> {
  const answer = await probe.rpc('initialize', { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo }, identity);
  const version = answer.message?.result?.protocolVersion;
  if (answer.status !== 200 || typeof version !== 'string') return { answer };
  const sessionId = answer.headers.get('mcp-session-id');
  const headers: Record<string, string> = { ...identity, ...(sessionId ? { 'mcp-session-id': sessionId } : {}) };
  await probe.notify('notifications/initialized', { ...headers, 'mcp-protocol-version': version }).catch(() => undefined);
  return { session: { headers, protocolVersion: version }, answer };
}

/** A one-line description of an answer for a report: status, JSON-RPC error and the start of the body. */
export function describeAnswer(answer: RpcAnswer): string {
  const err = answer.message?.error;
  if (err) return `HTTP ${answer.status} with JSON-RPC error ${String(err.code)} "${String(err.message)}"`;
  const body = answer.text.replace(/\s+/g, ' ').trim().slice(0, 160);
  return `HTTP ${answer.status}${body ? ` ("${body}")` : ''}`;
}

/** The JSON-RPC error code of an answer, if any. */
export function errorCode(answer: RpcAnswer): number | undefined {
  const code = answer.message?.error?.code;
  return typeof code === 'number' ? code : undefined;
}

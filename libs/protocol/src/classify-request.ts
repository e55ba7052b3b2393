import type { JsonRpcId, JsonRpcNotification, JsonRpcRequest, LogLevel } from './jsonrpc';
import type { Era, ProtocolVersion } from './versions';

/** Incoming HTTP headers as Node gives them: lower-case names. */
export type HttpHeaders = Record<string, string | string[] | undefined>;

export interface ClientInfo {
  name?: string;
  version?: string;
  title?: string;
}

/** What the transport decided about one request: its era, effective version and per-request client facts. */
export interface RequestContext {
  era: Era;
  protocolVersion: ProtocolVersion;
  /** Modern: `_meta` clientInfo; legacy: `initialize` params.clientInfo (only on that request). */
  clientInfo?: ClientInfo;
  clientCapabilities?: Record<string, unknown>;
  /** Modern: `_meta["io.modelcontextprotocol/logLevel"]`; legacy: undefined (stateless, so no remembered level). */
  logLevel?: LogLevel;
  progressToken?: JsonRpcId;
}

/**
 * Decides era and effective version of one request or notification, and enforces the
 * header rules of that era (MCP-NOTES §2):
 * - legacy: `MCP-Protocol-Version` absent ⇒ 2025-03-26; a supported version (also a newer
 *   or modern one, as Claude sends) is accepted; an unknown one ⇒ McpError httpStatus 400;
 * - modern (2026-07-28, recognised by `_meta["io.modelcontextprotocol/protocolVersion"]`):
 *   required `_meta` keys (−32602 naming the key), `Mcp-Method` / `Mcp-Name` equal to the
 *   body (400 + −32020), header equal to `_meta` version (400 + −32020) except a *legacy*
 *   header beside a modern `_meta` version (the Claude quirk, tolerated), unsupported
 *   version ⇒ 400 + −32022 with `data.supported` / `data.requested`.
 * @throws McpError with the HTTP status to answer with.
 */
export function classifyRequest(message: JsonRpcRequest | JsonRpcNotification, headers: HttpHeaders): RequestContext {
  void message; void headers;
  throw new Error('not implemented');
}

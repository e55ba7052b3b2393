/*
 * Wire facts this file (and the transport) rely on, read from the sources, 2026-11-30:
 *
 * conformance-next = @modelcontextprotocol/conformance 0.2.0-alpha.12 (dist/index.js):
 * - `server-stateless`: `server/discover` with `_meta` missing, or missing
 *   `io.modelcontextprotocol/protocolVersion` / `…/clientCapabilities` (header
 *   `MCP-Protocol-Version: 2026-07-28` present) ⇒ HTTP 400 + −32602; `clientInfo` is optional.
 *   `_meta` version `v999.0.0` + header `v999.0.0` ⇒ 400 + −32022, `data.supported` ⊆ the
 *   discover `supportedVersions`, `data.requested` echoes the version. `_meta` `v999.0.0` +
 *   header `2026-07-28` ⇒ 400 + −32020 (so the header cross-check runs before the version
 *   gate). `initialize`, `ping`, `logging/setLevel`, `resources/subscribe`,
 *   `resources/unsubscribe` and unknown methods ⇒ HTTP 404 + −32601. Every error keeps the
 *   request id. −32021 ⇒ 400 with `data.requiredCapabilities` as an object (`{sampling:{}}`).
 * - `http-header-validation` (pending / not scored in requirements/2026-07-28.yaml): always
 *   sends `MCP-Protocol-Version: 2026-07-28` with `_meta` 2026-07-28; `Mcp-Method` ≠ body,
 *   missing `Mcp-Method`, `Mcp-Name` ≠ params.name, missing `Mcp-Name`, `TOOLS/LIST` (values
 *   are case-sensitive) ⇒ 400 + −32020; header names case-insensitive; OWS around values
 *   (`"  name  "`) must be accepted. It never sends a legacy header beside a modern `_meta`,
 *   so the Claude tolerance below does not conflict with it.
 * - Harness headers (`yt`): `MCP-Protocol-Version`, `Mcp-Method` always, `Mcp-Name` for
 *   tools/call + prompts/get (params.name), resources/read (params.uri), tasks/get|update|cancel
 *   (params.taskId). Its own stateless mock (`It`): missing header ⇒ 400 −32020; missing
 *   `_meta` keys ⇒ 400 −32602 "missing _meta keys: …"; header ≠ `_meta` ⇒ 400 −32020.
 * - `caching`: ttlMs (integer ≥ 0) + cacheScope ('public'|'private') on tools/list,
 *   prompts/list, resources/list, resources/templates/list, resources/read (and server/discover,
 *   whose schema requires cacheScope, capabilities, resultType, supportedVersions, ttlMs).
 *
 * SDK v2 (@modelcontextprotocol/server 2.3.1 dist/src-*.mjs, classifyInboundRequest and
 * INBOUND_VALIDATION_LADDER; core 2.4.0 schemas): the body-primary rule (a request is modern
 * iff `_meta` holds `io.modelcontextprotocol/protocolVersion`), ladder order envelope (−32602,
 * 400) → header/body version mismatch (−32020) → `Mcp-Method` mismatch (−32020) → unsupported
 * revision (−32022, 400, `supported` = modern revisions only) → missing `MCP-Protocol-Version`
 * / `Mcp-Method` / `Mcp-Name` and `Mcp-Name` mismatch (−32020, 400). A −32602 from the
 * envelope rung is the only −32602 on HTTP 400; handler −32602 stays in-band (200).
 * Base64 sentinel `=?base64?…?=` with canonical padded Base64 of UTF-8, invalid ⇒ −32020.
 * Notifications are exempt from header presence rules and answered 202.
 *
 * Deliberate deviations (MCP-NOTES §4): a *legacy* `MCP-Protocol-Version` beside a modern
 * `_meta` version is accepted (Claude, anthropics/claude-code#93290; SDK v2 answers −32020),
 * and then absent `Mcp-Method` / `Mcp-Name` are tolerated too (present ones must still match);
 * a modern header on a claim-less non-discover request *without* `Mcp-Method` is served as
 * legacy 2025-11-25 (Claude Code sends its newest version after negotiating an older one; SDK
 * v2 answers −32602); with `Mcp-Method` (a modern transport) it is −32602 naming `_meta`.
 */
import { decodeHeaderValue } from './decode-header-value';
import { ErrorCode } from './error-codes';
import { headerValue, type HttpHeaders } from './header-value';
import type { JsonObject, JsonRpcId, JsonRpcNotification, JsonRpcRequest, LogLevel } from './jsonrpc';
import { isJsonObject, LOG_LEVELS } from './jsonrpc';
import { McpError } from './mcp-error';
import { META_KEYS } from './meta-keys';
import { negotiateLegacyVersion } from './negotiate-version';
import {
  DEFAULT_HEADERLESS_VERSION,
  isLegacyVersion,
  isModernVersion,
  LATEST_LEGACY_VERSION,
  MODERN_VERSIONS,
  SUPPORTED_VERSIONS,
  type Era,
  type ProtocolVersion,
} from './versions';

export type { HttpHeaders } from './header-value';

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

const VERSION_HEADER = 'mcp-protocol-version';
const METHOD_HEADER = 'mcp-method';
const NAME_HEADER = 'mcp-name';
/** Which params field `Mcp-Name` mirrors, per method (SEP-2243; tasks/* per SEP-2663). */
const NAME_SOURCE: ReadonlyMap<string, string> = new Map([
  ['tools/call', 'name'],
  ['prompts/get', 'name'],
  ['resources/read', 'uri'],
  ['tasks/get', 'taskId'],
  ['tasks/update', 'taskId'],
  ['tasks/cancel', 'taskId'],
]);
const LOG_LEVEL_SET: ReadonlySet<string> = new Set(LOG_LEVELS);
const NON_ASCII = /[^\x00-\x7f]/;
const SUPPORTED_LIST = SUPPORTED_VERSIONS.join(', ');
/** Header values echoed in error messages are cut here (a header can be 16 KiB). */
const ECHO_LIMIT = 64;

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
  const params = isJsonObject(message.params) ? message.params : undefined;
  const meta = params !== undefined && isJsonObject(params['_meta']) ? params['_meta'] : undefined;
  const isRequest = 'id' in message;
  const method = message.method;
  const header = headerValue(headers, VERSION_HEADER);
  const claimed = meta !== undefined && META_KEYS.protocolVersion in meta;

  if (claimed && method === 'initialize' && !isModernVersion(meta[META_KEYS.protocolVersion])) {
    // A handshake carrying a stray or legacy claim stays a handshake (SDK v2 does the same).
    return legacyContext(message, params, meta, header);
  }
  if (claimed) return modernContext(message, isRequest, meta, headers, header);
  if (
    isRequest &&
    isModernVersion(header) &&
    (method === 'server/discover' ||
      headerValue(headers, METHOD_HEADER) !== undefined ||
      (meta !== undefined && META_KEYS.clientCapabilities in meta))
  ) {
    // A modern request that lost its claim: name what is missing instead of serving it as legacy.
    // `Mcp-Method` marks a modern transport; Claude's legacy transport (modern version header,
    // no claim) never sends it, so that quirk is still served as legacy below.
    throw missingMetaKeys(meta);
  }
  return legacyContext(message, params, meta, header);
}

function legacyContext(
  message: JsonRpcRequest | JsonRpcNotification,
  params: JsonObject | undefined,
  meta: JsonObject | undefined,
  header: string | undefined,
): RequestContext {
  const progressToken = readProgressToken(meta);
  if (message.method === 'initialize' && 'id' in message) {
    // The handshake negotiates from its body; the header (if any) says nothing yet.
    const context: RequestContext = { era: 'legacy', protocolVersion: negotiateLegacyVersion(params?.['protocolVersion']) };
    const clientInfo = readClientInfo(params?.['clientInfo']);
    if (clientInfo !== undefined) context.clientInfo = clientInfo;
    const capabilities = params?.['capabilities'];
    if (isJsonObject(capabilities)) context.clientCapabilities = capabilities;
    if (progressToken !== undefined) context.progressToken = progressToken;
    return context;
  }
  const context: RequestContext = { era: 'legacy', protocolVersion: legacyHeaderVersion(header) };
  if (progressToken !== undefined) context.progressToken = progressToken;
  return context;
}

/** Stateless: the header is all we know of the negotiated version. */
function legacyHeaderVersion(header: string | undefined): ProtocolVersion {
  if (header === undefined) return DEFAULT_HEADERLESS_VERSION;
  if (isLegacyVersion(header)) return header;
  // Claude Code sends its newest version after negotiating an older one (MCP-NOTES §4).
  if (isModernVersion(header)) return LATEST_LEGACY_VERSION;
  throw new McpError(
    ErrorCode.InvalidRequest,
    `Bad Request: unsupported MCP-Protocol-Version header "${echo(header)}" (supported: ${SUPPORTED_LIST})`,
    { supported: [...SUPPORTED_VERSIONS], requested: header },
    400,
  );
}

function modernContext(
  message: JsonRpcRequest | JsonRpcNotification,
  isRequest: boolean,
  meta: JsonObject,
  headers: HttpHeaders,
  header: string | undefined,
): RequestContext {
  const version = meta[META_KEYS.protocolVersion];
  if (typeof version !== 'string') throw invalidMeta(META_KEYS.protocolVersion, 'must be a string');
  const capabilities = meta[META_KEYS.clientCapabilities];
  if (isRequest && capabilities === undefined) throw missingMetaKeys(meta);
  if (capabilities !== undefined && !isJsonObject(capabilities)) throw invalidMeta(META_KEYS.clientCapabilities, 'must be an object');
  const rawClientInfo = meta[META_KEYS.clientInfo];
  if (rawClientInfo !== undefined && !isJsonObject(rawClientInfo)) throw invalidMeta(META_KEYS.clientInfo, 'must be an object');
  const logLevel = meta[META_KEYS.logLevel];
  if (logLevel !== undefined && !isLogLevel(logLevel)) throw invalidMeta(META_KEYS.logLevel, `must be one of ${LOG_LEVELS.join(', ')}`);

  // A legacy header never contradicts a modern body: Claude sends 2025-11-25 beside a 2026-07-28 `_meta`.
  if (header !== undefined && header !== version && !isLegacyVersion(header)) {
    throw headerMismatch('MCP-Protocol-Version', header, `the _meta protocol version "${echo(version)}"`);
  }
  const method = message.method;
  const methodHeader = headerValue(headers, METHOD_HEADER);
  if (methodHeader !== undefined && methodHeader !== method) {
    throw headerMismatch('Mcp-Method', methodHeader, `the body method "${echo(method)}"`);
  }
  if (!isModernVersion(version)) {
    throw new McpError(
      ErrorCode.UnsupportedProtocolVersion,
      `Unsupported protocol version "${echo(version)}" (supported: ${MODERN_VERSIONS.join(', ')})`,
      { supported: [...MODERN_VERSIONS], requested: version },
      400,
    );
  }
  if (isRequest) {
    if (header === undefined) throw headerMismatch('MCP-Protocol-Version', undefined, `"${version}"`);
    // A legacy header means a legacy transport layer under a modern protocol layer (Claude): it
    // does not send Mcp-Method / Mcp-Name either, so only values that are present are checked.
    const legacyTransport = isLegacyVersion(header);
    if (methodHeader === undefined && !legacyTransport) throw headerMismatch('Mcp-Method', undefined, `"${echo(method)}"`);
    checkNameHeader(method, message.params, headers, !legacyTransport);
  }

  const context: RequestContext = { era: 'modern', protocolVersion: version };
  if (rawClientInfo !== undefined) context.clientInfo = readClientInfo(rawClientInfo);
  if (isJsonObject(capabilities)) context.clientCapabilities = capabilities;
  if (isLogLevel(logLevel)) context.logLevel = logLevel;
  const progressToken = readProgressToken(meta);
  if (progressToken !== undefined) context.progressToken = progressToken;
  return context;
}

/** `Mcp-Name` must mirror params.name / params.uri / params.taskId (after Base64-sentinel decoding). */
function checkNameHeader(method: string, params: JsonObject | undefined, headers: HttpHeaders, required: boolean): void {
  const field = NAME_SOURCE.get(method);
  if (field === undefined) return;
  const bodyValue = params?.[field];
  const nameHeader = headerValue(headers, NAME_HEADER);
  // A body without a string value is left to params validation (−32602 in-band), as SDK v2 does.
  if (typeof bodyValue !== 'string') return;
  const expected = `params.${field} "${echo(bodyValue)}"`;
  if (nameHeader === undefined) {
    if (required) throw headerMismatch('Mcp-Name', undefined, expected);
    return;
  }
  const decoded = decodeHeaderValue(nameHeader);
  if (decoded === undefined) throw headerMismatch('Mcp-Name', nameHeader, `${expected} (invalid Base64 sentinel)`);
  if (decoded === bodyValue) return;
  // Raw UTF-8 bytes in a header reach us as latin1 characters; accept them when they spell the body value.
  if (decoded === nameHeader && NON_ASCII.test(nameHeader) && Buffer.from(nameHeader, 'latin1').toString('utf8') === bodyValue) return;
  throw headerMismatch('Mcp-Name', nameHeader, expected);
}

function readClientInfo(value: unknown): ClientInfo | undefined {
  if (!isJsonObject(value)) return undefined;
  const info: ClientInfo = {};
  if (typeof value['name'] === 'string') info.name = value['name'];
  if (typeof value['version'] === 'string') info.version = value['version'];
  if (typeof value['title'] === 'string') info.title = value['title'];
  return info;
}

function readProgressToken(meta: JsonObject | undefined): JsonRpcId | undefined {
  const token = meta?.['progressToken'];
  return typeof token === 'string' || (typeof token === 'number' && Number.isFinite(token)) ? token : undefined;
}

function missingMetaKeys(meta: JsonObject | undefined): McpError {
  const missing =
    meta === undefined ? ['_meta'] : [META_KEYS.protocolVersion, META_KEYS.clientCapabilities].filter((key) => !(key in meta));
  const named = meta === undefined ? `_meta (${META_KEYS.protocolVersion}, ${META_KEYS.clientCapabilities})` : missing.join(', ');
  return new McpError(ErrorCode.InvalidParams, `Invalid params: missing _meta key(s): ${named}`, { missing }, 400);
}

function invalidMeta(key: string, problem: string): McpError {
  return new McpError(ErrorCode.InvalidParams, `Invalid params: _meta["${key}"] ${problem}`, { key, problem }, 400);
}

function headerMismatch(header: string, received: string | undefined, expected: string): McpError {
  const message =
    received === undefined
      ? `Bad Request: the required ${header} header is missing (expected ${expected})`
      : `Bad Request: ${header} header "${echo(received)}" does not match ${expected}`;
  return new McpError(ErrorCode.HeaderMismatch, message, { header, received: received ?? null }, 400);
}

function echo(value: string): string {
  return value.length > ECHO_LIMIT ? `${value.slice(0, ECHO_LIMIT)}…` : value;
}

function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && LOG_LEVEL_SET.has(value);
}

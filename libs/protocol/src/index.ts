export {
  DEFAULT_HEADERLESS_VERSION,
  type Era,
  eraOf,
  isLegacyVersion,
  isModernVersion,
  isSupportedVersion,
  LATEST_LEGACY_VERSION,
  LATEST_MODERN_VERSION,
  LEGACY_VERSIONS,
  type LegacyVersion,
  MODERN_VERSIONS,
  type ModernVersion,
  type ProtocolVersion,
  SUPPORTED_VERSIONS,
  versionAtLeast,
} from './versions';
export { ErrorCode, type ErrorCodeValue } from './error-codes';
export { McpError } from './mcp-error';
export {
  isJsonObject,
  type JsonObject,
  type JsonRpcErrorObject,
  type JsonRpcErrorResponse,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type JsonRpcResultResponse,
  LOG_LEVELS,
  type LogLevel,
} from './jsonrpc';
export { META_KEYS } from './meta-keys';
export { type ClassifiedMessage, decodeBody, type DecodedBody } from './decode-body';
export { encodeError, encodeNotification, encodeResult, encodeResultBytes } from './encode';
export { negotiateLegacyVersion } from './negotiate-version';
export { headerValue, type HttpHeaders } from './header-value';
export { decodeHeaderValue } from './decode-header-value';
export { classifyRequest, type ClientInfo, type RequestContext } from './classify-request';
export { isMethodOfEra } from './methods';
export { buildDiscoverResult, buildInitializeResult, type CacheScope, modernResultFields } from './results';
export { type Icon, type ServerInfo } from './server-info';
export { BUILTIN_SURFACES, SPEC_META_PREFIXES, type SurfaceProfile } from './surface-profile';
export {
  APPS_SURFACE_SUFFIX,
  appsSurfaceId,
  declaresMcpApps,
  isUiUri,
  MCP_APP_MIME_TYPE,
  MCP_APPS_EXTENSION,
  MCP_APPS_META_KEYS,
  UI_SCHEME,
  withAppsVariants,
  withMcpApps,
} from './mcp-apps';
export { resolveSurfaceId, surfaceProfiles, type SurfaceSignals, type TenantSurfaceRules } from './resolve-surface';
export { checkParamHeaders, type HeaderParam, headerParamsOf } from './check-param-headers';

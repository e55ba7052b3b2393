export {
  type CatalogSnapshot,
  type DynamicResourceEntry,
  type JsonSchema,
  type PromptArgument,
  type PromptDefinition,
  type PromptEntry,
  type ResourceDefinition,
  type ResourceEntry,
  type ResourceTemplateDefinition,
  type ResourceTemplateEntry,
  type Route,
  type ServerIdentity,
  type ToolAnnotations,
  type ToolDefinition,
  type ToolEntry,
  type ToolIcon,
} from './definitions';
export {
  type AudioContent,
  type ContentBlock,
  type EmbeddedResource,
  type GetPromptResult,
  type ImageContent,
  type InputRequest,
  type InputRequiredResult,
  type PromptMessage,
  type ReadResourceResult,
  type ResourceContents,
  type ResourceLink,
  type TextContent,
  type ToolCallResult,
} from './content';
export { type ToolContext } from './tool-context';
export { ToolContent } from './tool-content';
export { InputRequired } from './input-required';
export { Tool, type ToolClass, ToolError } from './tool';
export { Resource, type ResourceClass, ResourceTemplate, type ResourceTemplateClass } from './resource';
export { Prompt, type PromptClass } from './prompt';
export { type LocalBundle, localHandlerKey, snapshotFromBundle } from './local-bundle';
export { bundleHandlers, type BundleHandlers } from './bundle-handlers';
export { hashSnapshot } from './hash-snapshot';
export {
  buildCatalogSnapshot,
  type BuildSnapshotOptions,
  SNAPSHOT_SERVER_VERSION,
  type SnapshotEntryKind,
  type SnapshotPart,
  type SnapshotTenant,
} from './build-snapshot';
export { namespaceAppUris, namespacedUiUri } from './ui-apps/namespace-app-uris';
export { canonicalJson } from './canonical-json';
export { CatalogError, type CatalogErrorCode } from './catalog-error';
export { type ArgsValidator, SchemaCompiler, compileValidator } from './compile-validator';
export { linearRegExp, type LinearRegExp, MAX_PATTERN_LENGTH } from './linear-reg-exp';
export { findUnsupportedPatterns, type UnsupportedPattern } from './find-unsupported-patterns';
export { compileUriTemplate, type UriTemplateMatcher } from './compile-uri-template';
export { filterMeta } from './filter-meta';
export { publishTool } from './publish-tool';
export { discoveryRule, maxToolsRule, nameCharsetRule, nameLengthRule, retiredRule, type ListVerdict } from './tool-visibility';
export { missingScopes, scopeSatisfies } from './scope-satisfies';
export { enterpriseGroupScopes, MAX_GROUPS_READ } from './enterprise-group-scopes';
export { withUpstreamTaskSupport } from './task-support';
export { toolDefinitionsFromJson } from './tool-definitions-from-json';
export { CatalogCaches, type CatalogCachesOptions } from './catalog-caches';
export { CompiledCatalog, type CompileOptions, type ListMethod, type ListPage } from './compiled-catalog';
export { DEFAULT_PAGE_CACHE_BYTES, PageCache } from './page-cache';
export { catalogRedisKeys, type PublishedCatalog, type TenantCatalog } from './published-catalog';
export { type RateLimitSpec, type TenantRatePlan } from './tenant-rate-plan';
export { type TenantCallLogPolicy } from './tenant-call-log-policy';
export {
  connectorGrantSchema,
  type ConnectorGrantSettings,
  type ConnectorSettings,
  type IdpSettings,
  TENANT_AUTH_LIMITS,
  tenantAuthSchema,
  type TenantAuthSettings,
} from './tenant-auth-schema';
export {
  ENTERPRISE_IDP_LIMITS,
  ENTERPRISE_MANAGED_AUTHORIZATION,
  type EnterpriseIdp,
  enterpriseIdpSchema,
  enterpriseIdpsSchema,
} from './enterprise-idp-schema';
export { tenantSecretAad } from './tenant-secret-aad';
export { idpTestAad, type IdpTestResult, type IdpTestTicket } from './idp-test-aad';
export { TENANT_SETTINGS_LIMITS, type TenantSettings, tenantSettingsSchema } from './tenant-settings-schema';
export { tenantDocumentVersion } from './tenant-document-version';
export { buildTenantDocument } from './build-tenant-document';
export { parseTenantDocument } from './parse-tenant-document';
export { canonicalMcpUrl, type TenantLayout } from './canonical-mcp-url';
export { type NumericTenantLimit, TENANT_LIMIT_BOUNDS, type TenantLimits, tenantLimitsOf } from './tenant-limits';
export { DYNAMIC_RESOURCE_LIMITS, DynamicResourceRoutes, dynamicPrefixProblem } from './dynamic-resources';
export { guardrailSecretAad, openGuardrailSecrets } from './guardrail-secrets';
export {
  DEFAULT_DISCOVERY_THRESHOLD,
  DISCOVERY_LIMITS,
  type DiscoveryMode,
  type DiscoverySettings,
  discoverySettingsSchema,
  type SurfaceDiscovery,
  surfaceDiscovery,
} from './discovery/discovery-settings';
export { META_TOOL_LIMITS } from './discovery/meta-tools';
export { CLAUDE_ALWAYS_LOAD, type ToolMatch, ToolDiscovery } from './discovery/tool-discovery';
export { compactToolEntries, isCompact } from './compact-tool-entry';

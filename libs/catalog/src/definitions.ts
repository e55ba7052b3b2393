/**
 * The internal catalog model. It keeps *everything* a tool declares (including vendor
 * fields such as ChatGPT's `securitySchemes`); what is published is decided per surface
 * by `compileCatalog`.
 */

export type JsonSchema = Record<string, unknown>;

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
  [key: string]: unknown;
}

export interface ToolIcon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
}

/** One tool as the catalog stores it (exposed name, never the upstream's). */
export interface ToolDefinition {
  name: string;
  title?: string;
  description?: string;
  /** Raw JSON Schema; JSON Schema 2020-12 unless `$schema` says otherwise. */
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations?: ToolAnnotations;
  icons?: ToolIcon[];
  _meta?: Record<string, unknown>;
  /** ChatGPT Apps SDK per-tool auth declaration; published only on surfaces that want it. */
  securitySchemes?: unknown[];
  /** OAuth scopes a caller needs for this tool (enforced by the gateway when the tenant is protected). */
  requiredScopes?: string[];
  /**
   * Tasks extension (SEP-2663): the call may outlive its request as a task (`optional`), or
   * may not be served to a client that cannot take a task (`required`: −32021 without the
   * extension). Internal: never published (2026-07-28 tools carry no task field).
   */
  taskSupport?: 'optional' | 'required';
  /**
   * Client capabilities the upstream registers this tool for (found by discovery: `sampling`,
   * `elicitation`, `elicitation.url`, `roots`, `tasks`); a client lacking one is refused the
   * call with −32021 naming it. Internal: never published.
   */
  requiredClientCapabilities?: string[];
}

export interface ResourceDefinition {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

export interface ResourceTemplateDefinition {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

export interface PromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
}

export interface PromptDefinition {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  _meta?: Record<string, unknown>;
}

/** Where a catalog entry is served from. Exposed names are never parsed back into routes. */
export type Route =
  /** An in-process implementation registered under `handler` (a built-in tool class). */
  | { kind: 'local'; handler: string }
  /** A tenant's upstream MCP server over Streamable HTTP. */
  | {
      kind: 'upstream';
      serverId: string;
      url: string;
      /** The upstream's own name for the tool / prompt, or the resource URI. */
      upstreamName: string;
      /** Headers the upstream needs (its own credential); never the client's token. */
      headers?: Record<string, string>;
      /** Stateful upstreams need an `initialize`d session; stateless ones are called directly. */
      stateful?: boolean;
      /** `modern`: the upstream speaks only 2026-07-28 (`server/discover`, stateless); default legacy (`initialize`). */
      protocol?: 'modern' | 'legacy';
      /** `sse`: a 2024-11-05 server reached over the legacy HTTP+SSE transport; default Streamable HTTP. */
      transport?: 'sse';
      timeoutMs?: number;
      maxConcurrency?: number;
    };

export interface ToolEntry {
  definition: ToolDefinition;
  route: Route;
  /**
   * Callable by name but left out of every `tools/list` page (and of `maxTools` counting).
   * For a renamed or removed tool in its grace period: clients that cached an older list can
   * still call it, while fresh lists no longer show it. Part of the snapshot content hash.
   */
  unlisted?: boolean;
}
export interface ResourceEntry {
  definition: ResourceDefinition;
  route: Route;
}
export interface ResourceTemplateEntry {
  definition: ResourceTemplateDefinition;
  route: Route;
}
/**
 * A server's "dynamic resources" publication: URIs starting with `uriPrefix` that no listed
 * resource or template matches are read from the route's server (links and embedded resources
 * its tools return, session resources). Off unless the tenant publishes it.
 */
export interface DynamicResourceEntry {
  uriPrefix: string;
  route: Route;
}
export interface PromptEntry {
  definition: PromptDefinition;
  route: Route;
}

export interface ServerIdentity {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
}

/**
 * An immutable, versioned catalog of one tenant. `version` is a content hash, so two
 * snapshots with the same version are the same bytes.
 */
export interface CatalogSnapshot {
  tenantId: string;
  version: string;
  server: ServerIdentity;
  instructions?: string;
  tools: ToolEntry[];
  resources: ResourceEntry[];
  resourceTemplates: ResourceTemplateEntry[];
  prompts: PromptEntry[];
  /** Published dynamic-resource prefixes (absent when no server publishes any, so older hashes stay). */
  dynamicResources?: DynamicResourceEntry[];
}

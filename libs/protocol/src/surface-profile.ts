/**
 * A client surface: the rules that shape what one family of clients is *published*.
 * The catalog keeps everything internally; a surface only decides what goes on the wire.
 * Surfaces are data so tenants can define their own.
 */
export interface SurfaceProfile {
  /** `generic`, `claude`, `openai`, or a tenant-defined id (`[a-z0-9-]{1,32}`). */
  id: string;
  /** Human label for previews. */
  label: string;
  /**
   * Which tool `_meta` keys survive. Each entry is an exact key (`ui`) or a prefix ending
   * in `/` (`openai/`); `*` keeps every key. An empty list strips `_meta` entirely.
   */
  keepMetaKeys: string[];
  /** Publish the ChatGPT-style top-level `securitySchemes` (and its `_meta.securitySchemes` mirror). */
  publishSecuritySchemes: boolean;
  /** Copy `title` into `annotations.title` when that is missing (Claude shows names otherwise). */
  mirrorTitleToAnnotations: boolean;
  /** Fill every hint annotation (`readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`) with its spec default when absent. */
  defaultHintAnnotations: boolean;
  /** Longest tool name the client accepts; longer names are not published. */
  maxNameLength: number;
  /** Longest description; longer ones are cut with an ellipsis. `0` = no limit. */
  maxDescriptionLength: number;
  /** Most tools the client is shown (first N in catalog order). `0` = no cap. */
  maxTools: number;
  /**
   * MCP Apps for every client of the surface, declared or not: `ui://` resources are listed and
   * read, and the `ui` meta keys kept. Otherwise only a client that declares the
   * `io.modelcontextprotocol/ui` extension gets them (served the surface's `+apps` variant).
   */
  mcpApps?: boolean;
}

/**
 * `_meta` key prefixes the MCP specification reserves for itself (2025-06-18+: a prefix whose
 * second label is `modelcontextprotocol` or `mcp`). The generic surface keeps only these.
 */
export const SPEC_META_PREFIXES: readonly string[] = Object.freeze([
  'io.modelcontextprotocol/',
  'dev.modelcontextprotocol/',
  'org.modelcontextprotocol/',
  'io.mcp/',
  'dev.mcp/',
  'org.mcp/',
]);

/** The built-in surfaces. Tenants may override fields or add their own ids. */
export const BUILTIN_SURFACES: Readonly<Record<'generic' | 'claude' | 'openai', SurfaceProfile>> = {
  generic: {
    id: 'generic',
    label: 'Spec-pure (any MCP client)',
    // Spec-defined keys only: vendor keys (`openai/*`, `ui`) made Claude drop whole tool arrays,
    // and other clients have no use for them. Tenants opt keys in per surface (surface rules).
    keepMetaKeys: [...SPEC_META_PREFIXES],
    publishSecuritySchemes: false,
    mirrorTitleToAnnotations: false,
    defaultHintAnnotations: false,
    maxNameLength: 128,
    maxDescriptionLength: 0,
    maxTools: 0,
  },
  claude: {
    id: 'claude',
    label: 'Claude (claude.ai, Desktop, Code)',
    keepMetaKeys: [],
    publishSecuritySchemes: false,
    mirrorTitleToAnnotations: true,
    defaultHintAnnotations: true,
    maxNameLength: 64,
    maxDescriptionLength: 0,
    maxTools: 0,
  },
  openai: {
    id: 'openai',
    label: 'ChatGPT / OpenAI Apps SDK',
    keepMetaKeys: ['*'],
    publishSecuritySchemes: true,
    mirrorTitleToAnnotations: true,
    defaultHintAnnotations: true,
    maxNameLength: 64,
    maxDescriptionLength: 0,
    maxTools: 0,
    // ChatGPT renders `openai/outputTemplate` widgets from `ui://` resources without declaring the extension.
    mcpApps: true,
  },
};

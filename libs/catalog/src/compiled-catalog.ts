import type { CacheScope, ProtocolVersion, ServerInfo, SurfaceProfile } from '@switchboard/protocol';
import type { ArgsValidator } from './compile-validator';
import type { CatalogSnapshot, PromptEntry, ResourceEntry, ResourceTemplateEntry, ToolEntry } from './definitions';

export type ListMethod = 'tools/list' | 'resources/list' | 'resources/templates/list' | 'prompts/list';

export interface CompileOptions {
  surfaces: Record<string, SurfaceProfile>;
  /** Items per page of a list (default 100). */
  pageSize?: number;
  /** Modern-era list cache hint (default 60_000). */
  ttlMs?: number;
  /** `private` for tenant- or user-specific lists (default). */
  cacheScope?: CacheScope;
}

/**
 * A snapshot compiled for serving: per-tool argument validators, lookup maps, and for
 * every (surface, version) the result bytes of each list page. Built when a snapshot
 * changes, never per request; immutable afterwards, so a swap is one reference assignment.
 */
export class CompiledCatalog {
  private constructor(readonly snapshot: CatalogSnapshot) {}

  static build(snapshot: CatalogSnapshot, options: CompileOptions): CompiledCatalog {
    void options;
    return new CompiledCatalog(snapshot);
  }

  get serverInfo(): ServerInfo {
    throw new Error('not implemented');
  }

  /** Capabilities derived from what the snapshot holds (tools / resources / prompts; logging and completions). */
  get capabilities(): Record<string, unknown> {
    throw new Error('not implemented');
  }

  tool(name: string): { entry: ToolEntry; validate: ArgsValidator } | undefined {
    void name;
    throw new Error('not implemented');
  }

  prompt(name: string): PromptEntry | undefined {
    void name;
    throw new Error('not implemented');
  }

  /** A static resource by exact URI, or the first template matching it with its variables. */
  resource(uri: string): { entry: ResourceEntry } | { template: ResourceTemplateEntry; vars: Record<string, string> } | undefined {
    void uri;
    throw new Error('not implemented');
  }

  /**
   * Result bytes (no JSON-RPC envelope) of one page of a list for a surface and version:
   * modern versions carry `resultType`, `ttlMs`, `cacheScope` and `_meta` serverInfo.
   * An unknown surface id falls back to `generic`.
   * @throws McpError −32602 for an invalid cursor.
   */
  list(method: ListMethod, surfaceId: string, version: ProtocolVersion, cursor?: string): Buffer {
    void method; void surfaceId; void version; void cursor;
    throw new Error('not implemented');
  }
}

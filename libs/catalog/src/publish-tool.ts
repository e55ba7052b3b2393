import type { ProtocolVersion, SurfaceProfile } from '@switchboard/protocol';
import type { ToolDefinition } from './definitions';

/**
 * The wire shape of one tool for a surface and protocol version, or null when the tool
 * cannot be published there (name too long or outside the charset). Fields the version
 * does not know are left out (e.g. no `title`/`_meta`/`outputSchema` before 2025-06-18,
 * no `annotations` before 2025-03-26, no `icons` before 2025-11-25).
 */
export function publishTool(def: ToolDefinition, surface: SurfaceProfile, version: ProtocolVersion): Record<string, unknown> | null {
  void def; void surface; void version;
  throw new Error('not implemented');
}

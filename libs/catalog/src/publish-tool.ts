import { versionAtLeast, type ProtocolVersion, type SurfaceProfile } from '@switchboard/protocol';
import type { ToolAnnotations, ToolDefinition } from './definitions';
import { filterMeta } from './filter-meta';
import { nameCharsetRule, nameLengthRule } from './tool-visibility';

/**
 * The wire shape of one tool for a surface and protocol version, or null when the tool
 * cannot be published there (name too long or outside the charset). Fields the version
 * does not know are left out (e.g. no `title`/`_meta`/`outputSchema` before 2025-06-18,
 * no `annotations` before 2025-03-26, no `icons` before 2025-11-25). `requiredScopes` is
 * internal and never published. The input definition is never mutated.
 */
export function publishTool(def: ToolDefinition, surface: SurfaceProfile, version: ProtocolVersion): Record<string, unknown> | null {
  if (nameCharsetRule(def.name) === 'hide' || nameLengthRule(def.name, surface) === 'hide') return null;
  const out: Record<string, unknown> = { name: def.name };
  const modernFields = versionAtLeast(version, '2025-06-18');
  if (modernFields && def.title !== undefined) out.title = def.title;
  if (def.description !== undefined) out.description = truncate(def.description, surface.maxDescriptionLength);
  out.inputSchema = def.inputSchema;
  if (modernFields && def.outputSchema !== undefined) out.outputSchema = def.outputSchema;
  if (versionAtLeast(version, '2025-03-26')) {
    const annotations = publishAnnotations(def, surface);
    if (annotations) out.annotations = annotations;
  }
  if (versionAtLeast(version, '2025-11-25') && def.icons !== undefined && def.icons.length > 0) out.icons = def.icons;
  if (surface.publishSecuritySchemes && def.securitySchemes !== undefined) out.securitySchemes = def.securitySchemes;
  if (modernFields) {
    let meta = filterMeta(def._meta, surface.keepMetaKeys, surface.publishSecuritySchemes);
    // ChatGPT reads `_meta.securitySchemes` when a client drops unknown top-level fields.
    if (surface.publishSecuritySchemes && def.securitySchemes !== undefined && meta?.securitySchemes === undefined) {
      meta = { ...meta, securitySchemes: def.securitySchemes };
    }
    if (meta) out._meta = meta;
  }
  return out;
}

function publishAnnotations(def: ToolDefinition, surface: SurfaceProfile): ToolAnnotations | undefined {
  const annotations: ToolAnnotations = { ...def.annotations };
  if (surface.mirrorTitleToAnnotations && annotations.title === undefined && def.title !== undefined) {
    annotations.title = def.title;
  }
  if (surface.defaultHintAnnotations) {
    // Spec defaults (2025-03-26 schema); a read-only tool cannot be destructive, so its default flips.
    annotations.readOnlyHint ??= false;
    annotations.destructiveHint ??= !annotations.readOnlyHint;
    annotations.idempotentHint ??= false;
    annotations.openWorldHint ??= true;
  }
  return Object.keys(annotations).length > 0 ? annotations : undefined;
}

function truncate(text: string, max: number): string {
  if (max <= 0 || text.length <= max) return text;
  // Cut on code points so a surrogate pair is never split.
  const points = Array.from(text);
  if (points.length <= max) return text;
  return `${points.slice(0, Math.max(0, max - 1)).join('')}…`;
}

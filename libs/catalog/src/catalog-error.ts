/** Stable string codes of local (never on the wire) catalog failures. Never reuse a code. */
export type CatalogErrorCode =
  /** A tool/resource/prompt definition is malformed (message names the index and field). */
  | 'CATALOG_INVALID_DEFINITION'
  /** Two entries of one kind share a name (tools, prompts), URI (resources) or URI template. */
  | 'CATALOG_DUPLICATE_NAME'
  /** A tenant document (settings or snapshot) is malformed; `details.field` names the field. */
  | 'CATALOG_INVALID_DOCUMENT'
  /** A schema regex the linear-time engine cannot run (backreference, lookaround, bad syntax); details: pattern, reason. */
  | 'CATALOG_UNSUPPORTED_PATTERN';

/** A local catalog failure (loading or compiling a snapshot); the gateway keeps serving the previous snapshot. */
export class CatalogError extends Error {
  override readonly name = 'CatalogError';
  constructor(
    readonly code: CatalogErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

import { CatalogError } from './catalog-error';
import type { DynamicResourceEntry } from './definitions';

/**
 * Bounds of a server's "dynamic resources" setting (URI prefixes it owns): a tenant sets them, so
 * the prefix list a read is matched against stays small and every prefix names a scheme.
 */
export const DYNAMIC_RESOURCE_LIMITS = { maxPrefixesPerServer: 16, maxPrefixLength: 512 } as const;

/** `scheme:` then at least one character: a bare scheme would hand every URI of it to one server. */
const PREFIX = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]+$/;

/** Why a dynamic-resource URI prefix is refused, or undefined when it is acceptable. */
export function dynamicPrefixProblem(prefix: string): string | undefined {
  if (prefix.length > DYNAMIC_RESOURCE_LIMITS.maxPrefixLength)
    return `must be at most ${DYNAMIC_RESOURCE_LIMITS.maxPrefixLength} characters`;
  if (!PREFIX.test(prefix))
    return 'must be a URI prefix: a scheme, ":", then at least one non-space character (e.g. "demo://resource/session/")';
  return undefined;
}

/**
 * Routes a URI outside the listed resources and templates to the one server whose published
 * dynamic-resource prefix it starts with. Prefixes of two servers never overlap (one a prefix
 * of the other), so a URI has at most one owner and no server's URI can reach another server.
 */
export class DynamicResourceRoutes {
  private constructor(private readonly byLength: readonly DynamicResourceEntry[]) {}

  /** @throws CatalogError `CATALOG_INVALID_DEFINITION` for a malformed prefix, `CATALOG_DUPLICATE_NAME` for overlapping ones. */
  static build(entries: readonly DynamicResourceEntry[]): DynamicResourceRoutes {
    const sorted = [...entries].sort((a, b) => b.uriPrefix.length - a.uriPrefix.length);
    for (const [i, e] of sorted.entries()) {
      const problem = typeof e.uriPrefix === 'string' ? dynamicPrefixProblem(e.uriPrefix) : 'must be a string';
      if (problem)
        throw new CatalogError('CATALOG_INVALID_DEFINITION', `dynamic resource prefix "${String(e.uriPrefix).slice(0, 80)}" ${problem}`, {
          field: 'dynamicResources',
        });
      for (const longer of sorted.slice(0, i)) {
        if (longer.uriPrefix.startsWith(e.uriPrefix) && (longer.uriPrefix === e.uriPrefix || serverOf(longer) !== serverOf(e))) {
          throw new CatalogError(
            'CATALOG_DUPLICATE_NAME',
            `dynamic resource prefix "${e.uriPrefix}" overlaps "${longer.uriPrefix}" (each URI must have one owner)`,
            {
              kind: 'dynamic resource prefix',
              key: e.uriPrefix,
            },
          );
        }
      }
    }
    return new DynamicResourceRoutes(sorted);
  }

  get size(): number {
    return this.byLength.length;
  }

  /** The entry owning `uri` (the longest matching prefix), if any. */
  find(uri: string): DynamicResourceEntry | undefined {
    for (const e of this.byLength) if (uri.startsWith(e.uriPrefix)) return e;
    return undefined;
  }
}

function serverOf(e: DynamicResourceEntry): string {
  return e.route.kind === 'upstream' ? e.route.serverId : `local:${e.route.handler}`;
}

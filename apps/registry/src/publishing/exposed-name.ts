import { createHash } from 'node:crypto';
import { ApiError } from '../http/api-error';
import { EXPOSED_NAME } from '../http/schemas';

const MAX = 64;

/** An upstream name made valid on every surface: invalid characters → `_`, long names cut with a hash suffix. */
export function sanitizeName(name: string): string {
  let out = name.replace(/[^A-Za-z0-9_.-]/g, '_');
  if (out.length === 0) out = '_';
  if (out.length > MAX) out = `${out.slice(0, MAX - 9)}_${createHash('sha256').update(name).digest('hex').slice(0, 8)}`;
  return out;
}

export interface ExposedNameRequest {
  upstreamName: string;
  /** The tenant's explicit choice, validated as-is (never rewritten). */
  explicit?: string;
  /** The server's prefix for collisions (its `toolPrefix`, else its id). */
  prefix: string;
  /** Names already taken in this tenant (same kind). */
  taken: ReadonlySet<string>;
  /** The request field to name in errors (`body.items.2.exposedName`). */
  field: string;
}

/**
 * Picks the exposed name of a tool or prompt: the explicit name when given (must be valid
 * and free), else the sanitized upstream name, else — when another server already uses it —
 * the deterministic `<prefix>_<name>`. Names already published keep theirs (stability).
 */
export function exposedName(req: ExposedNameRequest): string {
  if (req.explicit !== undefined) {
    if (!EXPOSED_NAME.test(req.explicit)) {
      throw new ApiError(
        400,
        'NAME_INVALID',
        `${req.field}: "${req.explicit}" must be 1-64 characters of A-Z a-z 0-9 _ . - (valid on every surface)`,
        req.field,
      );
    }
    if (req.taken.has(req.explicit))
      throw new ApiError(409, 'NAME_COLLISION', `${req.field}: "${req.explicit}" is already published by this tenant`, req.field);
    return req.explicit;
  }
  const base = sanitizeName(req.upstreamName);
  if (!req.taken.has(base)) return base;
  const prefixed = sanitizeName(`${req.prefix}_${req.upstreamName}`);
  if (!req.taken.has(prefixed)) return prefixed;
  throw new ApiError(
    409,
    'NAME_COLLISION',
    `${req.field}: "${base}" and "${prefixed}" are both taken in this tenant; choose an exposedName`,
    req.field,
  );
}

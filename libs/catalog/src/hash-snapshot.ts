import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json';
import type { CatalogSnapshot } from './definitions';

/** Content hash (sha256 hex of canonical JSON with sorted keys) of a snapshot without its `version`. */
export function hashSnapshot(snapshot: Omit<CatalogSnapshot, 'version'>): string {
  // A full snapshot may be passed at runtime; its own version must not feed its hash.
  const { version: _ignored, ...content } = snapshot as Omit<CatalogSnapshot, 'version'> & { version?: string };
  return createHash('sha256').update(canonicalJson(content)).digest('hex');
}
